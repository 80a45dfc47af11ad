/**
 * A service on loopback that answers HTTP byte for byte as it is told, right or wrong (statuses,
 * types, encodings, lengths that lie, connections cut), and random such answers: for the fuzz
 * suites of what the engine reads from others' servers (HTTP tools, speech servers).
 */
import fc from 'fast-check';
import { createServer, type Server } from 'node:http';
import type { Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

/** What a service writes back, byte for byte, right or wrong. */
export interface Reply {
  status: string;
  headers: [string, string][];
  body: Buffer;
  /** How the body's length is told: right, wrong either way, chunked, or by closing. */
  length: 'right' | 'short' | 'long' | 'chunked' | 'close';
  /** The connection is cut after this many bytes of the body (none: written whole). */
  cutAt?: number;
}

/** A reply of status 200, `type`, `body`, its length right. */
export const ok = (type: string, body: Buffer | string): Reply => ({
  status: '200 OK',
  headers: [['Content-Type', type]],
  body: Buffer.from(body),
  length: 'right',
});

/** Bodies any service may send: JSON, text of its own, bytes, a large one. */
export const anyBodies = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }).map((v) => Buffer.from(JSON.stringify(v))),
  fc
    .constantFrom(
      '{"name":"half \\ud800 a character"}',
      '<!doctype html><title>Orders</title><p>Order <b>42</b> shipped',
      '{"truncated": [1, 2',
      '',
      '\u0000\u0001 binary-ish',
    )
    .map((t) => Buffer.from(t)),
  fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b)),
  fc.nat({ max: 200_000 }).map((n) => Buffer.alloc(n, 'x')),
);

/** Content types any service may send, right or wrong. */
export const anyTypes = [
  'application/json',
  'application/json; charset=utf-8',
  'text/html; charset=iso-8859-1',
  'text/plain; charset=nonsense',
  'application/octet-stream',
  'image/png',
  'application/problem+json',
  '',
];

/** Random replies: mostly a success, of `types` and `bodies`, encoded right or not. */
export function replies(
  types: string[] = anyTypes,
  bodies: fc.Arbitrary<Buffer> = anyBodies,
): fc.Arbitrary<Reply> {
  return fc
    .record({
      status: fc.oneof(
        { weight: 6, arbitrary: fc.constantFrom('200 OK', '201 Created', '204 No Content') },
        fc.constantFrom('301 Moved', '304 Not Modified', '400 Bad', '404 Not Found', '429 Slow'),
        fc.constantFrom('500 Oops', '503 Busy', '999 What', 'OK', ''),
      ),
      type: fc.constantFrom(...types),
      encoding: fc.constantFrom('', '', 'gzip', 'br', 'deflate', 'bogus'),
      encodedRight: fc.boolean(),
      body: bodies,
      length: fc.constantFrom('right', 'right', 'short', 'long', 'chunked', 'close'),
      cutAt: fc.option(fc.nat({ max: 100 }), { freq: 6, nil: undefined }),
      extra: fc.array(
        fc.constantFrom<[string, string]>(
          ['Retry-After', '1'],
          ['Retry-After', 'soon'],
          ['Location', '/elsewhere'],
          ['Set-Cookie', 'a=b'],
          ['X-Strange', 'ü'],
        ),
        { maxLength: 2 },
      ),
    })
    .map(({ status, type, encoding, encodedRight, body, length, cutAt, extra }) => {
      const encoders: Record<string, (b: Buffer) => Buffer> = {
        gzip: gzipSync,
        br: brotliCompressSync,
        deflate: deflateSync,
      };
      const encode = encoders[encoding];
      const sent = encode && encodedRight ? encode(body) : body;
      const headers: [string, string][] = [
        ...(type ? [['Content-Type', type] as [string, string]] : []),
        ...(encoding ? [['Content-Encoding', encoding] as [string, string]] : []),
        ...extra,
      ];
      return { status, headers, body: sent, length, cutAt };
    });
}

/** Writes `r` on `socket` as HTTP/1.1, the length as it says. */
function write(socket: Socket, r: Reply): void {
  const head = [`HTTP/1.1 ${r.status}`, ...r.headers.map(([k, v]) => `${k}: ${v}`)];
  const told = {
    right: r.body.length,
    short: Math.floor(r.body.length / 2),
    long: r.body.length + 50,
  };
  if (r.length === 'chunked') head.push('Transfer-Encoding: chunked');
  else if (r.length !== 'close') head.push(`Content-Length: ${told[r.length]}`);
  head.push('Connection: close', '', '');
  let body = r.body;
  if (r.length === 'chunked')
    body = Buffer.concat([
      Buffer.from(`${body.length.toString(16)}\r\n`),
      body,
      Buffer.from('\r\n0\r\n\r\n'),
    ]);
  const all = Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), body]);
  socket.end(r.cutAt === undefined ? all : all.subarray(0, all.length - body.length + r.cutAt));
}

/**
 * A service that answers each request, once it is read whole (Node reads it), with the next reply
 * queued (else `usual`, by default a plain JSON one), written on the socket byte for byte. The
 * paths asked for are kept.
 */
export class RawService {
  readonly replies: Reply[] = [];
  readonly paths: string[] = [];
  usual: (path: string) => Reply = () => ok('application/json', '{"ok":true}');
  readonly server: Server = createServer((req) => {
    req.socket.on('error', () => undefined);
    req.resume();
    req.on('end', () => {
      const path = req.url ?? '';
      this.paths.push(path);
      write(req.socket, this.replies.shift() ?? this.usual(path));
    });
  });

  get requests(): number {
    return this.paths.length;
  }
}
