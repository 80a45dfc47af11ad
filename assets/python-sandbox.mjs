// A process of its own running CPython (Pyodide, WASM) for code tools, started by the engine's
// pool (src/code-tools/sandbox-process.ts) under Node's permission model: it reads Pyodide's
// files, these Python files, CODE_TOOLS_PACKAGES_DIR and the host's time zone database alone,
// writes no file, starts no process
// or thread, loads no native code, compiles no JavaScript from strings, and has no environment.
// Messages are frames (a 4-byte big-endian length, then JSON): jobs and the answers to calls
// into the engine (the answer's own JSON as the body) come on fd 4, read blocking; what it sends
// goes out on fd 3; the ids of jobs to interrupt come on its standard input, polled while Python
// runs. Once loaded it runs one job at a time, synchronously: no JavaScript of a job's runs after
// it (no timer, no promise).
import { constants, readFileSync, readdirSync, readSync, writeSync } from 'node:fs';
import dgram from 'node:dgram';
import dns from 'node:dns';
import net from 'node:net';
import { join } from 'node:path';

/** Where the time zone database is mounted (python_isolation.py leaves it out of its scans). */
const ZONEINFO = '/usr/share/zoneinfo';
const OUT = 3;
const IN = 4;
const INTERRUPTS = 0;
const [pyodideUrl, settingsJson] = process.argv.slice(2);
const { packagesDir, memoryMb, stdlib, zoneinfo } = JSON.parse(settingsJson);
// Kept before process control is taken from tool code (below): the way out when the engine is gone.
const reallyExit = process.reallyExit;

/** Writes one frame to the engine (blocking: the engine reads it whenever it can). */
function send(message) {
  const body = Buffer.from(JSON.stringify(message));
  const frame = Buffer.allocUnsafe(4 + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, 4);
  for (let at = 0; at < frame.length; ) at += writeSync(OUT, frame, at);
}

function readExactly(length) {
  const buffer = Buffer.allocUnsafe(length);
  for (let at = 0; at < length; ) {
    const n = readSync(IN, buffer, at, length - at, null);
    if (n === 0) reallyExit.call(process, 0); // the engine is gone
    at += n;
  }
  return buffer;
}

/** The body of the engine's next frame, waiting for it. */
function receiveText() {
  return readExactly(readExactly(4).readUInt32BE(0)).toString('utf8');
}

// Standard input made non-blocking (Node opens it so, and reads it only when asked), so that it
// can be polled. (A socket of its own on another fd would need the network, which the permission
// model of Node 25 and later refuses.)
void process.stdin;
const interruptIds = Buffer.alloc(256);
let currentJob = 0;
let lastPoll = 0;
/** Whether the engine asked to interrupt the running job (ids of other jobs are stale). */
function interrupted() {
  let hit = false;
  for (;;) {
    let n;
    try {
      n = readSync(INTERRUPTS, interruptIds, 0, interruptIds.length, null);
    } catch {
      return hit; // EAGAIN: nothing more
    }
    if (n <= 0) return hit;
    for (let i = 0; i + 4 <= n; i += 4) if (interruptIds.readUInt32BE(i) === currentJob) hit = true;
  }
}

// CODE_TOOLS_MEMORY_MB as a hard cap while tool code runs: Emscripten grows the interpreter's
// WASM memory through this JS method, and a refused growth is a failed malloc, which Python
// raises as MemoryError.
const capBytes = (memoryMb ?? 0) * 1024 * 1024;
let capOn = false;
let capped = false;
/** The job took the process past its memory (rssCap, below): it is stopped. */
let overMemory = false;
const grow = WebAssembly.Memory.prototype.grow;
WebAssembly.Memory.prototype.grow = function (delta) {
  if (capOn && capBytes > 0 && this.buffer.byteLength + delta * 65536 > capBytes) {
    capped = true;
    throw new RangeError('CODE_TOOLS_MEMORY_MB reached');
  }
  return grow.call(this, delta);
};

// Pyodide's file system reads the flags' values through process.binding, which the permission
// model refuses: they are given, nothing else.
process.binding = (name) => {
  if (name === 'constants') return { fs: constants };
  throw new Error('not available to code tools');
};

