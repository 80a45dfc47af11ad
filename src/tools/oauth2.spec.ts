import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serverFor, testTls } from '../../test/support/tls.js';
import { TokenServer } from '../../test/support/token-server.js';
import { REFUSED_ORIGIN } from '../../test/support/refused.js';
import { oauth2Config, OAuth2Tokens, type OAuth2Config } from './oauth2.js';

describe('OAuth2Tokens (client credentials, against a real token endpoint)', () => {
  const server = new TokenServer();
  let tokenUrl = '';
  beforeAll(async () => {
    tokenUrl = await server.start();
  });
  afterAll(() => server.stop());
  beforeEach(() => {
    server.requests.length = 0;
    server.expiresIn = 3600;
  });
  const client = (extra: Partial<OAuth2Config> = {}): OAuth2Config => ({
    tokenUrl,
    clientId: 'agent',
    clientSecret: 's3cret:&',
    clientAuth: 'basic',
    ...extra,
  });

  it('asks once with HTTP Basic and the scope, and shares the token between calls', async () => {
    const tokens = new OAuth2Tokens();
    const config = client({ scope: 'orders.read', audience: 'https://api.example.com' });
    const [a, b] = await Promise.all([tokens.get(config, 5000), tokens.get(config, 5000)]);
    expect(a).toBe(b);
    expect(await tokens.get(config, 5000)).toBe(a);
    expect(server.requests).toHaveLength(1);
    const [request] = server.requests;
    expect(request!.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request!.headers.accept).toBe('application/json');
    expect(Object.fromEntries(request!.form)).toEqual({
      grant_type: 'client_credentials',
      scope: 'orders.read',
      audience: 'https://api.example.com',
    });
    expect(tokens.secretsOf({ secrets: {}, oauth2: config })).toEqual({ 'oauth2.access_token': a });
  });

  it('keeps a token whose expires_in is 0 or missing until the API refuses it', async () => {
    for (const expiresIn of [0, -5, undefined]) {
      server.requests.length = 0;
      server.expiresIn = expiresIn;
      const tokens = new OAuth2Tokens();
      const first = await tokens.get(client(), 5000);
      expect(await tokens.get(client(), 5000)).toBe(first);
      expect(server.requests).toHaveLength(1);
    }
  });

  it('sends the credentials in the form with client_auth "body"', async () => {
    const token = await new OAuth2Tokens().get(client({ clientAuth: 'body' }), 5000);
    expect(token).toMatch(/^tok-\d+$/);
    expect(server.requests[0]!.headers.authorization).toBeUndefined();
    expect(server.requests[0]!.form.get('client_secret')).toBe('s3cret:&');
  });

  it('asks again once a token expires, and after the API refused it', async () => {
    const tokens = new OAuth2Tokens();
    server.expiresIn = 1; // used for half of that
    const first = await tokens.get(client(), 5000);
    expect(await tokens.get(client(), 5000)).toBe(first); // a token that short is not given up at once
    await new Promise((r) => setTimeout(r, 600));
    const second = await tokens.get(client(), 5000);
    expect(second).not.toBe(first);
    server.expiresIn = 3600;
    await new Promise((r) => setTimeout(r, 600));
    const third = await tokens.get(client(), 5000);
    expect(third).not.toBe(second);
    await tokens.refuse(client(), first); // an old token refused: the one held stays
    expect(await tokens.get(client(), 5000)).toBe(third);
    await tokens.refuse(client(), third);
    expect(await tokens.get(client(), 5000)).not.toBe(third);
    expect(server.requests).toHaveLength(4);
  });

  it('keeps the tokens of the clients used last only: memory does not grow with every tool set', async () => {
    const tokens = new OAuth2Tokens(() => {}, undefined, 2);
    const rotated = (n: number) => client({ scope: `orders.v${n}` });
    const first = await tokens.get(rotated(1), 5000);
    await tokens.get(rotated(2), 5000);
    expect(await tokens.get(rotated(1), 5000)).toBe(first); // used last: kept
    await tokens.get(rotated(3), 5000); // the third client lets go of the second
    expect(server.requests).toHaveLength(3);
    expect(tokens.secretsOf({ secrets: {}, oauth2: rotated(2) })).toEqual({});
    expect(tokens.secretsOf({ secrets: {}, oauth2: rotated(1) })).toEqual({
      'oauth2.access_token': first,
    });
    await tokens.get(rotated(2), 5000); // in use again: a new token
    expect(server.requests).toHaveLength(4);
  });

  it('says what the endpoint answered when it gives no token, and asks again next time', async () => {
    const tokens = new OAuth2Tokens();
    await expect(tokens.get(client({ clientSecret: 'wrong' }), 5000)).rejects.toThrow(
      `cannot get an access token from the token endpoint: HTTP 401: {"error":"invalid_client"}`,
    );
    server.failNext = { status: 200, body: '{"token_type":"Bearer"}' };
    await expect(tokens.get(client(), 5000)).rejects.toThrow('the answer has no access_token');
    server.failNext = { status: 200, body: '{"access_token":"","token_type":"Bearer"}' };
    await expect(tokens.get(client(), 5000)).rejects.toThrow('the answer has no access_token');
    expect(await tokens.get(client(), 5000)).toMatch(/^tok-/);
    // A redirect is not followed: it would take the secret elsewhere.
    const asked = server.requests.length;
    server.failNext = { status: 307, body: 'moved', location: `${tokenUrl}?elsewhere` };
    await expect(new OAuth2Tokens().get(client({ clientAuth: 'body' }), 5000)).rejects.toThrow(
      'HTTP 307: moved',
    );
    expect(server.requests.length).toBe(asked + 1);
    // A secret the endpoint echoes is masked.
    server.failNext = { status: 400, body: 'bad client secret s3cret:&' };
    await expect(new OAuth2Tokens().get(client(), 5000)).rejects.toThrow(
      'HTTP 400: bad client secret [secret]',
    );
  });

  it('says why when the endpoint answers no JSON, cannot be reached, or does not answer in time', async () => {
    server.failNext = { status: 200, body: '<html>login</html>' };
    await expect(new OAuth2Tokens().get(client(), 5000)).rejects.toThrow(
      `cannot get an access token from the token endpoint: the answer is not JSON`,
    );
    // An error page is quoted up to 300 characters; an answer over 64 KiB is not read whole.
    server.failNext = { status: 503, body: `<html>${'busy '.repeat(1000)}</html>` };
    const busy = await new OAuth2Tokens().get(client(), 5000).catch((e: Error) => e.message);
    expect(busy).toBe(
      `cannot get an access token from the token endpoint: HTTP 503: ${`<html>${'busy '.repeat(1000)}`.slice(0, 300)}`,
    );
    server.failNext = { status: 200, body: JSON.stringify({ access_token: 'x'.repeat(70_000) }) };
    await expect(new OAuth2Tokens().get(client(), 5000)).rejects.toThrow(
      'cannot get an access token from the token endpoint: the answer is larger than 65536 bytes',
    );
    // An endpoint whose certificate a private CA signed (the engine not told of the CA).
    const secure = serverFor((_req, res) => res.end('{}'), testTls());
    await new Promise<void>((r) => secure.listen(0, '127.0.0.1', r));
    const securePort = (secure.address() as AddressInfo).port;
    await expect(
      new OAuth2Tokens().get(client({ tokenUrl: `https://127.0.0.1:${securePort}/token` }), 5000),
    ).rejects.toThrow(
      'cannot get an access token from the token endpoint: its TLS certificate is not trusted (UNABLE_TO_VERIFY_LEAF_SIGNATURE)',
    );
    await new Promise((r) => secure.close(r));
    const silent = createServer(() => undefined);
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const port = (silent.address() as AddressInfo).port;
    try {
      await expect(
        new OAuth2Tokens().get(client({ tokenUrl: `http://127.0.0.1:${port}/token` }), 200),
      ).rejects.toThrow(`cannot get an access token from the token endpoint: timed out after 0.2s`);
    } finally {
      silent.closeAllConnections();
      await new Promise((r) => silent.close(r));
    }
    await expect(
      // Port 1, where nothing listens: the silent server's port, once freed, may be another's.
      new OAuth2Tokens().get(client({ tokenUrl: `${REFUSED_ORIGIN}/token` }), 2000),
    ).rejects.toThrow(
      // By its code, without the endpoint's address.
      /^cannot get an access token from the token endpoint: cannot reach it \(ECONNREFUSED\)$/,
    );
  });
});

