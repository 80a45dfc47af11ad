import { OperationError } from './operation-error.js';
import { serverUrl } from './openapi-server.js';

const why = (run: () => string) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(OperationError);
    return `${(error as OperationError).field}: ${(error as Error).message}`;
  }
  throw new Error('no error');
};

describe("an operation's server", () => {
  it('is the first server with an absolute http(s) URL, one listed before it unusable', () => {
    const servers = [
      { url: 'wss://api.example.com/v1' },
      { url: '/v1' },
      { url: 'https://{region}.example.com', variables: { region: { default: 'eu' } } },
      { url: 'https://b.example.com' },
    ];
    expect(serverUrl({ servers }, undefined, undefined)).toBe('https://eu.example.com');
    // Read against the document's URL, a relative one is usable, and first.
    expect(serverUrl({ servers }, undefined, 'https://docs.example.com/api.json')).toBe(
      'https://docs.example.com/v1',
    );
    expect(serverUrl({ servers }, 'https://eu.example.com/', undefined)).toBe(
      'https://eu.example.com',
    );
  });

  it('when none is usable, needs base_url, saying why of the first', () => {
    expect(
      why(() =>
        serverUrl(
          { servers: [{ url: 'ws://a.example.com' }, { url: 'ftp://b' }] },
          undefined,
          undefined,
        ),
      ),
    ).toBe(
      'base_url: is required: the spec\'s servers give no absolute http(s) URL ("ws://a.example.com")',
    );
    expect(why(() => serverUrl({ servers: [] }, undefined, undefined))).toBe(
      "base_url: is required: the spec's servers give no absolute http(s) URL",
    );
    expect(
      why(() =>
        serverUrl({ servers: [{ url: 'https://{tenant}.example.com' }] }, undefined, undefined),
      ),
    ).toBe(
      'base_url: is required: the spec\'s server URL has a variable {tenant} without a default ("https://{tenant}.example.com")',
    );
  });
});
