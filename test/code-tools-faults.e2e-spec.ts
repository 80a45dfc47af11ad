import { sseRawArgumentsCall, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const REMEMBER = `def remember(key: str, value: str) -> str:
    """Keeps a value in the session state."""
    context.state[key] = value
    return "kept"
`;

const BROKEN_CALLBACK = `def before_model_callback(callback_context, llm_request) -> None:
    llm_request.config.hide_tool("remember")
    raise ValueError("the CRM is down")
`;

/** A tool that calls itself, inline, without end. */
const ECHO = `def echo(n: int = 0) -> int:
    """Calls itself."""
    return tools.echo({"n": n + 1})
`;

/** The conversation as the code sees it. */
const HISTORY = `def history() -> list:
    """The conversation so far."""
    return [[e.role, e.author, [p.text for p in e.parts]] for e in context.events]
`;

/** Keeps the names of the tools the request would offer, as the callback sees them. */
const RECORDING_CALLBACK = `def before_model_callback(callback_context, llm_request) -> None:
    callback_context.state["offered"] = sorted(llm_request.config.tool_names)
`;

/** Code tools when what comes to them, or what runs before the model, goes wrong. */
describe('code tools: faults', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'python', code: REMEMBER },
      { type: 'callback', code: BROKEN_CALLBACK },
      { type: 'python', code: ECHO },
      {
        type: 'python',
        code: 'def channel() -> dict:\n    """Where the session is."""\n    return _session',
      },
      { type: 'python', code: HISTORY },
      { type: 'callback', code: RECORDING_CALLBACK },
      {
        type: 'python',
        code: 'def hang_up() -> str:\n    """Ends the call."""\n    return context.state["offered"]',
        modalities: ['voice'],
      },
      {
        type: 'python',
        code: 'def offered() -> list:\n    """What the callback saw."""\n    return context.state["offered"]',
      },
    ]),
    CODE_TOOLS_WORKERS: '1',
    SESSION_TIMEZONE: 'Europe/Rome',
    SPEECH_LANGUAGE: 'de',
  }));
  beforeEach(() => rig.llm.reset());

  it('a before_model_callback that raises hides no tool, and the turn goes on', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['Hello.']));
    const msgs = await ws.turn('hi', 15_000);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Hello.' });
    // It had hidden `remember` before it raised: that is not applied either.
    expect(rig.llm.offered(0)).toEqual(['remember', 'echo', 'channel', 'history', 'offered']);
    ws.close();
  });

  it('tells the model when a code tool is called with arguments that are not a JSON object', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(sseRawArgumentsCall('remember', 'key=city value=Oslo'), sseText(['Sorry.']));
    const msgs = await ws.turn('remember Oslo', 15_000);
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({
      name: 'remember',
      ok: false,
    });
    const toolMessage = rig.llm.requests[1]!.body.messages.at(-1);
    expect(toolMessage).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_raw',
      content: 'Error: TypeError: arguments are not a JSON object: key=city value=Oslo',
    });
    ws.close();
  });

  it('a code tool that calls itself without end gets an error the model reads, and the engine serves on', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_echo', name: 'echo', arguments: {} }]),
      sseText(['Sorry.']),
    );
    const msgs = await ws.turn('echo', 30_000);
    expect(msgs.find((m) => m.type === 'tool_result')).toMatchObject({ name: 'echo', ok: false });
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      tool_call_id: 'call_echo',
      content: 'Error: RecursionError: maximum recursion depth exceeded',
    });
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'Sorry.' });
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_2', name: 'remember', arguments: { key: 'a', value: 'b' } }]),
      sseText(['Kept.']),
    );
    await ws.turn('remember', 15_000);
    expect(rig.llm.requests[3]!.body.messages.at(-1)).toMatchObject({ content: '"kept"' });
    ws.close();
  });

  /** A turn of `ws` where the model calls `name`, then answers: what it read of the call. */
  const callAndRead = async (ws: WsClient, name: string): Promise<unknown> =>
    JSON.parse((await callOnce(rig, ws, name)).read);

  it('gives code the conversation so far as context.events: role, author, parts of text', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(sseText(['Hello there.']));
    await ws.turn('hi', 15_000);
    // The system prompt is not an event; the message calling this tool has no text yet.
    expect(await callAndRead(ws, 'history')).toEqual([
      ['user', 'user', ['hi']],
      ['assistant', 'assistant', ['Hello there.']],
      ['user', 'user', ['use history']],
      ['assistant', 'assistant', ['']],
    ]);
    ws.close();
  });

  it("shows a before_model_callback the request's tools, without those left out for the session's modality", async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(await callAndRead(ws, 'offered')).toEqual([
      'channel',
      'echo',
      'history',
      'offered',
      'remember',
    ]);
    ws.close();
  });

  it('gives code the session as seed 003 names it: modality in capitals, the channel, its language and time zone', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect(await callAndRead(ws, 'channel')).toEqual({
      modality: 'TEXT',
      channel: 'websocket',
      language: 'de',
      timezone: 'Europe/Rome',
    });
    // An admin's try has no session: the engine's language (SPEECH_LANGUAGE) and time zone
    // (SESSION_TIMEZONE) all the same.
    const tried = await fetch(`${rig.engine.httpUrl}/api/tools/channel/call`, {
      method: 'POST',
      body: '{}',
      headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(((await tried.json()) as { result: string }).result)).toEqual({
      modality: 'TEXT',
      channel: 'api',
      language: 'de',
      timezone: 'Europe/Rome',
    });
    // The client says where the conversation happens (a phone line of its own, say), and where.
    ws.send({ type: 'session.update', channel: 'phone', language: 'it', timezone: 'asia/tokyo' });
    await ws.waitFor((m) => m.type === 'session.updated');
    expect(await callAndRead(ws, 'channel')).toEqual({
      modality: 'TEXT',
      channel: 'phone',
      language: 'it',
      timezone: 'Asia/Tokyo',
    });
    ws.close();
  });
});

/** Runs past any timeout. */
const SPINNING_CALLBACK = `def before_model_callback(callback_context, llm_request) -> None:
    while True:
        pass
`;

/** Would leave more state than a session keeps (1 MiB of JSON). */
const BLOATING_CALLBACK = `def before_model_callback(callback_context, llm_request) -> None:
    callback_context.state["blob"] = "x" * (2 * 1024 * 1024)
`;

const STATE_KEYS = `def state_keys() -> list:
    """The keys of the session state."""
    return sorted(context.state.keys())
`;

describe('code tools: before_model_callbacks that overrun', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOL_TIMEOUT_SECS: '120',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'callback', code: SPINNING_CALLBACK, timeout_secs: 1 },
      { type: 'callback', code: BLOATING_CALLBACK },
      { type: 'python', code: STATE_KEYS },
    ]),
    CODE_TOOLS_WORKERS: '1',
  }));

  it('stops one at its own timeout_secs and keeps no state one would leave too large; the turn goes on', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_keys', name: 'state_keys', arguments: {} }]),
      sseText(['None.']),
    );
    const msgs = await ws.turn('what do you keep?', 20_000);
    expect(msgs.at(-1)).toEqual({ type: 'assistant_end', text: 'None.' });
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toMatchObject({
      role: 'tool',
      content: '[]',
    });
    ws.close();
  }, 30_000);
});
