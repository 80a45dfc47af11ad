import fc from 'fast-check';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  action,
  answer,
  CHAOS_TOOLS,
  CLIENT_TOOL,
  STT_MARKERS,
  type Action,
  type Answer,
} from './support/chaos.js';
import { scriptOf } from './support/chaos-scripts.js';
import { answerChaosTool, chaosMcpServer, toolSet } from './support/chaos-rig.js';
import { until } from './support/waiting.js';
import { chaosOptions, historyProblems, turnEnds } from './support/chaos-checks.js';
import { FOUND } from './support/chaos-found.js';
import { checkLink, due, ends, lastMessages, linkOf, type Link } from './support/chaos-links.js';
import { sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { WsClient, type Msg } from './support/ws-client.js';
import { SUMMARY_INSTRUCTIONS } from '../src/orchestrator/history-summary.js';
import type { Script } from './support/fake-llm.js';

/** A request for a summary of the turns the history dropped (LLM_HISTORY_SUMMARY). */
const summarising = (body: Record<string, any>) =>
  body.stream === false && body.messages[0]?.content === SUMMARY_INSTRUCTIONS;

/** The summary's answer: one made of what it was asked, or (one time in three) a failure. */
function summary(body: Record<string, any>): Script | undefined {
  if (!summarising(body)) return undefined;
  const asked = body.messages[1].content as string;
  if (asked.length % 3 === 0) return { kind: 'status', status: 400, body: '{"error":{}}' };
  const content = `The user spoke ${asked.split('\nUser: ').length - 1} more times.`;
  const message = { role: 'assistant', content };
  return { kind: 'json', body: { choices: [{ index: 0, message, finish_reason: 'stop' }] } };
}

/**
 * Random conversations through /ws (README, "Development"): the LLM answers with text, calls in
 * every dialect, errors, cut streams and empty rounds; the client sends turns, interrupts, pings,
 * bad frames, settings, audio and utterances, answers approvals, turns speech on and off and
 * resumes its session, while an admin replaces the tool set, at random moments. Whatever the
 * interleaving, every turn ends once with its whole text, no call goes unanswered, no request the
 * LLM gets would be refused, nothing is left running, and the session still answers.
 */
describe.each(['memory', 'redis'])(
  'the turn loop under random interleavings (%s session store)',
  (store) => {
    // With Redis, sessions are saved after every turn and resumed through the store's owner checks.
    let redis: RedisRun | undefined;
    const mcp = chaosMcpServer();
    let mcpUrl = '';
    beforeAll(async () => {
      if (store === 'redis') redis = await startRedis();
      mcpUrl = await mcp.start();
    });
    afterAll(async () => {
      await redis?.stop();
      await mcp.stop();
    });
    let toolRequestsOpen = 0;
    const rig = useEngineRig(
      (base) => ({
        LLM_MODEL: 'qwen3-coder',
        LLM_TOOLS_FILE: writeToolsFile(toolSet(base, mcpUrl, true)),
        CODE_TOOLS_WORKERS: '1',
        LLM_TOOL_MAX_ITERATIONS: '2',
        // Every turn here is one an action started: a call that acts, let finish when its turn
        // is cut, would tell its result in a turn of its own at a moment no action decides
        // (that path: test/interrupted-calls.e2e-spec.ts).
        LLM_TOOL_INTERRUPTED_CALLS: 'abort',
        LLM_RETRIES: '1',
        LLM_RETRY_BACKOFF_MS: '5',
        TTS_PROVIDER: 'espeak',
        SESSION_STORE_URL: redis?.url ?? '',
        STT_BASE_URL: `${base}/v1`,
        TOOL_CONFIRM_TIMEOUT_SECS: '1',
        TOOL_SECRET_CHAOS: 'chaos-secret',
        // Histories bounded and summarised at random moments of the conversation.
        LLM_MAX_HISTORY_MESSAGES: '4',
        LLM_HISTORY_SUMMARY: 'true',
      }),
      (req, res) => {
        toolRequestsOpen++;
        res.on('close', () => toolRequestsOpen--);
        answerChaosTool(req, res);
      },
    );
    let callIds = 0;
    const ids = () => `call_chaos_${++callIds}`;

    async function reconnect(old: Link, takeover: boolean): Promise<Link> {
      const token = old.ws.messages.find((m) => m.type === 'session')!.resume_token as string;
      if (!takeover) {
        old.ws.close();
        await old.ws.closed;
      }
      const ws = await WsClient.connect(`${rig.engine.wsUrl}?resume=${token}`);
      expect(ws.messages[0]).toMatchObject({ type: 'session', resumed: true });
      if (takeover) expect(await old.ws.closed).toBe(4001);
      return linkOf(ws);
    }

    /** An admin replaces the tool set (turns in flight keep theirs). */
    async function install(all: boolean): Promise<void> {
      const reply = await postTools(rig.engine.httpUrl, toolSet(rig.toolsUrl, mcpUrl, all));
      expect(reply.status).toBe(200);
    }

    /**
     * The oldest question of `type` (an approval, a call of the client's tool) not answered yet
     * on `l`, waiting a moment for one to come; marked answered.
     */
    async function oldestUnanswered(l: Link, type: string): Promise<Msg | undefined> {
      const pending = () => l.ws.messages.find((m) => m.type === type && !l.answered.has(m.id));
      for (let waited = 0; !pending() && waited < 60; waited += 5) await sleep(5);
      const asked = pending();
      if (asked) l.answered.add(asked.id as string);
      return asked;
    }

    /** Does one client action on `l`; returns the link to go on with (a new one after a reconnect). */
    async function act(l: Link, a: Action): Promise<Link> {
      switch (a.kind) {
        case 'text':
          l.ws.send({ type: 'user_text', text: a.text });
          l.turns++;
          break;
        case 'interrupt':
          l.ws.send({ type: 'interrupt' });
          break;
        case 'ping':
          l.ws.send({ type: 'ping', id: `p${++l.pings}` });
          break;
        case 'garbage':
          l.ws.send(a.frame);
          l.garbage++;
          break;
        case 'update':
          l.ws.send({ type: 'session.update', instructions: a.instructions });
          break;
        case 'wait':
          await sleep(a.ms);
          break;
        case 'settle':
          await until(() => ends(l) === due(l), `${due(l)} turns to end`);
          break;
        case 'install':
          await install(a.all);
          break;
        case 'voice':
          l.ws.send({ type: 'session.update', modality: a.on ? 'voice' : 'text' });
          break;
        case 'audio':
          l.ws.socket.send(Buffer.alloc(640));
          break;
        case 'answer': {
          const asked = await oldestUnanswered(l, 'tool_confirm');
          if (asked) l.ws.send({ type: 'tool_confirm', id: asked.id, approved: a.approved });
          break;
        }
        case 'declare':
          l.ws.send({ type: 'session.update', client_tools: a.on ? [CLIENT_TOOL] : null });
          break;
        case 'run': {
          const asked = await oldestUnanswered(l, 'client_tool_call');
          const reply = a.ok ? { result: { shown: asked?.arguments.city } } : { error: 'closed' };
          if (asked) l.ws.send({ type: 'client_tool_result', id: asked.id, ...reply });
          break;
        }
        case 'utterance':
          l.ws.socket.send(Buffer.alloc(640, STT_MARKERS[a.stt]));
          l.ws.send({ type: 'audio_end' });
          break;
        case 'say':
          l.ws.send({ type: 'say', text: 'Calls are recorded.', interruptible: !a.firm });
          l.turns++;
          break;
        case 'reconnect':
          return reconnect(l, a.takeover);
      }
      return l;
    }

    async function converse(answers: Answer[], actions: Action[], voice: boolean): Promise<void> {
      rig.llm.reset();
      rig.llm.intercept = summary;
      await install(true);
      rig.llm.enqueue(...answers.map((a) => scriptOf(a, ids)));
      rig.llm.fallback = () => sseText(['Fine.']);
      const left: Link[] = [];
      let l = linkOf(await WsClient.connect(rig.engine.wsUrl));
      try {
        if (voice) await act(l, { kind: 'voice', on: true });
        for (const a of actions) {
          const next = await act(l, a);
          if (next === l) continue;
          left.push(l);
          l = next;
        }
        // The session still answers, and what is left of the conversation is cancelled first.
        rig.llm.clearQueue();
        rig.llm.fallback = () => sseText(['All', ' good.']);
        l.ws.send({ type: 'user_text', text: 'final' });
        l.turns++;
        await until(() => ends(l) === due(l), 'the last turn to end', 10_000);
        expect(turnEnds(l.ws.messages).at(-1)).toEqual({
          type: 'assistant_end',
          text: 'All good.',
        });
        // A voice session's last answer is spoken to its end.
        const settings = l.ws.messages.findLast((m) => /^session(\.updated)?$/.test(m.type))!;
        if (settings.settings.modality === 'voice')
          await until(
            () => l.ws.messages.at(-1)!.type === 'audio_end',
            () => `the last audio; the last messages: ${lastMessages(l.ws.messages)}`,
            10_000,
          );
        await until(() => rig.llm.open === 0, 'the LLM requests to close', 2000);
        await until(() => toolRequestsOpen === 0, 'the tool requests to close', 2000);
        await until(() => mcp.running === 0, 'the MCP calls to end', 2000);
        await sleep(20);

        for (const old of left) checkLink(old, true);
        checkLink(l, false);
        // Each request offers one whole tool set, whichever was installed when its turn began,
        // and the client's tool when it was declared.
        const sets = [true, false]
          .map((all) =>
            CHAOS_TOOLS.filter((n) => n !== 'not_a_tool' && (all || !n.includes('slow'))),
          )
          .flatMap((set) => [set, [...set, CLIENT_TOOL.name]]);
        const asked = rig.llm.requests.filter((r) => !summarising(r.body));
        for (const { body } of rig.llm.requests.filter((r) => summarising(r.body)))
          expect(body.messages[1].content).toMatch(
            /^Summary so far:\n[^]+\n\nMessages to add to it:\n(User|Assistant): /,
          );
        for (const [i, { body }] of asked.entries()) {
          expect({ request: i, problems: historyProblems(body) }).toEqual({
            request: i,
            problems: [],
          });
          expect(sets).toContainEqual(body.tools.map((t: any) => t.function.name as string));
        }
        // The last turn's request goes out once the turn before it is cancelled. A request of that
        // turn sent just before may still reach the server after it (another connection), but
        // given up: none is answered after the last turn's (whose user message begins with a
        // question left without an answer, if there was one).
        const last = asked.findLastIndex(
          ({ body }) =>
            body.messages.at(-1).role === 'user' &&
            /(^|\n\n)final$/.test(body.messages.at(-1).content),
        );
        expect(last).toBeGreaterThanOrEqual(0);
        expect(asked.slice(last + 1).map((r) => r.wasAborted)).not.toContain(false);
      } finally {
        for (const c of [...left, l]) c.ws.close();
        await Promise.all([...left, l].map((c) => c.ws.closed));
      }
    }

    // CHAOS_RUNS=2000 for a longer hunt; the suite's default keeps to a few seconds.
    const runs = Number(process.env.CHAOS_RUNS ?? 40);
    it(
      'keeps every turn whole and every request valid',
      async () => {
        const health = (await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any;
        expect(health.session_store).toEqual({ kind: store, connected: true });
        await fc.assert(
          fc.asyncProperty(
            fc.array(answer, { maxLength: 8 }),
            fc.array(action, { minLength: 1, maxLength: 12 }),
            fc.boolean(),
            converse,
          ),
          { ...chaosOptions(runs), examples: FOUND },
        );
      },
      runs * 3000,
    );
  },
);
