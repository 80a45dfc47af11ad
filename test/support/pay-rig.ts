/**
 * The voice rig of the spoken approvals' tests: the engine speaking through a FakeSpeech, its one
 * tool `pay` asking the user's approval with a spoken prompt, on a payment service of its own.
 */
import { sseStructuredCalls, sseText } from './fake-llm.js';
import { RecordingServer } from './recording-server.js';
import { useVoiceRig } from './speech-server.js';
import { writeToolsFile } from './tools-file.js';
import { voiceSession } from './ws-client.js';

/** `pay`'s prompt for 120 euros. */
export const PAY_PROMPT = 'Pay 120 euros? Press 1 to confirm, 2 to cancel.';

/** `pay`: a POST to `base`/pay, each call approved first, its prompt "Pay {amount} euros? …". */
export const payTool = (base: string) => ({
  name: 'pay',
  url: `${base}/pay`,
  method: 'POST',
  parameters: { type: 'object', properties: { amount: { type: 'number' } } },
  confirm: true,
  confirm_prompt: 'Pay {amount} euros? Press 1 to confirm, 2 to cancel.',
});

/** For one describe block, `env` added to the engine's; the service's requests reset each test. */
export function usePayRig(env: Record<string, string> = {}) {
  const service = new RecordingServer();
  let base = '';
  beforeAll(async () => {
    base = await service.start();
  });
  afterAll(() => service.stop());
  beforeEach(() => (service.requests.length = 0));
  const rig = useVoiceRig(() => ({
    ...env,
    LLM_TOOLS_FILE: writeToolsFile([payTool(base)]),
  }));
  /** The model asks to pay 120 euros (call `call_pay`), then says "Done.". */
  const enqueuePayment = () =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_pay', name: 'pay', arguments: { amount: 120 } }]),
      sseText(['Done.']),
    );
  /** A voice session whose user asks to pay: its messages from then on start at `from`. */
  const paying = async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    enqueuePayment();
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'Pay the bill.' });
    return { ws, from };
  };
  /** agent_engine_spoken_questions_total of `event` (`cut`, `repeated`) so far. */
  const questionsCounted = async (event: string) => {
    const text = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    const line = new RegExp(
      `^agent_engine_spoken_questions_total\\{event="${event}"\\} (\\d+)$`,
      'm',
    );
    return Number(line.exec(text)?.[1] ?? 0);
  };
  return { rig, service, enqueuePayment, paying, questionsCounted };
}
