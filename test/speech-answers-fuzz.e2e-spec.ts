import fc from 'fast-check';
import { wavOf } from '../src/speech/wav.js';
import { answersOn, useLoopback } from './support/calls-answered.js';
import { chaosOptions, FAULT_WORDS } from './support/chaos-checks.js';
import { sseText } from './support/fake-llm.js';
import { anyBodies, ok, RawService, replies } from './support/raw-http.js';
import { SPEECH } from './support/speech-server.js';
import { useEngineRig } from './support/turn-harness.js';
import { voiceSession, type Msg, type WsClient } from './support/ws-client.js';

/** What no error told to the client should be: a fault's words, or a value never given. */
const FAULTS = new RegExp(`${FAULT_WORDS.source}|undefined`);

/** What a TTS server may send: raw PCM (whole samples or not), a WAV, MP3, JSON, pages, any. */
const speechBodies = fc.oneof(
  fc.nat({ max: 48_000 }).map((n) => Buffer.alloc(n, 7)),
  fc.nat({ max: 4800 }).map((n) => wavOf(Buffer.alloc(n * 2, 9), 24_000)),
  fc.constant(Buffer.from('RIFF\u0010\u0000\u0000\u0000WAVEfmt ')),
  fc.constant(Buffer.from('ID3\u0004'.repeat(100))),
  anyBodies,
);
const speechTypes = [
  'audio/pcm',
  'audio/wav',
  'audio/L16;rate=24000',
  'audio/mpeg',
  'text/html',
  'application/json',
  'application/octet-stream',
  '',
];

/** What a speech-to-text server may send: its JSON right or wrong, text, pages, any. */
const transcriptBodies = fc.oneof(
  fc
    .record(
      {
        text: fc.oneof(
          fc.string({ maxLength: 40 }),
          fc.constant('half \ud800 a character'),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        language: fc.oneof(
          fc.constantFrom('english', 'es', 'klingon'),
          fc.jsonValue({ maxDepth: 1 }),
        ),
      },
      { requiredKeys: [] },
    )
    .map((v) => Buffer.from(JSON.stringify(v))),
  fc
    .constantFrom('What is the weather?', '  ', '{"text": "cut', '<html>Sign in</html>')
    .map((t) => Buffer.from(t)),
  anyBodies,
);
const transcriptTypes = [
  'application/json',
  'text/plain',
  'text/html; charset=utf-8',
  'application/octet-stream',
  '',
];

/**
 * A turn's end: not the second `assistant_end` (`heard`) of the one before, whose audio a message
 * of this run cut while it played.
 */
const ends = (m: Msg) => m.type === 'assistant_end' && m.heard === undefined;

/**
 * A refusal (not tried again, as a 5xx would be, then answered as usual): each fuzz's first
 * examples, with a sound answer, meet both its outcomes.
 */
const REFUSED = {
  status: '400 Bad Request',
  headers: [['Content-Type', 'text/plain']] as [string, string][],
  body: Buffer.from('unsupported input'),
  length: 'right' as const,
};
/** Each outcome at least once, however few runs the time limit lets through. */
const withExamples = <T>(examples: T[]) => ({
  ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 30)),
  examples: examples.map((example) => [example] as [T]),
});

/**
 * The audio of a turn from `from` on (its `audio_end` come): in order, whole 16-bit samples; the
 * errors of the turn, each of `code`, told as a client can read them.
 */
async function heardOut(ws: WsClient, from: number, code: string): Promise<Msg[]> {
  const end = await ws.waitFor(ends, from, 15_000);
  await ws.waitFor((m) => m.type === 'audio_end', ws.messages.indexOf(end), 15_000);
  const events = ws.messages.slice(from);
  const audio = events.filter((m) => m.type === 'audio');
  expect(audio.map((m) => m.seq)).toEqual(audio.map((_, i) => i));
  for (const m of audio) expect(Buffer.from(m.data as string, 'base64').length % 2).toBe(0);
  const errors = events.filter((m) => m.type === 'error');
  for (const error of errors) {
    expect(error.code).toBe(code);
    expect(error.message).not.toMatch(FAULTS);
  }
  return errors;
}

