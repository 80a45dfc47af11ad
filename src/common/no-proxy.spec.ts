import { bypassesProxy, parseNoProxy } from './no-proxy.js';

describe('EGRESS_NO_PROXY rules', () => {
  const direct = (rules: string, host: string, port = 443) =>
    bypassesProxy(parseNoProxy(rules), host, port);

  it('matches a domain and every name under it, with or without its leading dot, in any case', () => {
    for (const rule of ['svc.cluster.local', '.svc.cluster.local', '*.svc.cluster.local'])
      expect(
        ['svc.cluster.local', 'vllm.ai.svc.cluster.local', 'VLLM.AI.SVC.CLUSTER.LOCAL.'].map((h) =>
          direct(rule, h),
        ),
      ).toEqual([true, true, true]);
    expect(direct('cluster.local', 'notcluster.local')).toBe(false);
    expect(direct('vllm', 'vllm')).toBe(true);
    expect(direct('vllm', 'vllm.example')).toBe(false);
  });

  it('matches addresses in a range, IPv4-mapped IPv6 read as IPv4, and never resolves a name', () => {
    const rules = '10.0.0.0/8, fd00::/8, 192.168.1.7';
    expect(
      ['10.3.4.5', '[fd12::1]', '192.168.1.7', '[::ffff:10.1.1.1]', '11.0.0.1', 'ten.example'].map(
        (h) => direct(rules, h),
      ),
    ).toEqual([true, true, true, true, false, false]);
  });

  it('keeps an entry with a port to that port', () => {
    expect(direct('vllm:8000, [::1]:9000, 10.0.0.1:80', 'vllm', 8000)).toBe(true);
    expect(direct('vllm:8000', 'vllm', 443)).toBe(false);
    expect(direct('[::1]:9000', '[::1]', 9000)).toBe(true);
    expect(direct('10.0.0.1:80', '10.0.0.1', 443)).toBe(false);
  });

  it('sends every server straight with *, none with nothing, spaces and commas alike', () => {
    expect(direct('*', 'api.openai.com')).toBe(true);
    expect(direct('', 'localhost')).toBe(false);
    expect(parseNoProxy(' a.example ,b.example  c.example,')).toHaveLength(3);
  });
});
