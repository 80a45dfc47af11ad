// Worker thread running CPython (Pyodide, WASM) for code tools. Calls from Python into the
// engine (tools.*, ces_requests.*) are synchronous for Python: the worker posts the request and
// blocks on a SharedArrayBuffer (Atomics.wait) until the main thread writes the answer.
import { parentPort, workerData } from 'node:worker_threads';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPyodide } from 'pyodide';

const { control, data, interrupt, packagesDir, bridgeTimeoutMs, memoryMb } = workerData;
const state = new Int32Array(control); // [0] = answer ready flag, [1] = answer length
const bytes = new Uint8Array(data);
const encoder = new TextEncoder();
const decoder = new TextDecoder();
let currentJob = 0;

// CODE_TOOLS_MEMORY_MB as a hard cap while tool code runs: Emscripten grows the interpreter's
// WASM memory through this JS method, and a refused growth is a failed malloc, which Python
// raises as MemoryError. Without it, code could take up to 4 GiB of the engine's memory in one
// call, before the after-call check ever saw it.
const capBytes = (memoryMb ?? 0) * 1024 * 1024;
let capOn = false;
let capped = false;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (delta) {
  if (capOn && capBytes > 0 && this.buffer.byteLength + delta * 65536 > capBytes) {
    capped = true;
    throw new RangeError('CODE_TOOLS_MEMORY_MB reached');
  }
  return grow.call(this, delta);
};

const pyodide = await loadPyodide({ stdout: () => {}, stderr: () => {} });
if (packagesDir) {
  const wheels = readdirSync(packagesDir)
    .filter((f) => f.endsWith('.whl') || f.endsWith('.zip'))
    .map((f) => join(packagesDir, f));
  if (wheels.length)
    await pyodide.loadPackage(wheels, { messageCallback: () => {}, errorCallback: () => {} });
}
pyodide.setInterruptBuffer(new Uint8Array(interrupt));
pyodide.registerJsModule('_engine_bridge', {
  call(requestJson) {
    Atomics.store(state, 0, 0);
    parentPort.postMessage({ type: 'bridge', job: currentJob, request: requestJson });
    if (Atomics.wait(state, 0, 0, bridgeTimeoutMs) === 'timed-out') {
      return JSON.stringify({
        error: 'the engine did not answer in time',
        text: 'Error: tool request failed: timed out',
      });
    }
    return decoder.decode(bytes.slice(0, Atomics.load(state, 1)));
  },
});
for (const file of ['python_runtime.py', 'python_requests.py', 'python_analyze.py', 'python_isolation.py']) {
  pyodide.runPython(readFileSync(new URL(`./${file}`, import.meta.url), 'utf8'), {
    filename: file,
  });
}
const runtime = pyodide.globals;
const entry = {
  run: runtime.get('run_tool'),
  callback: runtime.get('run_callback'),
  analyze: runtime.get('analyze'),
};
const restore = runtime.get('restore');

// Nothing the tool code could reach through the JS side: no network, no process control.
for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource', 'Request'])
  delete globalThis[name];
for (const name of [
  'binding',
  '_linkedBinding',
  'dlopen',
  'kill',
  'chdir',
  'abort',
  'exit',
  'reallyExit',
]) {
  try {
    process[name] = () => {
      throw new Error('not available to code tools');
    };
  } catch {
    /* read-only */
  }
}

parentPort.on('message', (message) => {
  if (message.type !== 'job') return;
  currentJob = message.id;
  capped = false;
  capOn = true;
  let result;
  // Pyodide's own "fatal error" (a JS stack overflow in deep recursion, …): the interpreter must
  // not be used again, and the pool replaces this worker.
  let fatal = false;
  try {
    result = entry[message.kind](JSON.stringify(message.job));
  } catch (error) {
    fatal = error?.pyodide_fatal_error === true;
    result = JSON.stringify({
      ok: false,
      error: `Error: ${error?.type ?? 'RuntimeError'}: ${String(error?.message ?? error)
        .split('\n')
        .slice(-2)
        .join(' ')
        .trim()}`,
    });
  }
  capOn = false;
  // What the call changed in the interpreter (a module's attribute, builtins, sys.path, …) is
  // undone before anyone else's call; an interpreter that cannot be put back is replaced.
  let unrestored = false;
  try {
    restore();
  } catch {
    unrestored = true;
  }
  parentPort.postMessage({
    type: 'result',
    id: message.id,
    result,
    memory: pyodide._module.HEAP8.length,
    capped,
    fatal,
    unrestored,
  });
});
runtime.get('seal')();
parentPort.postMessage({ type: 'ready', memory: pyodide._module.HEAP8.length });
