import type { ServerResponse } from 'node:http';
import fc from 'fast-check';
import { chaosOptions, historyProblems, turnProblems } from './support/chaos-checks.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

type Action =
  | { kind: 'book' }
  | { kind: 'talk' }
  | { kind: 'cut' }
  | { kind: 'release' }
  | { kind: 'reconnect' }
  | { kind: 'wait'; ms: number };

const action: fc.Arbitrary<Action> = fc.oneof(
  fc.constant({ kind: 'book' as const }),
  fc.constant({ kind: 'talk' as const }),
  fc.constant({ kind: 'cut' as const }),
  fc.constant({ kind: 'release' as const }),
  fc.constant({ kind: 'reconnect' as const }),
  fc.integer({ min: 0, max: 30 }).map((ms) => ({ kind: 'wait' as const, ms })),
);

/**
 * Calls that act, let finish when their turn is cut (LLM_TOOL_INTERRUPTED_CALLS=finish), under
 * random interleavings of bookings, other turns, interrupts, results and reconnections: each
 * booking reaches its service once, and its result reaches the model once; every request is one a
 * server takes, every turn ends once with its text.
 */
describe('calls let finish under random interleavings', () => {
  /** Booking requests the tool server holds, by booking number. */
  const held = new Map<string, ServerResponse>();
  const received: string[] = [];
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_MAX_HISTORY_MESSAGES: '500',
      SESSION_RESUME_SECS: '5',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'book_table',
          description: 'Books a table',
          parameters: { type: 'object', properties: { ref: { type: 'string' } } },
          url: `${base}/book/{ref}`,
          method: 'POST',
          timeout_secs: 30,
        },
      ]),
    }),
    (req, res) => {
      const ref = req.path.slice('/book/'.length);
      received.push(ref);
      held.set(ref, res);
    },
  );

  async function converse(actions: Action[]): Promise<void> {
    held.clear();
    received.length = 0;
    rig.llm.reset();
    let next = 0;
    // `book N` is answered with a call booking N; anything else with a line of text.
    rig.llm.fallback = (body) => {
      const last = body.messages.at(-1);
      const asked = last.role === 'user' && /(?:^|\n\n)book (\d+)$/.exec(last.content);
      return asked
        ? sseStructuredCalls([
            { id: `call_${asked[1]}`, name: 'book_table', arguments: { ref: asked[1] } },
          ])
        : sseText(['All ', 'right.']);
    };
    const links: WsClient[] = [await WsClient.connect(rig.engine.wsUrl)];
    const ws = () => links.at(-1)!;
    const release = (ref: string) => {
      held.get(ref)?.end(`booked ${ref}`);
      held.delete(ref);
    };
    try {
      for (const a of actions) {
        if (a.kind === 'book') ws().send({ type: 'user_text', text: `book ${next++}` });
        if (a.kind === 'talk') ws().send({ type: 'user_text', text: 'hello' });
        if (a.kind === 'cut') ws().send({ type: 'interrupt' });
        if (a.kind === 'release') for (const ref of [...held.keys()].slice(0, 1)) release(ref);
        if (a.kind === 'wait') await new Promise((resolve) => setTimeout(resolve, a.ms));
        if (a.kind === 'reconnect') {
          const token = ws().messages.find((m) => m.type === 'session')!.resume_token as string;
          ws().close();
          await ws().closed;
          links.push(
            await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`),
          );
        }
      }
      // A last turn, then everything held is answered: each result the service gave reaches
      // the model (its turn's request, or the one that tells it).
      const from = ws().messages.length;
      ws().send({ type: 'user_text', text: 'final' });
      await ws().waitFor((m) => m.type === 'assistant_end' && !m.interrupted, from, 10_000);
      const seen = (ref: string) =>
        rig.llm.requests.some((r) => JSON.stringify(r.body.messages).includes(`booked ${ref}`));
      const deadline = Date.now() + 10_000;
      while (held.size > 0 || !received.every(seen) || rig.llm.open > 0) {
        if (Date.now() > deadline)
          throw new Error(`results never told: ${received.filter((r) => !seen(r)).join(', ')}`);
        for (const ref of [...held.keys()]) release(ref);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(new Set(received).size).toBe(received.length); // none booked twice
      const last = rig.llm.requests.at(-1)!.body.messages as { content: string | null }[];
      for (const ref of received)
        expect(last.filter((m) => m.content?.includes(`booked ${ref}`))).toHaveLength(1);
      for (const request of rig.llm.requests) expect(historyProblems(request.body)).toEqual([]);
      links.forEach((link, i) =>
        expect(turnProblems(link.messages, i < links.length - 1)).toEqual([]),
      );
    } finally {
      for (const link of links) link.close();
    }
  }

  const runs = Number(process.env.CHAOS_RUNS ?? 25);
  it('books each once, tells each result once, keeps every request valid', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 1, maxLength: 14 }), converse),
      chaosOptions(runs),
    );
  }, 120_000);
});
