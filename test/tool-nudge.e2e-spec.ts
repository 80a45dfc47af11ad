import { openAiSpeech } from './support/engine.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { samples } from './support/prometheus.js';
import { synthesised } from './support/waiting.js';
import { voiceSession } from './support/ws-client.js';
import { smsTool, weatherTool, writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

const PROMISE = 'Let me check the weather in Paris for you.';
const NOTE =
  '(A note from the engine, not from the user: you said "Let me check the weather in Paris for you", but you made no tool call, so nothing has been done.';
const parisCall = (id: string) =>
  sseStructuredCalls([{ id, name: 'get_weather', arguments: { city: 'Paris' } }]);

type Message = { role: string; content: string | null; tool_calls?: unknown[] };

/**
 * `LLM_TOOL_NUDGE`: a model that says "Let me check that for you." and makes no call left the
 * caller with a promise and then nothing. The engine asks it once more, told that nothing ran.
 */
describe('an answer that promises to act and makes no call', () => {
  const rig = useEngineRig(
    (base) => ({ LLM_MODEL: 'm', LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]) }),
    (req, res) => res.end(`${req.path.split('/')[1]}: sunny +21°C`),
  );
  const client = useClientPerTest(rig);
  const messagesOf = (i: number) => rig.llm.requests[i]!.body.messages as Message[];
  const nudgeCount = async (outcome: string) =>
    samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text()).get(
      `agent_engine_tool_nudges_total{kind="promise",outcome="${outcome}"}`,
    ) ?? 0;

  it('is asked once more, then makes the call and answers', async () => {
    const before = await nudgeCount('called');
    rig.llm.enqueue(
      sseText(['Let me check the weather ', 'in Paris for you.']),
      parisCall('call_1'),
    );
    rig.llm.enqueue(sseText(['It is sunny in Paris.']));
    const events = await client.ws.turn('Weather in Paris?');
    expect(events.filter((e) => e.type === 'tool_result')).toMatchObject([
      { name: 'get_weather', ok: true },
    ]);
    expect(events.at(-1)).toEqual({
      type: 'assistant_end',
      text: `${PROMISE} It is sunny in Paris.`,
    });
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/Paris']);
    // The note goes in the request after the promise only …
    expect(messagesOf(1).slice(-2)).toEqual([
      { role: 'assistant', content: PROMISE },
      { role: 'user', content: expect.stringContaining(NOTE) },
    ]);
    // … and the history holds the promise and the call as one message, as though said at once.
    const third = messagesOf(2);
    expect(third.some((m) => m.role === 'user' && m.content!.includes('A note from'))).toBe(false);
    expect(third.slice(-2)).toMatchObject([
      { role: 'assistant', content: PROMISE, tool_calls: [{ id: 'call_1' }] },
      { role: 'tool', tool_call_id: 'call_1', content: 'Paris: sunny +21°C' },
    ]);
    expect(await nudgeCount('called')).toBe(before + 1);
  });

  it('keeps what the model said instead, and asks only once a turn', async () => {
    const before = await nudgeCount('answered');
    rig.llm.enqueue(sseText(['One moment, please.']), sseText(['One moment.']));
    rig.llm.enqueue(sseText(['Hello again.']));
    const end = (await client.ws.turn('Weather?')).at(-1);
    expect(end).toEqual({ type: 'assistant_end', text: 'One moment, please. One moment.' });
    expect(rig.llm.requests).toHaveLength(2);
    expect(await nudgeCount('answered')).toBe(before + 1);
    await client.ws.turn('Hello?');
    expect(messagesOf(2).slice(-2)).toEqual([
      { role: 'assistant', content: 'One moment, please. One moment.' },
      { role: 'user', content: 'Hello?' },
    ]);
  });

  it('does not ask again after an answer, an offer, or a promise for later', async () => {
    for (const text of [
      'It is sunny in Paris.',
      'Shall I check the weather for you?',
      "I'll check once you tell me the city.",
    ]) {
      rig.llm.reset();
      rig.llm.enqueue(sseText([text]));
      expect((await client.ws.turn('Weather?')).at(-1)).toEqual({ type: 'assistant_end', text });
      expect(rig.llm.requests).toHaveLength(1);
    }
  });
});

