import { sseText } from './support/fake-llm.js';
import { useEngineRig, xmlCall } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * `{"type":"history"}`: a client that resumed a session (a chat page reloaded) shows the
 * conversation again as its user saw it.
 */
describe('the conversation as the user saw it', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([weatherTool(base)]),
      LLM_MAX_HISTORY_MESSAGES: '6',
    }),
    (_req, res) => res.end('Rome: sunny'),
  );

  it('after a resume: the words and answers, not the calls or notes; turns no longer held counted', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    rig.llm.enqueue(
      sseText(['Let me check. ', xmlCall('get_weather', { city: 'Rome' })]),
      sseText(['It is ', 'sunny.']),
    );
    await ws.turn('Weather in Rome?');
    ws.send({ type: 'note', text: 'The user opened the map.' });
    ws.send({ type: 'say', text: 'Anything else?' });
    await ws.waitFor((m) => m.type === 'assistant_end' && m.text === 'Anything else?');
    const token = ws.messages.find((m) => m.type === 'session')!.resume_token as string;
    ws.close();
    await ws.closed;
    const back = await WsClient.connect(`${rig.engine.wsUrl}?resume=${encodeURIComponent(token)}`);
    back.send({ type: 'history' });
    expect(await back.waitFor((m) => m.type === 'history')).toEqual({
      type: 'history',
      messages: [
        { role: 'user', text: 'Weather in Rome?' },
        { role: 'assistant', text: 'Let me check. It is sunny.' },
        { role: 'assistant', text: 'Anything else?' },
      ],
      earlier: 0,
    });
    // Two more turns: the bounded history (6 messages) drops the first (whole turns go).
    rig.llm.enqueue(sseText(['Paris: rain.']), sseText(['Oslo: snow.']));
    await back.turn('Paris?');
    await back.turn('Oslo?');
    const from = back.messages.length;
    back.send({ type: 'history' });
    expect(await back.waitFor((m) => m.type === 'history', from)).toEqual({
      type: 'history',
      messages: [
        { role: 'assistant', text: 'Anything else?' },
        { role: 'user', text: 'Paris?' },
        { role: 'assistant', text: 'Paris: rain.' },
        { role: 'user', text: 'Oslo?' },
        { role: 'assistant', text: 'Oslo: snow.' },
      ],
      earlier: 1,
    });
    back.close();
  });
});
