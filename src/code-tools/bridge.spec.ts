import {
  answerMaxBytes,
  bridgeAnswer,
  JobCalls,
  MAX_CALLS_IN_FLIGHT,
  type BridgeHandler,
} from './bridge.js';

const MAX = 4 * 1024 * 1024;
const answered = (answer: Record<string, unknown>) => Promise.resolve(answer);

const request = JSON.stringify({
  kind: 'tool',
  payload: { name: 'weather', args: { city: 'Oslo' } },
});

describe('bridgeAnswer (what Python reads back from a call into the engine)', () => {
  it("gives the handler's answer, and hands it the request as sent", async () => {
    const seen: unknown[] = [];
    const handler: BridgeHandler = (req) => (seen.push(req), answered({ text: 'sunny', ok: true }));
    expect(JSON.parse(await bridgeAnswer(handler, request, MAX))).toEqual({
      text: 'sunny',
      ok: true,
    });
    expect(seen).toEqual([{ kind: 'tool', payload: { name: 'weather', args: { city: 'Oslo' } } }]);
  });

  it('turns a handler that throws into the failure text the code reads, not a crash', async () => {
    const handler: BridgeHandler = () => Promise.reject(new Error('socket hang up'));
    expect(JSON.parse(await bridgeAnswer(handler, request, MAX))).toEqual({
      error: 'socket hang up',
      text: 'Error: tool request failed: socket hang up',
    });
  });

  it('says calls are not available where the job has no handler (analysis, callbacks)', async () => {
    expect(JSON.parse(await bridgeAnswer(undefined, request, MAX))).toEqual({
      error: 'calls into the engine are not available here',
      text: 'Error: tool request failed: not available',
    });
  });

  it('answers a request that is not JSON with why', async () => {
    const answer = JSON.parse(await bridgeAnswer(() => answered({ ok: true }), '{"kind":', MAX));
    expect(answer.text).toMatch(/^Error: tool request failed: .*JSON/);
  });

  it('keeps an answer up to its limit and refuses a larger one with a clear error', async () => {
    // {"text":"…"} is 11 bytes around the text.
    const sized =
      (bytes: number): BridgeHandler =>
      () =>
        answered({ text: 'x'.repeat(bytes - 11) });
    const kept = await bridgeAnswer(sized(1000), request, 1000);
    expect(Buffer.byteLength(kept)).toBe(1000);
    expect(JSON.parse(await bridgeAnswer(sized(1001), request, 1000))).toEqual({
      error: 'the answer is larger than 1000 bytes',
      text: 'Error: tool request failed: the answer is larger than 1000 bytes',
    });
  });

  it('answers, never rejects, when the answer cannot be made JSON', async () => {
    const answer = JSON.parse(await bridgeAnswer(() => answered({ n: 1n }), request, MAX));
    expect(answer.text).toMatch(
      /^Error: tool request failed: the answer cannot be handed to the code: .*BigInt/,
    );
  });

  it('fits a response of LLM_TOOL_MAX_RESPONSE_BYTES however its bytes are escaped', async () => {
    const responseBytes = 2 * 1024 * 1024;
    // The worst body: control characters, 6 bytes each in JSON.
    const worst: BridgeHandler = () =>
      answered({
        status_code: 200,
        text: '\u0001'.repeat(responseBytes),
        headers: { 'content-type': 'text/plain' },
        url: 'https://api.example.com/export',
      });
    const answer = await bridgeAnswer(worst, request, answerMaxBytes(responseBytes));
    expect(JSON.parse(answer).text).toHaveLength(responseBytes);
    expect(answerMaxBytes(10)).toBe(4 * 1024 * 1024);
  });
});

describe("JobCalls (one job's calls into the engine)", () => {
  const frames = () => {
    const sent: string[] = [];
    return { sent, write: (frame: string) => void sent.push(frame) };
  };

  it('answers each request with its number, and refuses one past the most out at once', async () => {
    const { sent, write } = frames();
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const calls = new JobCalls(() => held.then(() => ({ text: 'ok' })), MAX, write);
    const answers = Array.from({ length: MAX_CALLS_IN_FLIGHT + 1 }, (_, i) =>
      calls.answer(request, i + 1),
    );
    // The one past the limit is answered at once, with why.
    await Promise.resolve();
    expect(sent).toEqual([
      `${MAX_CALLS_IN_FLIGHT + 1}\n${JSON.stringify({
        error: `more than ${MAX_CALLS_IN_FLIGHT} requests at once`,
        text: `Error: tool request failed: more than ${MAX_CALLS_IN_FLIGHT} requests at once`,
      })}`,
    ]);
    release();
    await Promise.all(answers);
    expect(sent.slice(1)).toEqual(
      Array.from({ length: MAX_CALLS_IN_FLIGHT }, (_, i) => `${i + 1}\n{"text":"ok"}`),
    );
    // A number that is not one (only code breaking out of the runtime sends it) is answered as 0.
    await calls.answer(request, 'x');
    expect(sent.at(-1)).toBe('0\n{"text":"ok"}');
  });

  it('wakes the loop once after the wait it asked for last, at once when interrupted, never after its job', async () => {
    const { sent, write } = frames();
    const calls = new JobCalls(undefined, MAX, write);
    calls.wake(1, 10_000);
    calls.wake(2, 10);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent).toEqual(['2\n']);
    calls.interrupt();
    expect(sent).toEqual(['2\n', '0\n']);
    calls.wake(3, 10);
    calls.end();
    calls.interrupt();
    await calls.answer(request, 4);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(sent).toEqual(['2\n', '0\n']);
  });
});
