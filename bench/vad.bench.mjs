// Voice activity detection's cost (VAD_SILENCE_MS): the detector (WebRTC's VAD in WebAssembly and
// the utterance logic) on a caller's line — silence, a spoken sentence, silence — fed in 20 ms
// frames as a microphone sends them. Prints µs per frame and the share of one core that one caller
// streaming without end takes. Run: npm run bench:vad.
import { readFileSync } from 'node:fs';
import { UtteranceDetector } from '../dist/speech/utterance-detector.js';
import { webRtcVad } from '../dist/speech/webrtc-vad.js';

const speech = readFileSync('test/fixtures/audio/speech-16k.pcm');
const line = Buffer.concat([Buffer.alloc(32_000), speech, Buffer.alloc(32_000)]);
const vad = await webRtcVad(2);
const detector = new UtteranceDetector(vad, { silenceMs: 500, minSpeechMs: 200, maxBytes: 1e9 });
const feed = (times) => {
  let frames = 0;
  for (let i = 0; i < times; i++)
    for (let at = 0; at < line.length; at += 640, frames++) detector.push(line.subarray(at, at + 640));
  return frames;
};
feed(50); // warm up
const rounds = [];
for (let r = 0; r < 5; r++) {
  const started = performance.now();
  const frames = feed(100);
  rounds.push(((performance.now() - started) * 1000) / frames);
}
rounds.sort((a, b) => a - b);
const perFrame = rounds[2];
console.log(`VAD + utterance detection: ${perFrame.toFixed(2)} µs per 20 ms frame (median of 5 rounds; ${rounds.map((r) => r.toFixed(2)).join(', ')})`);
console.log(`one caller streaming without end: ${((perFrame / 20_000) * 100).toFixed(3)}% of a core; real-time factor ${(perFrame / 20_000).toFixed(5)}`);
vad.close();
