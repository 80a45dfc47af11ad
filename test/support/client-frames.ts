// Frames a client may send: every message type, with fields the engine's rules take or refuse
// and any JSON (test/frames-fuzz.e2e-spec.ts sends them; test/asyncapi.spec.ts reads them).
import fc from 'fast-check';
import { CLIENT_MESSAGE_TYPES } from '../../src/orchestrator/protocol/client-messages.js';
import { SETTINGS } from '../../src/orchestrator/protocol/session-update-message.js';

/**
 * Values a field may be given: those its rules take (so that the frame gets past them and into
 * the engine), those they refuse, and any JSON.
 */
const FIELDS: Record<string, unknown[]> = {
  text: ['hi', '', ' ', 'a\ud800', 'x'.repeat(200)],
  interruptible: [true, false],
  respond: [true, false],
  id: ['call_1', 'p1', '', 7],
  approved: [true, false],
  value: ['yes', 'Rome', '', 3],
  result: [{ ok: 1 }, 'done', null],
  error: ['closed', ''],
  data: ['AAAA', 'not base64', ''],
  digits: ['42#', '*', 'abc'],
  modality: ['voice', 'text', 'video'],
  tts: [true, false],
  voice: ['alloy', ''],
  language: ['en', 'it', 'xx-YY'],
  timezone: ['Europe/Rome', 'Mars/Base'],
  audio: ['json', 'binary', 'AAAA'],
  vad_silence_ms: [0, 300, -1],
  vad_unfinished_wait_ms: [0, 500],
  input_audio_format: ['pcm16', 'g711_ulaw', 'mp3'],
  output_audio_format: ['pcm16', 'g711_alaw'],
  max_secs: [3600, 'long'],
  channel: ['web', 'phone'],
  instructions: ['Be brief.', ''],
  model: ['m', 'nope'],
  tools: [['get_weather'], [], ['nope'], null],
  client_tools: [[{ name: 'show', description: 'Shows', parameters: { type: 'object' } }], null],
  variables: [{ city: 'Rome' }, { a: 1 }],
  agent: ['billing', ''],
};

/** The fields of each message type (session.update's: its settings, but for the timers). */
const OWN: Record<string, string[]> = {
  user_text: ['text'],
  say: ['text', 'interruptible'],
  note: ['text', 'respond'],
  'session.update': Object.keys(SETTINGS).filter((k) => k !== 'idle_secs'),
  audio: ['data'],
  dtmf: ['digits'],
  ping: ['id'],
  tool_confirm: ['id', 'approved'],
  tool_answer: ['id', 'value'],
  client_tool_result: ['id', 'result', 'error'],
};

/** A value of `key`'s: one of its own (`pick` a number), or any JSON. */
const valueOf = (key: string, pick: unknown) => {
  const values = FIELDS[key] ?? [pick];
  return typeof pick === 'number' ? values[pick % values.length] : pick;
};

/** A client's frame (its JSON text) of any message type, with fields its rules take or refuse. */
export const clientFrame = fc
  .constantFrom(...CLIENT_MESSAGE_TYPES)
  .chain((type) =>
    fc.tuple(
      fc.constant(type),
      fc.subarray(OWN[type] ?? []),
      fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        fc.constantFrom(...Object.keys(FIELDS)),
      ),
      fc.array(fc.oneof({ weight: 4, arbitrary: fc.nat() }, fc.jsonValue({ maxDepth: 2 })), {
        minLength: 16,
        maxLength: 16,
      }),
    ),
  )
  .map(([type, own, foreign, picks]) => {
    const keys = foreign === null ? own : [...own, foreign];
    const fields = keys.map((key, i) => [key, valueOf(key, picks[i])]);
    return JSON.stringify({ type, ...Object.fromEntries(fields) });
  });
