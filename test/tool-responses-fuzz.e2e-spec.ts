import fc from 'fast-check';
import { createServer, type Server, type Socket } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { chaosOptions } from './support/chaos-checks.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { answersOn, turnWithCalls, useLoopback } from './support/calls-answered.js';

/** What a service writes back, byte for byte, right or wrong. */
interface Reply {
  status: string;
  headers: [string, string][];
  body: Buffer;
  /** How the body's length is told: right, wrong either way, chunked, or by closing. */
  length: 'right' | 'short' | 'long' | 'chunked' | 'close';
  /** The connection is cut after this many bytes of the body (none: written whole). */
  cutAt?: number;
}

const bodies = fc.oneof(
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

const reply: fc.Arbitrary<Reply> = fc
  .record({
    status: fc.oneof(
      { weight: 6, arbitrary: fc.constantFrom('200 OK', '201 Created', '204 No Content') },
      fc.constantFrom('301 Moved', '304 Not Modified', '400 Bad', '404 Not Found', '429 Slow'),
      fc.constantFrom('500 Oops', '503 Busy', '999 What', 'OK', ''),
    ),
    type: fc.constantFrom(
      'application/json',
      'application/json; charset=utf-8',
      'text/html; charset=iso-8859-1',
      'text/plain; charset=nonsense',
      'application/octet-stream',
      'image/png',
      'application/problem+json',
      '',
    ),
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

/** A service that answers each request with the next reply queued (a plain JSON one when none). */
class RawService {
  readonly replies: Reply[] = [];
  requests = 0;
  readonly server: Server = createServer((socket) => {
    socket.on('error', () => undefined);
    let seen = '';
    socket.on('data', (data: Buffer) => {
      seen += data.toString('latin1');
      if (!seen.includes('\r\n\r\n')) return;
      seen = '';
      this.requests++;
      write(
        socket,
        this.replies.shift() ?? {
          status: '200 OK',
          headers: [['Content-Type', 'application/json']],
          body: Buffer.from('{"ok":true}'),
          length: 'right',
        },
      );
    });
  });
}

/**
 * Random answers of an HTTP tool's service, byte for byte (statuses, types, encodings right or
 * wrong, lengths that lie, connections cut, bodies of any bytes or large): each call gets one
 * `tool_result` and the model one text, the turn ends with its answer, and the next is answered.
 */
describe("random answers of HTTP tools' services", () => {
  const service = new RawService();
  const base = useLoopback(service.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_FAILURES: '0',
    LLM_TOOL_MAX_RESPONSE_BYTES: '65536',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        name: 'lookup',
        description: 'Looks up',
        url: `${base()}/orders/{id}`,
        method: 'GET',
        timeout_secs: 1,
      },
      {
        name: 'save',
        description: 'Saves',
        url: `${base()}/orders`,
        method: 'POST',
        timeout_secs: 1,
      },
    ]),
  }));

  it('end each call with one result the model reads, and the turn with its answer', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const oks = new Set<boolean>();
    let runs = 0;
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.tuple(fc.constantFrom('lookup', 'save'), reply), {
            minLength: 1,
            maxLength: 3,
          }),
          async (calls) => {
            rig.llm.reset();
            service.replies.splice(0, Infinity, ...calls.map(([, r]) => r));
            const ids = calls.map((_, i) => `call_${++runs}_${i}`);
            rig.llm.enqueue(
              sseStructuredCalls(
                calls.map(([name], i) => ({
                  id: ids[i]!,
                  name,
                  arguments: { id: '42', note: 'x' },
                })),
              ),
              sseText(['Done.']),
            );
            for (const { result, read } of await turnWithCalls(rig.llm, ws, ids)) {
              oks.add(result.ok as boolean);
              // Within the bound the model is given (and its truncation note).
              expect(read.length).toBeLessThan(70_000);
            }
          },
        ),
        chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect([...oks].sort()).toEqual([false, true]);
  }, 180_000);
});

describe('an HTTP tool whose service compresses its answers', () => {
  const service = new RawService();
  const base = useLoopback(service.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { name: 'lookup', url: `${base()}/orders/{id}`, method: 'GET' },
    ]),
  }));
  const answer = (encoding: string, body: Buffer): Reply => ({
    status: '200 OK',
    headers: [
      ['Content-Type', 'application/json'],
      ['Content-Encoding', encoding],
    ],
    body,
    length: 'right',
  });
  const json = Buffer.from('{"order":42,"status":"shipped"}');

  it('is read decoded, and a body that is not what its Content-Encoding says is said so', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      for (const [encoding, encode] of [
        ['gzip', gzipSync],
        ['br', brotliCompressSync],
        ['deflate', deflateSync],
      ] as const) {
        service.replies.push(answer(encoding, encode(json)));
        expect((await callOnce(rig, ws, 'lookup', { id: '42' })).read).toBe(json.toString());
      }
      for (const encoding of ['gzip', 'br']) {
        // Not retried: a GET's answer that came whole is the service's, however wrong.
        service.replies.push(answer(encoding, json));
        const { read, result } = await callOnce(rig, ws, 'lookup', { id: '42' });
        expect(result.ok).toBe(false);
        expect(read).toMatch(
          /^Error: tool request failed: the response's body is not what its Content-Encoding says \(.+\)$/,
        );
      }
    } finally {
      ws.close();
    }
  });
});