/**
 * Random answers of the speech servers, byte for byte (statuses, types, encodings right or wrong,
 * lengths that lie, connections cut; audio whole or not, WAV, MP3, JSON right or wrong, pages):
 * each turn is spoken or said failed (`tts_failed`, `stt_failed`, `no_speech`), never with an
 * error inside; the audio sent is whole samples in order; the session answers on.
 */
describe('random answers of the speech servers', () => {
  const tts = new RawService();
  const stt = new RawService();
  tts.usual = () => ok('audio/pcm', Buffer.alloc(4800, 7));
  stt.usual = () => ok('application/json', '{"text":"What is the weather?"}');
  const ttsBase = useLoopback(tts.server);
  const sttBase = useLoopback(stt.server);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    TTS_PROVIDER: 'openai',
    TTS_BASE_URL: ttsBase(),
    STT_BASE_URL: sttBase(),
    TTS_TIMEOUT_SECS: '2',
    STT_TIMEOUT_SECS: '2',
    SPEECH_AUDIO_LEAD_MS: '0',
    // Each answer synthesised: none kept from an earlier run.
    TTS_CACHE_MB: '0',
  }));

  it('speak each answer, or say its speech failed', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const outcomes = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(
          fc.array(replies(speechTypes, speechBodies), { minLength: 1, maxLength: 2 }),
          async (answers) => {
            rig.llm.reset();
            tts.replies.splice(0, Infinity, ...answers);
            rig.llm.enqueue(sseText(['Hello there. ', 'Goodbye for now.']));
            const from = ws.messages.length;
            ws.send({ type: 'user_text', text: 'hi' });
            const errors = await heardOut(ws, from, 'tts_failed');
            for (const error of errors)
              expect(error.message).toMatch(/^speech synthesis failed: \S/);
            expect(ws.messages.slice(from).find(ends)).toMatchObject({
              text: 'Hello there. Goodbye for now.',
            });
            outcomes.add(errors.length ? 'failed' : 'spoken');
          },
        ),
        withExamples([[ok('audio/pcm', Buffer.alloc(4800, 7))], [REFUSED]]),
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect([...outcomes].sort()).toEqual(['failed', 'spoken']);
  }, 240_000);

  it('answer each utterance heard, or say it was not', async () => {
    const ws = await voiceSession(rig.engine.wsUrl);
    const outcomes = new Set<string>();
    try {
      await fc.assert(
        fc.asyncProperty(replies(transcriptTypes, transcriptBodies), async (answer) => {
          rig.llm.reset();
          rig.llm.fallback = () => sseText(['Fine.']);
          stt.replies.splice(0, Infinity, answer);
          // Spoken as usual (a synthesis the last test's run left unasked is not answered here).
          tts.replies.length = 0;
          const from = ws.messages.length;
          for (let at = 0; at < SPEECH.length; at += 3200)
            ws.socket.send(SPEECH.subarray(at, at + 3200), { binary: true });
          ws.send({ type: 'audio_end' });
          const told = await ws.waitFor(
            (m) => m.type === 'transcript' || m.type === 'error',
            from,
            15_000,
          );
          if (told.type === 'error') {
            expect(told.code).toBe('stt_failed');
            expect(told.message).not.toMatch(FAULTS);
            // The caller is asked to say it again.
            const errors = await heardOut(ws, from, 'stt_failed');
            expect(errors).toHaveLength(1);
            outcomes.add('not heard');
          } else if (told.text === '') {
            expect(await ws.waitFor((m) => m.type === 'error', from)).toMatchObject({
              code: 'no_speech',
            });
            outcomes.add('nothing said');
          } else {
            expect(told.text).toBe((told.text as string).trim());
            expect(await heardOut(ws, from, 'none')).toEqual([]);
            expect(rig.llm.requests.at(-1)!.body.messages.at(-1)).toMatchObject({
              role: 'user',
              content: told.text,
            });
            outcomes.add('answered');
          }
        }),
        withExamples([ok('application/json', '{"text":"What is the weather?"}'), REFUSED]),
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect(outcomes).toContain('answered');
    expect(outcomes).toContain('not heard');
  }, 240_000);
});