describe('oauth2Config', () => {
  const input = {
    token_url: 'https://idp.example.com/token',
    client_id: 'agent',
    client_secret: '${TOOL_SECRET_IDP}',
  };

  it('fills in TOOL_SECRET_* references, and gives the secret to mask', () => {
    const { config, secrets } = oauth2Config(input, { TOOL_SECRET_IDP: 'very-secret' });
    expect(config).toEqual({
      tokenUrl: 'https://idp.example.com/token',
      clientId: 'agent',
      clientSecret: 'very-secret',
      clientAuth: 'basic',
    });
    expect(Object.values(secrets)).toContain('very-secret');
    const body = oauth2Config(
      { ...input, client_auth: 'body', scope: 's' },
      { TOOL_SECRET_IDP: 'x' },
    );
    expect(body.config).toMatchObject({ clientAuth: 'body', scope: 's' });
  });

  it('refuses a variable token_url, session variables and unset secrets, naming the field', () => {
    expect(() =>
      oauth2Config({ ...input, token_url: 'https://{tenant}.idp.example.com/token' }, {}),
    ).toThrow("field 'oauth2.token_url' holds a placeholder or variable");
    expect(() => oauth2Config({ ...input, client_id: '${session.user}' }, {})).toThrow(
      "field 'oauth2.client_id' may refer to TOOL_SECRET_* variables, not session ones",
    );
    expect(() => oauth2Config(input, {})).toThrow(
      "field 'oauth2.client_secret' refers to ${TOOL_SECRET_IDP}, which is not set in the environment",
    );
  });
});