/**
 * A model that says "I've sent the text." with no call, in a conversation where no call that acts
 * has succeeded, left the caller believing it was sent. It is asked once more, told so.
 */
describe('an answer that says a thing was done that no call did', () => {
  const CLAIM = "Done! I've sent the text to Ada.";
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base), smsTool(base)]),
  }));
  const client = useClientPerTest(rig);
  const sms = (id: string) =>
    sseStructuredCalls([{ id, name: 'send_sms', arguments: { to: '+39 333', text: 'Hi' } }]);

  it('is asked once more, told that it has not been done, and makes the call', async () => {
    rig.llm.enqueue(sseText([CLAIM]), sms('call_1'), sseText(['Sent.']));
    const events = await client.ws.turn('Text Ada "Hi".');
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/sms']);
    expect(rig.llm.requests[1]!.body.messages.at(-1)).toEqual({
      role: 'user',
      content: expect.stringContaining(
        `you said "I've sent the text to Ada", but no tool call has done that in this conversation, so it has not been done.`,
      ),
    });
    expect(events.at(-1)).toEqual({ type: 'assistant_end', text: `${CLAIM} Sent.` });
    const metrics = samples(await (await fetch(`${rig.engine.httpUrl}/metrics`)).text());
    expect(metrics.get('agent_engine_tool_nudges_total{kind="claim",outcome="called"}')).toBe(1);
  });

  it('is left alone once a call that acts has succeeded in the conversation', async () => {
    rig.llm.enqueue(sms('call_2'), sseText(['Sent.']));
    await client.ws.turn('Text Ada "Hi".');
    rig.llm.enqueue(sseText(["Yes, I've sent the text to Ada."]));
    await client.ws.turn('Did you send it?');
    expect(rig.llm.requests).toHaveLength(3);
    expect(rig.tools.requests.map((r) => r.path)).toEqual(['/sms']);
  });

  it('is left alone when it is denied, or asked', async () => {
    for (const text of ["I haven't sent the text yet.", 'Shall I send the text to Ada?']) {
      rig.llm.reset();
      rig.llm.enqueue(sseText([text]));
      expect((await client.ws.turn('Text Ada.')).at(-1)).toEqual({ type: 'assistant_end', text });
      expect(rig.llm.requests).toHaveLength(1);
    }
  });
});

describe('LLM_TOOL_NUDGE=false', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_NUDGE: 'false',
    LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
  }));
  const client = useClientPerTest(rig);

  it('ends the turn with the promise, as the model left it', async () => {
    rig.llm.enqueue(sseText([PROMISE]));
    expect((await client.ws.turn('Weather in Paris?')).at(-1)).toEqual({
      type: 'assistant_end',
      text: PROMISE,
    });
    expect(rig.llm.requests).toHaveLength(1);
  });
});

describe('a spoken promise', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
      ...openAiSpeech(base),
      SPEECH_AUDIO_LEAD_MS: '0',
      SPEECH_TOOL_WAIT_MS: '300',
    }),
    (req, res) => {
      if (req.path === '/audio/speech')
        return void res.writeHead(200, { 'Content-Type': 'audio/pcm' }).end(Buffer.alloc(480, 7));
      // A second of lookup: past SPEECH_TOOL_WAIT_MS.
      setTimeout(() => res.end('Paris: sunny +21°C'), 1000);
    },
  );

  it('is followed by the answer, with no wait phrase between: the caller was told already', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    rig.llm.enqueue(sseText([PROMISE]), parisCall('call_1'), sseText(['It is sunny.']));
    ws.send({ type: 'user_text', text: 'Weather in Paris?' });
    await ws.waitFor((m) => m.type === 'audio_end', 0, 10_000);
    expect(synthesised(rig.tools)).toEqual([PROMISE, 'It is sunny.']);
    ws.close();
  });
});
