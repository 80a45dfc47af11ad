import { openAiSpeech } from './support/engine.js';
import { sseText } from './support/fake-llm.js';
import { SPEECH, useFakeSpeech } from './support/speech-server.js';
import { useEngineRig, kinds } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient, type Msg } from './support/ws-client.js';

/**
 * Tools the engine calls itself before the model's first request (`at_start`): the model reads
 * their calls and results as its own, and answers from them with no round of its own to ask.
 */
describe('tools called at the start of a conversation', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'lookup_caller',
          description: "The caller's record, by the number they call from.",
          url: `${base}/customers?phone=\${session.user_number}`,
          method: 'GET',
          at_start: true,
        },
        {
          name: 'opening_hours',
          url: `${base}/hours`,
          method: 'GET',
          at_start: true,
          modalities: ['voice'],
        },
        {
          name: 'get_weather',
          url: `${base}/weather/{city}`,
          method: 'GET',
          parameters: { type: 'object', properties: { city: { type: 'string' } } },
        },
      ]),
    }),
    (req, res) => {
      if (req.path !== '/customers') return void res.end('ok');
      if (req.query.phone !== '+15550100')
        return void res.writeHead(404, { 'Content-Type': 'text/plain' }).end('no such customer');
      res.setHeader('Content-Type', 'application/json');
      res.end(JSON.stringify({ name: 'Ada', booking: 'B-7' }));
    },
  );

  /** A session whose caller calls from `number`. */
  async function caller(number: string, settings: Record<string, unknown> = {}) {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    ws.send({ type: 'session.update', variables: { user_number: number }, ...settings });
    await ws.waitFor((m) => m.type === 'session.updated');
    return ws;
  }

  const toolMessages = (body: Record<string, any>) =>
    (body.messages as any[]).filter((m) => m.role === 'tool' || m.tool_calls);

  beforeEach(() => {
    rig.llm.reset();
    rig.tools.requests.length = 0;
  });

  it("calls the tool before the model's first request, which reads it as its own call: one request for the answer", async () => {
    const ws = await caller('+15550100');
    rig.llm.enqueue(sseText(['Your booking is B-7, Ada.']), sseText(['You are welcome.']));
    const turn = await ws.turn("What's my booking?");
    expect(kinds(turn)).toEqual(['tool_call', 'tool_result', 'assistant_delta', 'assistant_end']);
    expect(turn[0]).toMatchObject({ name: 'lookup_caller', arguments: {} });
    expect(turn[1]).toMatchObject({ id: turn[0]!.id, name: 'lookup_caller', ok: true });
    expect(turn.at(-1)).toMatchObject({ text: 'Your booking is B-7, Ada.' });
    // The caller's number went to the service; the voice-only tool was not called.
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/customers?phone=%2B15550100']);
    // One request: the user's words, then the call and its result, as if the model had made it.
    expect(rig.llm.requests).toHaveLength(1);
    const { messages } = rig.llm.requests[0]!.body;
    expect(messages.slice(1).map((m: any) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[2].tool_calls).toEqual([
      expect.objectContaining({ function: { name: 'lookup_caller', arguments: '{}' } }),
    ]);
    expect(messages[3]).toEqual({
      role: 'tool',
      tool_call_id: messages[2].tool_calls[0].id,
      content: '{"name":"Ada","booking":"B-7"}',
    });
    // Once a conversation: the next turn asks the model with the history as it stands.
    const next = await ws.turn('Thanks!');
    expect(kinds(next)).toEqual(['assistant_delta', 'assistant_end']);
    expect(rig.tools.requests).toHaveLength(1);
    expect(toolMessages(rig.llm.requests[1]!.body)).toHaveLength(2);
    ws.close();
  });

  it('tells the model what the service answered when it failed, and the turn goes on', async () => {
    const ws = await caller('+15559999');
    rig.llm.enqueue(sseText(['Could you tell me your name?']));
    const turn = await ws.turn('Hello');
    expect(turn.find((m: Msg) => m.type === 'tool_result')).toMatchObject({ ok: false });
    expect(turn.at(-1)).toMatchObject({ text: 'Could you tell me your name?' });
    const tool = rig.llm.requests[0]!.body.messages.find((m: any) => m.role === 'tool');
    expect(tool.content).toBe('Error: HTTP 404 Not Found — no such customer');
    ws.close();
  });

  it('is not called in a session not offered the tool, nor again in a resumed one', async () => {
    const limited = await caller('+15550100', { tools: ['get_weather'] });
    rig.llm.enqueue(sseText(['Hello!']));
    expect(kinds(await limited.turn('Hi'))).toEqual(['assistant_delta', 'assistant_end']);
    expect(rig.tools.requests).toHaveLength(0);
    limited.close();

    const ws = await caller('+15550100');
    rig.llm.enqueue(sseText(['Hello Ada!']), sseText(['Still B-7.']));
    await ws.turn('Hi');
    const token = ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    ws.close();
    await ws.closed;
    const back = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    expect(back.messages.find((m) => m.type === 'session')).toMatchObject({ resumed: true });
    expect(kinds(await back.turn('My booking again?'))).toEqual([
      'assistant_delta',
      'assistant_end',
    ]);
    expect(rig.tools.requests).toHaveLength(1);
    // The resumed conversation still holds the first call and its result.
    expect(toolMessages(rig.llm.requests.at(-1)!.body)).toHaveLength(2);
    back.close();
  });
});

