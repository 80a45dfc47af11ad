import { bypassesProxy } from '../common/no-proxy.js';
import { EnvError, parseEnv } from './env.js';

describe('EGRESS_PROXY and EGRESS_NO_PROXY', () => {
  it('sends straight by default, loopback direct once a proxy is set', () => {
    expect(parseEnv({}).egress.proxy).toBe('');
    const { egress } = parseEnv({ EGRESS_PROXY: 'http://user:p%40ss@proxy.corp:3128' });
    expect(egress.proxy).toBe('http://user:p%40ss@proxy.corp:3128/');
    expect(
      ['localhost', '127.0.0.9', '[::1]'].map((h) => bypassesProxy(egress.noProxy, h, 80)),
    ).toEqual([true, true, true]);
    expect(bypassesProxy(egress.noProxy, 'api.openai.com', 443)).toBe(false);
  });

  it('stops start-up on a URL that is no HTTP proxy, naming the variable and never the password', () => {
    for (const value of [
      'socks5://u:hunter2@proxy:1080',
      'proxy.corp:3128',
      'http://u:hunter2@proxy:3128/path',
    ]) {
      let error: unknown;
      try {
        parseEnv({ EGRESS_PROXY: value });
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(EnvError);
      expect((error as Error).message).toMatch(/^EGRESS_PROXY is invalid: /);
      expect((error as Error).message).not.toContain('hunter2');
    }
    expect(() => parseEnv({ EGRESS_PROXY: 'socks5://proxy:1080' })).toThrow(
      /expected the proxy's http:\/\/ or https:\/\/ URL/,
    );
  });

  it('names the entry of EGRESS_NO_PROXY that is neither a name nor an address', () => {
    expect(() => parseEnv({ EGRESS_NO_PROXY: '.svc, 10.0.0.0/33' })).toThrow(
      new EnvError(
        'EGRESS_NO_PROXY is invalid: "10.0.0.0/33" is no CIDR range (e.g. 10.0.0.0/8, fd00::/8)',
      ),
    );
    expect(() => parseEnv({ EGRESS_NO_PROXY: 'http://vllm:8000' })).toThrow(
      /^EGRESS_NO_PROXY is invalid: "http:\/\/vllm:8000" is no host name, domain/,
    );
    expect(() => parseEnv({ EGRESS_NO_PROXY: 'vllm:99999' })).toThrow(
      'EGRESS_NO_PROXY is invalid: "vllm:99999": the port must be from 1 to 65535',
    );
  });
});
