import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'node:http';
import {
  assertAllowedLiteral,
  BlockedAddressError,
  guardedLookup,
  isMetadataAddress,
  isPublicAddress,
  offMetadata,
} from './address-guard.js';

type Found = { error: Error | null; address: unknown; family?: number };

/** What a guarded lookup of `hostname` answers, with `options` as Node's connect passes them. */
const lookUp = (allowed: (a: string) => boolean, hostname: string, options: { all?: boolean }) =>
  new Promise<Found>((resolve) =>
    guardedLookup(allowed)(hostname, options, (error, address, family) =>
      resolve({ error, address, family }),
    ),
  );

describe('address guard', () => {
  it('tells cloud metadata addresses from private, loopback and public ones', () => {
    const metadata = ['169.254.169.254', 'fe80::1', '::ffff:169.254.169.254'];
    // AWS's IPv6 endpoint (unique-local) and Alibaba Cloud's (carrier-grade NAT), however written.
    metadata.push(
      'fd00:ec2::254',
      'FD00:EC2:0:0:0:0:0:254',
      '100.100.100.200',
      '::ffff:100.100.100.200',
    );
    for (const a of metadata) expect(isMetadataAddress(a)).toBe(true);
    const others = ['10.0.0.1', '127.0.0.1', '93.184.216.34', 'fd00:ec2::253', '100.100.100.201'];
    for (const a of [...others, 'not an address']) expect(isMetadataAddress(a)).toBe(false);
    expect(isPublicAddress('::ffff:10.0.0.1')).toBe(false);
  });

  it('refuses a literal address the policy forbids (bracketed IPv6 too); a name is left to the lookup', () => {
    expect(() => assertAllowedLiteral('169.254.169.254', isPublicAddress)).toThrow(
      BlockedAddressError,
    );
    expect(() => assertAllowedLiteral('[::1]', isPublicAddress)).toThrow(
      'refused: ::1 is an address this request may not reach (private, link-local or reserved)',
    );
    expect(() => assertAllowedLiteral('localhost', isPublicAddress)).not.toThrow();
    expect(() => assertAllowedLiteral('10.0.0.1', () => true)).not.toThrow();
  });

  it('checks every address a name resolves to, and hands back only those it checked', async () => {
    // One address, as Node asks without happy eyeballs.
    const one = await lookUp(() => true, 'localhost', {});
    expect(one.error).toBeNull();
    expect(['127.0.0.1', '::1']).toContain(one.address);
    expect([4, 6]).toContain(one.family);
    // All of them, as Node asks with autoSelectFamily: the same checked list.
    const all = await lookUp(() => true, 'localhost', { all: true });
    expect(all.error).toBeNull();
    expect(Array.isArray(all.address)).toBe(true);
    expect((all.address as { address: string }[]).map((a) => a.address)).toContain(one.address);
    // One forbidden address among them refuses the name, whichever way Node asks.
    for (const options of [{}, { all: true }]) {
      const refused = await lookUp(isPublicAddress, 'localhost', options);
      expect(refused.error).toBeInstanceOf(BlockedAddressError);
      expect(refused.error!.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1)/);
    }
  });

  it('refuses a name when any one of its addresses is forbidden (a DNS answer mixing public and private)', async () => {
    const answer =
      (addresses: { address: string; family: number }[]) =>
      (_host: string, _options: object, done: (e: null, a: typeof addresses) => void) =>
        done(null, addresses);
    const mixed = answer([
      { address: '93.184.216.34', family: 4 },
      { address: '10.0.0.7', family: 4 },
    ]);
    const refused = await new Promise<Error | null>((resolve) =>
      guardedLookup(isPublicAddress, mixed as never)('shop.example', {}, (error) => resolve(error)),
    );
    expect(refused?.message).toBe(
      'refused: shop.example resolves to 10.0.0.7, an address this request may not reach (private, link-local or reserved)',
    );
    const fine = answer([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    const all = await new Promise<unknown>((resolve) =>
      guardedLookup(isPublicAddress, fine as never)('shop.example', { all: true }, (_e, list) =>
        resolve(list),
      ),
    );
    expect(all).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
  });

  it('keeps a request of the engine off metadata addresses by its URL, by name and by redirect', async () => {
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      'http://[fd00:ec2::254]/latest/meta-data/',
      'http://100.100.100.200/latest/meta-data/',
    ])
      expect(() => offMetadata(url)).toThrow(BlockedAddressError);
    const options = offMetadata('http://127.0.0.1/x'); // private and loopback stay allowed
    expect(options.maxRedirects).toBe(3);
    expect(() =>
      options.beforeRedirect!({ hostname: '169.254.169.254' } as never, {} as never, {} as never),
    ).toThrow(BlockedAddressError);
    expect(() =>
      options.beforeRedirect!({ hostname: '10.1.2.3' } as never, {} as never, {} as never),
    ).not.toThrow();
    // Its lookup is the one Node's own requests use: a real request to a loopback server goes through.
    const server = createServer((_req, res) => res.end('ok'));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    try {
      const port = (server.address() as AddressInfo).port;
      const body = await new Promise<string>((resolve, reject) =>
        request({ host: 'localhost', port, family: 4, lookup: options.lookup as never }, (res) => {
          let text = '';
          res.on('data', (d: Buffer) => (text += d.toString()));
          res.on('end', () => resolve(text));
        })
          .on('error', reject)
          .end(),
      );
      expect(body).toBe('ok');
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