describe('tools called at the start of a conversation, begun as the user begins to speak', () => {
  const { url: speechUrl } = useFakeSpeech();
  /** Each request of the CRM, told as it arrives. */
  let arrived: (phone: string) => void = () => undefined;
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      ...openAiSpeech(speechUrl()),
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'lookup_caller',
          url: `${base}/customers?phone=\${session.user_number}`,
          method: 'GET',
          at_start: true,
        },
      ]),
    }),
    (req, res) => {
      arrived(req.query.phone!);
      res.end(`customer of ${req.query.phone}`);
    },
  );

  /** A voice session calling from `number`, its user's speech sent (not yet ended). */
  async function speaking(number: string): Promise<WsClient> {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    ws.send({ type: 'session.update', modality: 'voice', variables: { user_number: number } });
    await ws.waitFor((m) => m.type === 'session.updated');
    for (let at = 0; at < SPEECH.length; at += 3200)
      ws.socket.send(SPEECH.subarray(at, at + 3200), { binary: true });
    return ws;
  }

  const toolContent = () =>
    rig.llm.requests[0]!.body.messages.find((m: any) => m.role === 'tool').content;

  beforeEach(() => {
    rig.llm.reset();
    rig.tools.requests.length = 0;
  });

  it('calls the service while the user speaks, and the turn reads that answer', async () => {
    const called = new Promise<string>((resolve) => (arrived = resolve));
    const ws = await speaking('+15550100');
    // Before the utterance has ended, let alone been transcribed.
    expect(await called).toBe('+15550100');
    rig.llm.enqueue(sseText(['Hello!']));
    ws.send({ type: 'audio_end' });
    const end = await ws.waitFor((m) => m.type === 'assistant_end');
    const turn = ws.messages.slice(0, ws.messages.indexOf(end) + 1);
    expect(kinds(turn).filter((t) => t.startsWith('tool_'))).toEqual(['tool_call', 'tool_result']);
    expect(rig.tools.requests).toHaveLength(1);
    expect(toolContent()).toBe('customer of +15550100');
    ws.close();
  });

  it('calls again at the turn when the session changed its variables meanwhile', async () => {
    const first = new Promise<string>((resolve) => (arrived = resolve));
    const ws = await speaking('+15550100');
    await first;
    ws.send({ type: 'session.update', variables: { user_number: '+15550199' } });
    await ws.waitFor(
      (m) => m.type === 'session.updated' && m.settings.variables.user_number === '+15550199',
    );
    rig.llm.enqueue(sseText(['Hello!']));
    ws.send({ type: 'audio_end' });
    await ws.waitFor((m) => m.type === 'assistant_end');
    expect(rig.tools.requests.map((r) => r.query.phone)).toEqual(['+15550100', '+15550199']);
    expect(toolContent()).toBe('customer of +15550199');
    ws.close();
  });
});
