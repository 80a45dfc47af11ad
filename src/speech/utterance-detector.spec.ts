import { readFileSync } from 'node:fs';
import { FRAME_SAMPLES, UtteranceDetector, type VoiceActivity } from './utterance-detector.js';
import { webRtcVad, type WebRtcVad } from './webrtc-vad.js';

const FRAME = FRAME_SAMPLES * 2;
const ms = (n: number) => Buffer.alloc((n / 20) * FRAME);
/** A spoken sentence, 16 kHz (test/fixtures/audio/make-speech.mjs). */
const SPEECH = readFileSync('test/fixtures/audio/speech-16k.pcm');
const LIMITS = { silenceMs: 500, minSpeechMs: 200, maxBytes: 30 * 32_000 };

/** Feeds `audio` in pieces of the given sizes (cycled); every event, in order. */
function detect(detector: UtteranceDetector, audio: Buffer, sizes = [audio.length]) {
  const events = [];
  for (let at = 0, i = 0; at < audio.length; i++) {
    const size = sizes[i % sizes.length]!;
    events.push(...detector.push(audio.subarray(at, at + size)));
    at += size;
  }
  return events;
}

describe('UtteranceDetector, with WebRTC’s VAD', () => {
  let vad: WebRtcVad;
  beforeEach(async () => {
    vad = await webRtcVad(2);
  });
  afterEach(() => vad.close());

  it('finds the sentence in a quiet line, with a short lead and the silence that ended it', () => {
    const line = Buffer.concat([ms(2000), SPEECH, ms(1000)]);
    const events = detect(new UtteranceDetector(vad, LIMITS), line);
    expect(events.map((e) => e.type)).toEqual(['speech_started', 'utterance']);
    const { pcm, cut } = events[1] as { pcm: Buffer; cut: boolean };
    expect(cut).toBe(false);
    // All of the speech is in it, from its first sample to its last …
    expect(pcm.indexOf(SPEECH)).toBeGreaterThanOrEqual(0);
    // … but not the two seconds of silence before it, nor the whole second after.
    expect(pcm.length).toBeLessThan(SPEECH.length + 32_000);
  });

  it('hears the same however the audio is cut into frames', async () => {
    const line = Buffer.concat([ms(400), SPEECH, ms(800), SPEECH, ms(600)]);
    const whole = detect(new UtteranceDetector(vad, LIMITS), line);
    expect(whole.map((e) => e.type)).toEqual([
      'speech_started',
      'utterance',
      'speech_started',
      'utterance',
    ]);
    for (const sizes of [[2], [640], [333, 1001, 7], [4096, 16]]) {
      const fresh = await webRtcVad(2); // a detector's state is its own
      try {
        expect(detect(new UtteranceDetector(fresh, LIMITS), line, sizes)).toEqual(whole);
      } finally {
        fresh.close();
      }
    }
  });

  it('takes neither silence nor steady noise for speech', () => {
    let seed = 7;
    const noise = Buffer.alloc(3 * 32_000);
    for (let i = 0; i < noise.length; i += 2) {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      noise.writeInt16LE(((seed % 601) - 300) | 0, i);
    }
    const detector = new UtteranceDetector(vad, LIMITS);
    expect(detect(detector, Buffer.concat([ms(1000), noise, ms(1000)]))).toEqual([]);
    expect(detector.end()).toBeUndefined();
  });
});

/** Voiced frames are those whose first sample is not 0. */
const marked: VoiceActivity = { voiced: (frame) => frame[0] !== 0 };
const voice = (msLong: number) => {
  const audio = ms(msLong);
  for (let at = 0; at < audio.length; at += FRAME) audio.writeInt16LE(1000, at);
  return audio;
};

describe('UtteranceDetector', () => {
  it('needs enough speech before the user counts as speaking', () => {
    const detector = new UtteranceDetector(marked, LIMITS);
    // 100 ms of speech, 100 of silence, 100 more: net 100 ms, not yet 200.
    expect(detect(detector, Buffer.concat([voice(100), ms(100), voice(100)]))).toEqual([]);
    expect(detect(detector, voice(160))).toEqual([{ type: 'speech_started' }]);
    expect(detector.speaking).toBe(true);
  });

  it('ends an utterance at its longest, then hears the next', () => {
    const detector = new UtteranceDetector(marked, { ...LIMITS, maxBytes: 32_000 });
    const events = detect(detector, voice(1500));
    expect(events.map((e) => e.type)).toEqual(['speech_started', 'utterance', 'speech_started']);
    expect(events[1]).toMatchObject({ cut: true });
    expect((events[1] as { pcm: Buffer }).pcm.length).toBeLessThanOrEqual(32_000);
  });

  it('gives the speech so far when the client ends the utterance, and nothing when none was heard', () => {
    const detector = new UtteranceDetector(marked, LIMITS);
    detect(detector, Buffer.concat([ms(100), voice(300)]));
    expect(detector.end()!.length).toBe(ms(400).length);
    expect(detector.speaking).toBe(false);
    expect(detector.end()).toBeUndefined();
  });

  it('takes new settings for the next frames', () => {
    const detector = new UtteranceDetector(marked, LIMITS);
    detect(detector, voice(300));
    detector.configure({ ...LIMITS, silenceMs: 100 });
    expect(detect(detector, ms(100)).map((e) => e.type)).toEqual(['utterance']);
  });
});

describe('UtteranceDetector, the silence that ends an utterance', () => {
  it('says how long the user has been silent when the utterance is known to be over', () => {
    const detector = new UtteranceDetector(marked, LIMITS);
    const [, end] = detect(detector, Buffer.concat([voice(400), ms(600)]));
    expect(end).toMatchObject({ type: 'utterance', cut: false, silenceMs: 500 });
  });
});
