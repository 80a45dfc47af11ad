import type { ServerResponse } from 'node:http';
import { Engine } from './support/engine.js';
import { sseStructuredCalls, sseText, useFakeLlm } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { startRedis, type RedisRun } from './support/redis-server.js';
import { firstHeld, reportTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';
import { Lifecycle } from '../src/lifecycle/lifecycle.service.js';
import { RedisSessionStore } from '../src/sessions/redis-session-store.js';

const RESULT_MESSAGE =
  '[Not said by the user: the result of make_report (call call_r), which ran in the background. Tell the user what it means for them.]\nreport 7: 12 pages';

/**
 * Two replicas sharing a Redis: a background call runs on the replica whose connection made it;
 * the client's connection drops and it resumes the session on the other replica, which gets the
 * call's result and tells it.
 */
describe('a background call whose session is resumed on another replica', () => {
  const { llm, url } = useFakeLlm();
  const tools = new RecordingServer();
  /** The report requests the tool server holds, answered by the test. */
  const held: { res: ServerResponse; closed: boolean }[] = [];
  let redis: RedisRun;
  let a: Engine;
  let b: Engine;
  beforeAll(async () => {
    const base = await tools.start();
    tools.respond((_req, res) => {
      const entry = { res, closed: false };
      res.once('close', () => (entry.closed = true));
      held.push(entry);
    });
    redis = await startRedis();
    const env = {
      LLM_BASE_URL: url(),
      LLM_MODEL: 'm',
      SESSION_STORE_URL: redis.url,
      // Shorter than the test waits after the resume: the call must outlive its first process's window.
      // Short, for the window to pass in a test; long enough for a replica to stop within it
      // (the last test) on a loaded machine.
      SESSION_RESUME_SECS: '4',
      LLM_TOOLS_FILE: writeToolsFile([reportTool(base)]),
    };
    [a, b] = [await Engine.start(env), await Engine.start(env)];
  });
  afterAll(async () => {
    await a.stop();
    await b.stop();
    await redis.stop();
    await tools.stop();
  });
  beforeEach(() => (held.length = 0));

  const report = { id: 'call_r', name: 'make_report', arguments: { id: '7' } };

  /** A session on A that started the report, then dropped (unless `stay`); its resume token. */
  async function startedOnA(stay?: (ws: WsClient) => void): Promise<string> {
    llm.enqueue(
      sseStructuredCalls([report]),
      sseText(['Started.']),
      sseText(['Your report ', 'is ready.']),
    );
    const ws = await WsClient.connect(a.wsUrl);
    await ws.turn('make report 7');
    await firstHeld(held);
    if (stay) stay(ws);
    else {
      ws.close();
      await ws.closed;
    }
    return ws.messages.find((m) => m.type === 'session')!.resume_token as string;
  }

  const resumeOnB = async (token: string) => {
    const ws = await WsClient.connect(`${b.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(ws.messages[0]).toMatchObject({ type: 'session', resumed: true });
    return ws;
  };

  const expectTold = async (ws: WsClient) => {
    expect(
      await ws.waitFor((m) => m.type === 'tool_result' && m.background === 'done'),
    ).toMatchObject({ id: 'call_r', name: 'make_report', ok: true });
    const end = await ws.waitFor((m) => m.type === 'assistant_end');
    expect(end).toEqual({ type: 'assistant_end', text: 'Your report is ready.' });
    expect(llm.requests[2]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: RESULT_MESSAGE,
    });
    expect(llm.requests).toHaveLength(3);
  };

  it('gets a result that comes after the resume, past the first replica’s resume window', async () => {
    const token = await startedOnA();
    const ws = await resumeOnB(token);
    // A's window (4 s) passes: the call, whose session lives on, is not aborted.
    await new Promise((r) => setTimeout(r, 4500));
    const call = held[0]!;
    expect(call.closed).toBe(false);
    call.res.end('report 7: 12 pages');
    await expectTold(ws);
    ws.close();
  });

  it('closes a connection of the first replica still holding the session (4001), and gets its result', async () => {
    let old!: WsClient;
    const token = await startedOnA((ws) => (old = ws));
    // The client reconnects before A has seen its old connection die.
    const ws = await resumeOnB(token);
    expect(await old.closed).toBe(4001);
    held[0]!.res.end('report 7: 12 pages');
    await expectTold(ws);
    expect(old.messages.filter((m) => m.type === 'tool_result')).toHaveLength(1); // 'started' only
    ws.close();
  });

  it('leaves the connection that owns the session open on news of an older resume', async () => {
    const ws = await WsClient.connect(b.wsUrl);
    const id = ws.messages[0]!.session_id as string;
    // As if another process had resumed the session before this connection took it.
    const store = new RedisSessionStore(redis.url, () => undefined);
    await store.connect();
    try {
      await store.broadcast.publish(
        'agent-engine:background',
        JSON.stringify({ resumed: id, by: 'another-process' }),
      );
      await new Promise((r) => setTimeout(r, 300));
      llm.enqueue(sseText(['Still here.']));
      expect((await ws.turn('hello')).at(-1)).toEqual({
        type: 'assistant_end',
        text: 'Still here.',
      });
    } finally {
      await store.close();
      ws.close();
    }
  });

  it('gets a result that came while no connection had the session', async () => {
    const token = await startedOnA();
    held[0]!.res.end('report 7: 12 pages');
    // The result waits on A, whose connection is gone.
    await new Promise((r) => setTimeout(r, 300));
    expect(llm.requests).toHaveLength(2);
    const ws = await resumeOnB(token);
    await expectTold(ws);
    ws.close();
  });

  // Last: it stops replica A.
  it('lets a stopping replica finish a parked call, whose result the session gets on the other', async () => {
    const token = await startedOnA();
    let over = false;
    const drained = a.app
      .get(Lifecycle)
      .drain(10_000)
      .then(() => (over = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(over).toBe(false); // the stop waits for the call
    held[0]!.res.end('report 7: 12 pages');
    await drained;
    await a.stop();
    const ws = await resumeOnB(token);
    await expectTold(ws);
    ws.close();
  });
});
