// Worker thread running eSpeak NG (WASM, from the espeak-ng package) off the main event loop.
// The WASM module is compiled once per worker; each request instantiates it (the package's
// Emscripten build runs its CLI main() once per instance) and returns 16-bit mono PCM.
import { parentPort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ESpeakNg from 'espeak-ng';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('espeak-ng').replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
const compiled = WebAssembly.compile(readFileSync(wasmPath));

function pcmOf(wav) {
  const view = new DataView(wav.buffer, wav.byteOffset, wav.byteLength);
  const sampleRate = view.getUint32(24, true);
  let at = 12;
  while (at + 8 <= wav.length) {
    const id = String.fromCharCode(...wav.subarray(at, at + 4));
    const size = view.getUint32(at + 4, true);
    if (id === 'data') {
      const end = size > 0 && at + 8 + size <= wav.length ? at + 8 + size : wav.length;
      return { sampleRate, pcm: wav.slice(at + 8, end - ((end - at - 8) % 2)) };
    }
    at += 8 + size + (size % 2);
  }
  return { sampleRate, pcm: new Uint8Array(0) };
}

async function synthesize(text, voice) {
  const module = await compiled;
  const errors = [];
  const es = await ESpeakNg({
    arguments: ['-v', voice, '-w', '/out.wav', '-f', '/in.txt'],
    preRun: [(m) => m.FS.writeFile('/in.txt', text)],
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(module, imports).then((instance) => done(instance, module));
      return {};
    },
    print: () => {},
    printErr: (line) => errors.push(line),
  });
  let wav;
  try {
    wav = es.FS.readFile('/out.wav');
  } catch {
    throw new Error(`espeak-ng produced no audio${errors.length ? `: ${errors.join(' ')}` : ''}`);
  }
  return pcmOf(wav);
}

// One sentence at a time, in arrival order: the first sentence is never slowed by the next.
let queue = Promise.resolve();
parentPort.on('message', ({ id, text, voice }) => {
  queue = queue.then(async () => {
    try {
      const { sampleRate, pcm } = await synthesize(text, voice);
      parentPort.postMessage({ id, sampleRate, pcm }, [pcm.buffer]);
    } catch (error) {
      parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});
compiled.then(() => parentPort.postMessage({ ready: true }));
