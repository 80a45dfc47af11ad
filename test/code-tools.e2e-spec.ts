import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Logger } from '@nestjs/common';
import { Engine } from './support/engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { voiceSession, WsClient, type Msg } from './support/ws-client.js';
import { LAST_UTTERANCE, MASKING, RANDOM_FACT } from './support/code-tool-sources.js';

const stub = (name: string) => ({
  type: 'python',
  code: `def ${name}() -> str:\n    """${name}"""\n    return "${name} done"`,
});

describe('Python code tools (seed 003)', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  let engine: Engine;
  let toolsFile: string;

  beforeAll(async () => {
    const base = await api.start();
    api.respond((req, res) => {
      if (req.path === '/fact')
        return void res.end(JSON.stringify({ text: 'Honey never spoils.' }));
      if (req.path.startsWith('/weather/'))
        return void res.end(
          JSON.stringify({ city: decodeURIComponent(req.path.slice(9)), temp: 21 }),
        );
      res.writeHead(404).end('nope');
    });
    toolsFile = writeToolsFile([
      { type: 'python', code: LAST_UTTERANCE },
      { type: 'python', file: 'py/loyalty.py' },
      { type: 'python', code: RANDOM_FACT.replace('FACTS_URL', JSON.stringify(`${base}/fact`)) },
      {
        name: 'get_weather',
        url: `${base}/weather/{city}`,
        method: 'GET',
        parameters: { type: 'object', properties: { city: { type: 'string' } } },
      },
      {
        type: 'python',
        code: 'def weather_summary(city: str) -> str:\n    """Summary."""\n    w = tools.get_weather({"city": city})\n    u = tools.get_last_user_utterance()\n    return f"{w[\'city\']}: {w[\'temp\']} degrees (asked: {u})"',
      },
      {
        type: 'python',
        code: 'def spin() -> None:\n    """Never ends."""\n    while True:\n        pass',
        timeout_secs: 0.5,
      },
      {
        type: 'python',
        code: 'def read_metadata() -> str:\n    """Metadata."""\n    return ces_requests.get("http://169.254.169.254/latest/meta-data/").text',
      },
      { type: 'callback', code: MASKING },
      // A second callback, async: each runs before every request.
      {
        type: 'callback',
        code: 'import asyncio\n\nasync def before_model_callback(callback_context, llm_request) -> None:\n    await asyncio.sleep(0)\n    llm_request.config.hide_tool("retired")',
      },
      stub('retired'),
      {
        type: 'python',
        code: 'def risky_update() -> None:\n    """Changes state, then fails."""\n    context.state["customer_profile"] = {"loyalty_points": 999}\n    raise RuntimeError("changed my mind")',
      },
      stub('custom_actions'),
      stub('send_sms_link'),
      stub('hang_up_call'),
      { ...stub('voice_only'), modalities: ['voice'] },
      {
        type: 'python',
        code: 'def described(x: int) -> int:\n    """From the docstring."""\n    return x',
        description: 'From the definition.',
        parameters: { type: 'object', properties: { x: { type: 'number' } } },
      },
    ]);
    mkdirSync(join(dirname(toolsFile), 'py'));
    // Both files as some Windows editors save them, with a byte order mark.
    const bom = (text: string) => `\uFEFF${text}`;
    writeFileSync(toolsFile, bom(readFileSync(toolsFile, 'utf8')));
    writeFileSync(
      join(dirname(toolsFile), 'py', 'loyalty.py'),
      bom(readFileSync('test/fixtures/code-tools/loyalty.py', 'utf8')),
    );
    engine = await Engine.start({
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: toolsFile,
      CODE_TOOLS_WORKERS: '1',
      CODE_TOOLS_ALLOW_PRIVATE_NETWORK: 'false',
    });
  }, 60000);
  afterAll(async () => {
    await engine?.stop();
    await llm.stop();
    await api.stop();
  });
  beforeEach(() => llm.reset());

  /** A turn where the model calls `name` with `args`, then answers; returns the tool message content and the events. */
  async function callTool(
    ws: WsClient,
    name: string,
    args: Record<string, unknown> = {},
    text = 'go',
    timeoutMs = 5000,
  ): Promise<{ result: string; msgs: Msg[] }> {
    llm.enqueue(
      sseStructuredCalls([{ id: `call_${name}_${llm.requests.length}`, name, arguments: args }]),
      sseText(['Done.']),
    );
    const before = llm.requests.length;
    const msgs = await ws.turn(text, timeoutMs);
    const toolMessage = llm.requests[before + 1]!.body.messages.filter(
      (m: any) => m.role === 'tool',
    ).at(-1);
    return { result: toolMessage.content as string, msgs };
  }

  it('derives names, descriptions and schemas from the code, and GET shows the definitions as given', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    llm.enqueue(sseText(['Hi.']));
    await ws.turn('hello');
    const tools = llm.requests[0]!.body.tools.map((t: any) => t.function);
    expect(tools.find((t: any) => t.name === 'update_customer_loyalty_points')).toEqual({
      name: 'update_customer_loyalty_points',
      description: "Adds loyalty points to the customer's profile and returns the updated profile.",
      parameters: {
        type: 'object',
        properties: {
          points_to_add: {
            type: 'integer',
            description: 'The number of loyalty points to add to the existing total.',
          },
        },
        required: ['points_to_add'],
      },
    });
    expect(tools.find((t: any) => t.name === 'get_last_user_utterance').description).toBe(
      'Retrieves the most recent message sent by the user from the conversation history.\n\nReturns:\n    The text of the last user message, or None if no user messages are found.',
    );
    // A description or schema the definition gives wins over the docstring and the signature.
    expect(tools.find((t: any) => t.name === 'described')).toEqual({
      name: 'described',
      description: 'From the definition.',
      parameters: { type: 'object', properties: { x: { type: 'number' } } },
    });
    const listed = (await (await fetch(`${engine.httpUrl}/api/tools`)).json()) as any;
    expect(listed.tools[1]).toEqual({ type: 'python', file: 'py/loyalty.py' });
    ws.close();
  });

  it('is tried over POST /api/tools/{name}/call with a fresh state, and answers its print() output', async () => {
    const res = await fetch(`${engine.httpUrl}/api/tools/update_customer_loyalty_points/call`, {
      method: 'POST',
      body: JSON.stringify({ arguments: { points_to_add: '7' } }),
    });
    const body = (await res.json()) as { ok: boolean; result: string; logs: string };
    expect(body).toMatchObject({ ok: true, logs: 'Updated loyalty points to: 7\n' });
    expect(JSON.parse(body.result)).toMatchObject({ loyalty_points: 7 });
  });

  it('gives the tool the latest user utterance through context.user_content', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    expect((await callTool(ws, 'get_last_user_utterance', {}, 'What did I just say?')).result).toBe(
      '"What did I just say?"',
    );
    ws.close();
  });

  it('keeps context.state across turns of one session, isolated from other sessions, and reports print() output', async () => {
    const a = await WsClient.connect(engine.wsUrl);
    const b = await WsClient.connect(engine.wsUrl);
    const first = await callTool(a, 'update_customer_loyalty_points', { points_to_add: 10 });
    expect(JSON.parse(first.result)).toEqual({ email: null, loyalty_points: 10, plan: 'Standard' });
    expect(first.msgs.find((m) => m.type === 'tool_result')).toMatchObject({
      ok: true,
      logs: 'Updated loyalty points to: 10\n',
    });
    expect(
      JSON.parse((await callTool(a, 'update_customer_loyalty_points', { points_to_add: 5 })).result)
        .loyalty_points,
    ).toBe(15);
    expect(
      JSON.parse((await callTool(b, 'update_customer_loyalty_points', { points_to_add: 1 })).result)
        .loyalty_points,
    ).toBe(1);
    // A call that raises leaves the state as it was, even if it changed it before raising. The
    // operator is told, with its exception's type (its message, which may hold what the user
    // said, only at debug level).
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      expect((await callTool(a, 'risky_update')).result).toBe(
        'Error: RuntimeError: changed my mind',
      );
      const warned = warn.mock.calls.map(([message]) => String(message));
      expect(warned).toContainEqual(
        expect.stringMatching(/^code tool risky_update failed \(call \S+\): RuntimeError$/),
      );
      expect(warned.join('\n')).not.toContain('changed my mind');
    } finally {
      warn.mockRestore();
    }
    expect(
      JSON.parse((await callTool(a, 'update_customer_loyalty_points', { points_to_add: 0 })).result)
        .loyalty_points,
    ).toBe(15);
    a.close();
    b.close();
  });

  it('calls an HTTP API through ces_requests (loopback allowed for the test server only by policy)', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    // The engine refuses private addresses by default, so the code's bare except returns None.
    expect((await callTool(ws, 'get_random_fact')).result).toBe('null');
    expect(api.requests.some((r) => r.path === '/fact')).toBe(false);
    expect((await callTool(ws, 'read_metadata')).result).toMatch(
      /^Error: ConnectionError: refused: 169\.254\.169\.254/,
    );
    ws.close();
  });

  it('lets a code tool call another HTTP tool and another code tool synchronously', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    const { result } = await callTool(ws, 'weather_summary', { city: 'Rome' }, 'Rome please');
    expect(result).toBe('"Rome: 21 degrees (asked: Rome please)"');
    ws.close();
  });

  it('stops an endless loop at the tool timeout, and the next call works', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    // After the kill, the turn's next round (its before_model_callback) and the next call wait
    // for a fresh Python worker, which starts slowly on a busy machine.
    const spin = await callTool(ws, 'spin', {}, 'go', 25000);
    expect(spin.result).toMatch(/^Error: TimeoutError: the code ran longer than 0.5s/);
    const next = await callTool(ws, 'get_last_user_utterance', {}, 'still alive?', 25000);
    expect(next.result).toBe('"still alive?"');
    ws.close();
  }, 60000);

  it('masks tools by modality: before_model_callback and declarative modalities shape the tools array', async () => {
    const text = await WsClient.connect(engine.wsUrl);
    llm.enqueue(sseText(['Hi.']));
    await text.turn('hi');
    const textTools = llm.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
    expect(textTools).toEqual(expect.arrayContaining(['custom_actions', 'get_weather']));
    expect(textTools).not.toEqual(expect.arrayContaining(['send_sms_link']));
    expect(textTools).not.toContain('hang_up_call');
    expect(textTools).not.toContain('voice_only');
    expect(textTools).not.toContain('retired');

    const voice = await voiceSession(engine.wsUrl, { tts: false });
    llm.enqueue(sseText(['Hi.']));
    await voice.turn('hi');
    const voiceTools = llm.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
    expect(voiceTools).toEqual(
      expect.arrayContaining(['send_sms_link', 'hang_up_call', 'voice_only']),
    );
    expect(voiceTools).not.toContain('custom_actions');
    expect(voiceTools).not.toContain('retired');
    // A hidden tool called anyway is unknown.
    expect((await callTool(voice, 'custom_actions')).result).toBe(
      "Error: unknown tool 'custom_actions'",
    );
    text.close();
    voice.close();
  });

  it('answers POST /api/tools with 400 naming the Python line of a syntax error, a missing module, a missing function or a name mismatch', async () => {
    const post = async (defs: unknown) => {
      const res = await fetch(`${engine.httpUrl}/api/tools`, {
        method: 'POST',
        body: JSON.stringify(defs),
      });
      return { status: res.status, body: (await res.json()) as { message: string } };
    };
    expect(await post([{ type: 'python', code: 'def f(x):\n    return x +\n' }])).toEqual({
      status: 400,
      body: expect.objectContaining({
        message: expect.stringMatching(
          /^request body: tool #0: field 'code': Python syntax error at line 2: /,
        ),
      }),
    });
    // A module the code imports on every call, and no code tool has: refused at load, not at
    // each call (an import of its own guarded with try/except is the code's to handle).
    expect(
      (
        await post([
          {
            type: 'python',
            code: 'import json\nfrom dateutil import parser\n\ndef f():\n    pass',
          },
        ])
      ).body.message,
    ).toBe(
      "request body: tool #0: field 'code': module 'dateutil' (imported at line 2) is not there: code tools have Python's standard library, and requests, httpx and aiohttp through the engine; other packages load from CODE_TOOLS_PACKAGES_DIR (Pyodide wheels)",
    );
    expect((await post([{ type: 'python', code: 'x = 1' }])).body.message).toBe(
      "request body: tool #0: field 'code': the code defines no function",
    );
    expect(
      (await post([{ type: 'python', name: 'g', code: 'def f():\n    pass' }])).body.message,
    ).toBe("request body: tool #0 'g': field 'code': no function named 'g' (functions defined: f)");
    expect(
      (await post([{ type: 'python', code: 'def f():\n    pass', file: 'x.py' }])).body.message,
    ).toContain("give exactly one of 'code' or 'file'");
    // Two code tools whose functions have one name: the name comes from the code, and clashes.
    const same = { type: 'python', code: 'def f():\n    pass' };
    expect((await post([same, same])).body.message).toBe(
      "request body: tool #1 'f': field 'name' duplicates tool #0",
    );
    const listed = (await (await fetch(`${engine.httpUrl}/api/tools`)).json()) as {
      source: string;
    };
    expect(listed.source).toBe('file');
  });
});
