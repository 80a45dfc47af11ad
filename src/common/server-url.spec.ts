import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { egressFetch } from './egress.js';
import { basicOf, credentialsAsHeader, endpointOf, shownUrl } from './server-url.js';

describe('endpointOf', () => {
  it("puts the endpoint's path after the base's, before its query", () => {
    expect(endpointOf('http://vllm:8000/v1', '/models')).toBe('http://vllm:8000/v1/models');
    expect(endpointOf('http://vllm:8000/v1/', '/models')).toBe('http://vllm:8000/v1/models');
    expect(
      endpointOf('https://gw.corp/openai/v1?api-version=2024-10-21&x=1', '/chat/completions'),
    ).toBe('https://gw.corp/openai/v1/chat/completions?api-version=2024-10-21&x=1');
    expect(endpointOf('https://gw.corp/v1/?key=k', '/audio/speech')).toBe(
      'https://gw.corp/v1/audio/speech?key=k',
    );
  });
});

describe('credentials in a URL', () => {
  it('are Basic credentials, percent-escapes decoded', () => {
    expect(basicOf(new URL('https://user:pa%40ss@llm.corp/v1'))).toBe(
      `Basic ${btoa('user:pa@ss')}`,
    );
    expect(basicOf(new URL('https://llm.corp/v1'))).toBeUndefined();
  });

  it('are never shown: the URL is named without them, as it was written otherwise', () => {
    expect(shownUrl('https://user:s3cret@llm.corp:8443/v1')).toBe('https://llm.corp:8443/v1');
    expect(shownUrl('https://user:s3cret@llm.corp/')).toBe('https://llm.corp/');
    expect(shownUrl('http://vllm:8000/v1')).toBe('http://vllm:8000/v1');
    expect(shownUrl('not a url')).toBe('not a url');
  });

  it('become the Authorization header unless the request has one (an API key wins)', () => {
    const url = new URL('http://user:pw@h/x');
    const moved = credentialsAsHeader(url, { method: 'POST' });
    expect(moved.url.href).toBe('http://h/x');
    expect(new Headers(moved.init?.headers).get('authorization')).toBe(`Basic ${btoa('user:pw')}`);
    const keyed = credentialsAsHeader(url, { headers: { Authorization: 'Bearer k' } });
    expect(new Headers(keyed.init?.headers).get('authorization')).toBe('Bearer k');
    const none = new URL('http://h/x');
    expect(credentialsAsHeader(none, undefined)).toEqual({ url: none, init: undefined });
  });

  it('reach the server by egressFetch, which fetch alone refuses, quoting the password', async () => {
    const server = createServer((req, res) => res.end(`${req.headers.authorization} ${req.url}`));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://user:pa%40ss@127.0.0.1:${(server.address() as AddressInfo).port}/v1/models`;
    try {
      await expect(fetch(url)).rejects.toThrow('pa%40ss');
      const reply = await egressFetch(url);
      expect(await reply.text()).toBe(`Basic ${btoa('user:pa@ss')} /v1/models`);
    } finally {
      server.close();
    }
  });
});
