import { declaredClientCredentials } from './openapi-security.js';

describe('declaredClientCredentials', () => {
  const schemes = {
    apiKey: { type: 'apiKey', in: 'header', name: 'X-Key' },
    code: { type: 'oauth2', flows: { authorizationCode: { tokenUrl: 'https://idp/code' } } },
    machines: {
      type: 'oauth2',
      flows: { clientCredentials: { tokenUrl: '/oauth/token', scopes: { 'orders.read': '' } } },
    },
  };
  const spec = { components: { securitySchemes: schemes }, security: [{ machines: [] }] };
  const server = 'https://api.example.com/v1';

  it("takes the operation's first requirement with a clientCredentials flow, scopes joined", () => {
    const operation = {
      security: [{ apiKey: [] }, { code: [] }, { machines: ['orders.read', 'orders.write'] }],
    };
    expect(declaredClientCredentials(spec, operation, server)).toEqual({
      tokenUrl: 'https://api.example.com/oauth/token',
      scope: 'orders.read orders.write',
    });
  });

  it("falls back to the document's security, and finds none where no such flow is named", () => {
    expect(declaredClientCredentials(spec, {}, server)).toEqual({
      tokenUrl: 'https://api.example.com/oauth/token',
    });
    expect(declaredClientCredentials(spec, { security: [{ apiKey: [] }] }, server)).toBeUndefined();
    expect(declaredClientCredentials({}, {}, server)).toBeUndefined();
  });

  it('resolves a token URL relative to the server, whose path it extends', () => {
    const relative = {
      components: {
        securitySchemes: {
          m: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: 'oauth/token' } } },
        },
      },
    };
    const operation = { security: [{ m: ['a', 7, 'b'] }] };
    expect(declaredClientCredentials(relative, operation, server)).toEqual({
      tokenUrl: 'https://api.example.com/v1/oauth/token',
      scope: 'a b',
    });
  });

  it('skips a scheme whose flow gives no token URL', () => {
    const blank = {
      components: {
        securitySchemes: {
          ...schemes,
          blank: { type: 'oauth2', flows: { clientCredentials: { tokenUrl: '' } } },
        },
      },
    };
    expect(
      declaredClientCredentials(blank, { security: [{ blank: [] }, { machines: [] }] }, server),
    ).toEqual({ tokenUrl: 'https://api.example.com/oauth/token' });
  });
});
