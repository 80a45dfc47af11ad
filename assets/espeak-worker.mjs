// Worker thread running eSpeak NG (WASM, from the espeak-ng package) off the main event loop.
// The module is compiled and instantiated once. Its initialised memory is kept as a snapshot;
// each sentence restores it (so the C program's globals start fresh), then calls the program's
// main() with new arguments. Output: 16-bit mono PCM.
import { parentPort } from 'node:worker_threads';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import ESpeakNg from 'espeak-ng';

const require = createRequire(import.meta.url);
const wasmPath = require.resolve('espeak-ng').replace(/espeak-ng\.js$/, 'espeak-ng.wasm');
const encoder = new TextEncoder();
let stderr = [];

const ready = (async () => {
  const module = await WebAssembly.compile(readFileSync(wasmPath));
  let exports;
  const runtime = await ESpeakNg({
    noInitialRun: true,
    instantiateWasm: (imports, done) => {
      WebAssembly.instantiate(module, imports).then((instance) => {
        exports = instance.exports;
        done(instance, module);
      });
      return {};
    },
    print: () => {},
    printErr: (line) => stderr.push(line),
  });
  return { runtime, exports, pristine: new Uint8Array(exports.memory.buffer).slice() };
})();

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

/** argv for main(), allocated in the program's own heap (after the restore). */
function argvOf(exports, args) {
  const pointers = args.map((arg) => {
    const bytes = encoder.encode(`${arg}\0`);
    const at = exports.malloc(bytes.length);
    new Uint8Array(exports.memory.buffer).set(bytes, at);
    return at;
  });
  const argv = exports.malloc((pointers.length + 1) * 4);
  const view = new DataView(exports.memory.buffer);
  pointers.forEach((p, i) => view.setUint32(argv + i * 4, p, true));
  view.setUint32(argv + pointers.length * 4, 0, true);
  return argv;
}

async function synthesize(text, voice) {
  const { runtime, exports, pristine } = await ready;
  const memory = new Uint8Array(exports.memory.buffer);
  memory.set(pristine);
  if (memory.length > pristine.length) memory.fill(0, pristine.length);
  runtime.FS.writeFile('/in.txt', text);
  try {
    runtime.FS.unlink('/out.wav');
  } catch {
    /* first sentence */
  }
  stderr = [];
  const args = ['espeak-ng', '-v', voice, '-w', '/out.wav', '-f', '/in.txt'];
  const argv = argvOf(exports, args);
  const stack = exports.stackSave();
  try {
    exports.__main_argc_argv(args.length, argv);
  } catch {
    /* exit(n): reported through stderr below */
  } finally {
    exports.stackRestore(stack);
  }
  let wav;
  try {
    wav = runtime.FS.readFile('/out.wav');
  } catch {
    const detail = stderr.filter((l) => !l.startsWith('program exited')).join(' ');
    throw new Error(`espeak-ng produced no audio${detail ? `: ${detail}` : ''}`);
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
ready.then(() => parentPort.postMessage({ ready: true }));