const { loadPyodide } = await import(pyodideUrl);
// Python's input() gets the end of its input: standard input is the engine's interrupts.
// The standard library compiled at build time, if given (scripts/python-stdlib.mjs).
const pyodide = await loadPyodide({
  stdin: () => null,
  stdout: () => {},
  stderr: () => {},
  ...(stdlib && { stdLibURL: stdlib }),
});
// Python's zoneinfo reads the host's time zone database where it looks first (zoneinfo.TZPATH):
// mounted, read as Python reads it, and never written (the permission model refuses it).
if (zoneinfo) {
  // What the permission model refuses (writing there) is PermissionError to Python, where
  // Emscripten, not knowing the code, made it a success.
  pyodide.ERRNO_CODES.ERR_ACCESS_DENIED = pyodide.ERRNO_CODES.EACCES;
  pyodide.FS.mkdirTree(ZONEINFO);
  pyodide.FS.mount(pyodide.FS.filesystems.NODEFS, { root: zoneinfo }, ZONEINFO);
}
if (packagesDir) {
  const wheels = readdirSync(packagesDir)
    .filter((f) => f.endsWith('.whl') || f.endsWith('.zip'))
    .map((f) => join(packagesDir, f));
  if (wheels.length)
    await pyodide.loadPackage(wheels, { messageCallback: () => {}, errorCallback: () => {} });
}
// Python checks this "buffer" every few bytecodes: 2 (SIGINT) raises KeyboardInterrupt. At most
// every 2 ms, it reads the interrupts sent, and holds the process's memory to what it took once
// loaded plus the cap: files the code writes live in JavaScript's memory, not the interpreter's
// (a 1 GB file took 2 GB).
const rssCap = capBytes > 0 ? process.memoryUsage.rss() + capBytes : Infinity;
pyodide.setInterruptBuffer({
  get 0() {
    const now = performance.now();
    if (now - lastPoll < 2) return 0;
    lastPoll = now;
    if (capOn && process.memoryUsage.rss() > rssCap) overMemory = true;
    return interrupted() || overMemory ? 2 : 0;
  },
  set 0(_) {},
});
// Calls into the engine, each numbered: its answer comes as `<seq>\n<answer JSON>` (the JSON for
// Python to parse). Async code has several out at once (start), and its event loop waits for the
// next answer (next); a wake-up it asked for, or an interrupt, comes as `<seq>\n` with nothing after.
let lastSeq = 0;
/** Answers that came while another was waited for, by number, until asked for. */
const early = new Map();
function receiveAnswer() {
  const text = receiveText();
  const cut = text.indexOf('\n');
  return { seq: Number(text.slice(0, cut)), text: text.slice(cut + 1) };
}
function start(requestJson) {
  send({ type: 'bridge', job: currentJob, request: requestJson, seq: ++lastSeq });
  return lastSeq;
}
pyodide.registerJsModule('_engine_bridge', {
  /**
   * Sends a request and waits for its answer; given up for the engine's interrupt, not yet seen by
   * Python's check (which cannot run while this waits): `{"interrupted":true}`.
   */
  call(requestJson) {
    const seq = start(requestJson);
    for (;;) {
      const answer = early.get(seq) ?? receiveAnswer();
      early.delete(seq);
      if (answer.seq === seq) return answer.text;
      if (answer.text) early.set(answer.seq, answer);
      else if (answer.seq === 0 && interrupted()) return '{"interrupted":true}';
    }
  },
  start,
  /**
   * The next answer to a request started (`<seq>\n<answer>`), waiting up to `ms` for it (forever
   * when negative); '' when none came; '!' for the engine's interrupt, not yet seen by Python's
   * check (which may not come before the loop waits again).
   */
  next(ms) {
    for (const [seq, answer] of early) {
      early.delete(seq);
      return `${seq}\n${answer.text}`;
    }
    if (ms === 0) return '';
    const wake = ms > 0 ? ++lastSeq : -1;
    if (ms > 0) send({ type: 'wake', job: currentJob, seq: wake, ms });
    for (;;) {
      const answer = receiveAnswer();
      if (answer.text) return `${answer.seq}\n${answer.text}`;
      if (answer.seq === 0) return interrupted() ? '!' : '';
      if (answer.seq === wake) return '';
    }
  },
});
const RUNTIME = [
  'python_values.py',
  'python_runtime.py',
  'python_user.py',
  'python_arguments.py',
  'python_bodies.py',
  'python_response.py',
  'python_requests.py',
  'python_session.py',
  'python_urllib.py',
  'python_httpx.py',
  'python_asyncio.py',
  'python_threads.py',
  'python_aiohttp_errors.py',
  'python_aiohttp.py',
  'python_analyze.py',
  'python_analyze_records.py',
  'python_isolation.py',
];
for (const file of RUNTIME) {
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

// What the permission model leaves open, closed here: no network (Node's sockets, Pyodide's
// socket layer over them, name lookups), no built-in module by name, no process control.
const refuse = () => {
  throw new Error('not available to code tools');
};
for (const name of ['fetch', 'WebSocket', 'XMLHttpRequest', 'EventSource', 'Request'])
  delete globalThis[name];
net.Socket.prototype.connect = refuse;
net.Server.prototype.listen = refuse;
for (const method of ['bind', 'connect', 'send']) dgram.Socket.prototype[method] = refuse;
for (const name of ['lookup', 'lookupService', 'resolve', 'resolve4', 'resolve6', 'reverse'])
  dns[name] = refuse;
dns.promises.lookup = refuse;
dns.promises.resolve = refuse;
pyodide.useNodeSockFS = refuse;
pyodide._api.initializeNodeSockFS = refuse;
for (const name of ['getBuiltinModule', 'dlopen', 'kill', 'chdir', 'abort', 'exit', 'reallyExit'])
  try {
    process[name] = refuse;
  } catch {
    /* read-only */
  }

runtime.get('seal')();
send({ type: 'ready', memory: pyodide._module.HEAP8.length });
for (;;) {
  const text = receiveText();
  // An answer or wake-up that came after its job ended (`<seq>\n…`): a job is a JSON object.
  if (!text.startsWith('{')) continue;
  const message = JSON.parse(text);
  if (message.type !== 'job') continue;
  currentJob = message.id;
  early.clear();
  capped = false;
  overMemory = false;
  capOn = true;
  let result;
  // Pyodide's own "fatal error" (a JS stack overflow in deep recursion, …): the interpreter must
  // not be used again, and the pool replaces this process.
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
  send({
    type: 'result',
    id: message.id,
    result,
    memory: pyodide._module.HEAP8.length,
    capped: capped || overMemory,
    overMemory,
    fatal,
  });
  // What the call changed in the interpreter (a module's attribute, builtins, sys.path, …) is
  // undone before anyone else's call (the engine sends none before it hears so), after its result
  // is on its way: the caller does not wait for it. An interpreter that cannot be put back is
  // replaced.
  let unrestored = false;
  try {
    restore();
  } catch {
    unrestored = true;
  }
  send({ type: 'restored', id: message.id, unrestored });
}
