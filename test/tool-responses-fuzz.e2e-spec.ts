import fc from 'fast-check';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { chaosOptions } from './support/chaos-checks.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { answersOn, turnWithCalls, useLoopback } from './support/calls-answered.js';
import { ok, RawService, replies, type Reply } from './support/raw-http.js';

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
          fc.array(fc.tuple(fc.constantFrom('lookup', 'save'), replies()), {
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
  const answer = (encoding: string, body: Buffer): Reply => {
    const reply = ok('application/json', body);
    reply.headers.push(['Content-Encoding', encoding]);
    return reply;
  };
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
