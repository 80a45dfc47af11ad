// `npm run eval` with voice sessions: the user's speech from a file, the engine's transcript and
// its first audio checked, the agent's `say`; a real speech server (fake, on loopback).
import { readFileSync } from 'node:fs';
import { openAiSpeech } from './support/engine.js';
import { useEvalRig } from './support/eval-rig.js';
import { SPEECH, useFakeSpeech } from './support/speech-server.js';
import { wavOf } from '../src/speech/wav.js';

/** SPEECH as a recorder writes it: 48 kHz, stereo (each sample thrice, in both channels). */
function recorded(): Buffer {
  const samples = SPEECH.length / 2;
  const out = Buffer.alloc(samples * 3 * 4);
  for (let i = 0; i < samples; i++) {
    const v = SPEECH.readInt16LE(2 * i);
    for (let k = 0; k < 3; k++) {
      out.writeInt16LE(v, 4 * (3 * i + k));
      out.writeInt16LE(v, 4 * (3 * i + k) + 2);
    }
  }
  const wav = wavOf(out, 48_000);
  wav.writeUInt16LE(2, 22);
  wav.writeUInt32LE(48_000 * 4, 28);
  wav.writeUInt16LE(4, 32);
  return wav;
}

/** Bytes of PCM in the WAV a transcription request carried. */
function pcmSent(body: Buffer): number {
  const at = body.indexOf('data', body.indexOf('RIFF'));
  return body.readUInt32LE(at + 4);
}

describe('npm run eval, voice sessions', () => {
  const { speech, url: speechUrl } = useFakeSpeech();
  const rig = useEvalRig(() => openAiSpeech(speechUrl()));
  const { url, write, run } = rig;
  const paris = {
    transcript: 'weather in paris',
    tool_calls: [{ name: 'get_weather', arguments: { city: 'Paris' } }],
    text: 'sunny',
  };

  beforeEach(() => {
    speech.requests.length = 0;
    speech.transcript = 'What is the weather in Paris today?';
    speech.transcripts.length = 0;
  });

  it("sends a file's speech as the engine takes it, checks what it heard, the calls and the first audio", async () => {
    write('paris.wav', recorded());
    write('paris.pcm', SPEECH);
    const scenarios = write('voice.json', {
      scenarios: [
        {
          name: 'greeted, then asked aloud',
          session: { modality: 'voice' },
          turns: [
            { say: 'Hello, this is the front desk.', expect: { max_first_audio_ms: 20_000 } },
            { audio: 'paris.wav', expect: { ...paris, max_first_audio_ms: 20_000 } },
            { user: 'Thanks.', expect: { tool_calls: [], max_first_audio_ms: 20_000 } },
          ],
        },
        {
          // The engine hears the end of the utterance itself; its speech comes as binary frames.
          name: 'voice activity detection',
          session: { modality: 'voice', vad_silence_ms: 500, audio: 'binary' },
          turns: [{ audio: 'paris.pcm', expect: { ...paris, max_first_audio_ms: 20_000 } }],
        },
      ],
    });
    const report = write('voice-report.json', '');
    const { code, out } = await run([scenarios, '--url', url(), '--json', report]);
    expect(out).toContain('PASS  greeted, then asked aloud (1 of 1 run passed)');
    expect(out).toContain('PASS  voice activity detection (1 of 1 run passed)');
    expect(out.trim().split('\n').at(-1)).toMatch(
      /; first text p50 \d+ ms, p90 \d+ ms; first audio p50 \d+ ms, p90 \d+ ms; requests to the model per turn p50 \d, p90 \d$/,
    );
    expect(code).toBe(0);
    // Each utterance reached the recogniser whole, at 16 kHz mono (the WAV's 48 kHz stereo too).
    const sent = speech.requests.filter((r) => r.path === '/audio/transcriptions');
    expect(sent).toHaveLength(2);
    expect(Math.abs(pcmSent(sent[0]!.bytes) - SPEECH.length)).toBeLessThan(640);
    // With voice activity detection, up to the silence that ended it.
    expect(pcmSent(sent[1]!.bytes)).toBeGreaterThanOrEqual(SPEECH.length - 16_000);
    // The greeting was said, and the answers.
    expect(speech.inputs()).toEqual(
      expect.arrayContaining(['Hello, this is the front desk.', 'It is sunny.']),
    );
    const turns = JSON.parse(readFileSync(report, 'utf8')).scenarios[0].runs[0].turns;
    expect(turns[1]).toMatchObject({
      user: '(audio) paris.wav',
      transcript: 'What is the weather in Paris today?',
      text: 'It is sunny.',
      failures: [],
    });
    expect(turns[1].firstAudioMs).toBeGreaterThan(turns[1].firstTextMs);
  }, 60_000);

  it("fails a turn on what the engine heard, its first audio's time, speech it could not hear", async () => {
    write('rome.pcm', SPEECH);
    const scenarios = write('misheard.json', {
      scenarios: [
        {
          name: 'misheard',
          session: { modality: 'voice' },
          turns: [{ audio: 'rome.pcm', expect: { transcript: 'rome' } }],
        },
        {
          name: 'slow speech',
          session: { modality: 'voice' },
          turns: [{ user: 'Hello', expect: { max_first_audio_ms: 1 } }],
        },
        {
          name: 'silence, then typed',
          session: { modality: 'voice' },
          turns: [
            { audio: 'rome.pcm', expect: { error: 'no_speech' } },
            { user: 'What is the weather in Oslo?', expect: { text: 'sunny' } },
          ],
        },
        {
          name: 'silence unexpected',
          session: { modality: 'voice' },
          turns: [{ audio: 'rome.pcm' }],
        },
      ],
    });
    // The recogniser hears Paris once, then nothing in the utterances after.
    speech.transcripts.push('What is the weather in Paris today?', '', '');
    const { code, out } = await run([scenarios, '--url', url(), '--turn-timeout-secs', '10']);
    expect(out).toContain(
      '      turn #0 "(audio) rome.pcm": what the engine heard does not match /rome/i: "What is the weather in Paris today?"',
    );
    expect(out).toMatch(
      /turn #0 "Hello": the first audio came after \d+ ms, over max_first_audio_ms 1\n/,
    );
    expect(out).toContain('PASS  silence, then typed (1 of 1 run passed)');
    expect(out).toMatch(/turn #0 "\(audio\) rome\.pcm": an error: no_speech: /);
    expect(code).toBe(1);
  }, 60_000);

  it('names the turn whose audio file cannot be used', async () => {
    const scenarios = write('no-audio.json', {
      scenarios: [{ name: 'w', turns: [{ audio: 'missing.wav' }] }],
    });
    const { code, err } = await run([scenarios, '--url', url()]);
    expect(err).toContain(
      `${scenarios}: scenario #0 ("w"): turn #0: field 'audio': "missing.wav" cannot be read: ENOENT`,
    );
    expect(code).toBe(2);
  });
});
