import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { WorkerMessage } from './worker-reply.js';

const SCRIPT = fileURLToPath(new URL('../../assets/python-sandbox.mjs', import.meta.url));
const PYODIDE_DIR = dirname(createRequire(import.meta.url).resolve('pyodide'));
const PYODIDE_VERSION = (
  JSON.parse(readFileSync(join(PYODIDE_DIR, 'package.json'), 'utf8')) as { version: string }
).version;
/**
 * Pyodide's standard library with its modules compiled (scripts/python-stdlib.mjs, run by the
 * build), which a worker loads in a third of the time the sources take. Without it, Pyodide's own.
 */
export const COMPILED_STDLIB = fileURLToPath(
  new URL(`../../dist/python-stdlib-${PYODIDE_VERSION}.zip`, import.meta.url),
);
/** Node 20 names its permission model experimental; later releases drop the prefix. */
const PERMISSION = process.allowedNodeEnvironmentFlags.has('--permission')
  ? '--permission'
  : '--experimental-permission';
/**
 * The host's time zone database (TZif files: Debian's and Alpine's tzdata, macOS's own), which
 * Python's zoneinfo reads in a code tools process; `TZDIR` names another, as for the C library.
 */
export function zoneinfoDir(env: NodeJS.ProcessEnv = process.env): string | undefined {
  return [env.TZDIR, '/usr/share/zoneinfo'].find((dir) => dir && existsSync(dir));
}
/** What of a process's standard error is kept to say why it failed. */
const STDERR_KEPT = 2000;

export interface SandboxSettings {
  packagesDir: string;
  memoryMb: number;
  /** The standard library's zip to load instead of Pyodide's own (default: COMPILED_STDLIB, if built). */
  stdlib?: string;
  /** The time zone database to read (default: zoneinfoDir(); none: zoneinfo finds no zone). */
  zoneinfo?: string;
}

const unrefStream = (stream: Readable | Writable) =>
  (stream as unknown as { unref?: () => void }).unref?.();

/** One message as a frame: a 4-byte big-endian length, then its JSON. */
export function frame(message: unknown): Buffer {
  return textFrame(JSON.stringify(message));
}

/** A frame of `text` as it is (JSON already). */
function textFrame(text: string): Buffer {
  const body = Buffer.from(text);
  const out = Buffer.allocUnsafe(4 + body.length);
  out.writeUInt32BE(body.length, 0);
  body.copy(out, 4);
  return out;
}

/** A call into the engine, as JSON, that a worker sends at most (python_runtime.py `_REQUEST_LIMIT`). */
const BRIDGE_REQUEST_BYTES = 16 * 1024 * 1024;
/** `print()` output a reply keeps, in characters (python_runtime.py `_LOG_LIMIT`). */
const LOG_CHARS = 32 * 1024;
/**
 * Bytes a character of Python text can take in a frame: an astral one is `\ud83d\ude00` in the
 * runtime's JSON, escaped once more as a string of the frame's.
 */
const FRAME_BYTES_PER_CHAR = 14;
/** The largest frame a worker sends before its first job ("ready"), and the margin of the others. */
const SMALL_FRAME_BYTES = 1024 * 1024;

/**
 * The largest frame a worker running `job` can send: its reply, with its result and state cut as
 * the runtime cuts them (`result_max_chars`, `state_max_chars`; an analysis's reply is bounded by
 * the job itself, `jobBytes`), or a call into the engine. Only a worker whose JavaScript was
 * reached by tool code sends more, and is replaced.
 */
export function frameLimit(job: Record<string, unknown>, jobBytes: number): number {
  const chars = (key: string) => {
    const value = job[key];
    return typeof value === 'number' ? value : 0;
  };
  const reply =
    FRAME_BYTES_PER_CHAR *
    (chars('result_max_chars') + chars('state_max_chars') + LOG_CHARS + jobBytes);
  return SMALL_FRAME_BYTES + Math.max(2 * BRIDGE_REQUEST_BYTES, reply);
}

/**
 * Cuts a byte stream into the messages of its frames. The chunks of a large frame are joined once,
 * when all of it has come; a frame longer than `maxBytes` is refused as soon as its length is read
 * (it throws), before any of it is held. Pure.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private size = 0;
  /** The bytes the next frame needs: its length's 4, then all of it once that is known. */
  private wanted = 4;

  constructor(public maxBytes = SMALL_FRAME_BYTES) {}

  push(chunk: Buffer): unknown[] {
    this.chunks.push(chunk);
    this.size += chunk.length;
    const messages: unknown[] = [];
    while (this.size >= this.wanted) {
      let bytes = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
      const length = 4 + bytes.readUInt32BE(0);
      if (length - 4 > this.maxBytes)
        throw new Error(`a frame of ${length - 4} bytes, over the ${this.maxBytes} its job allows`);
      if (bytes.length >= length) {
        messages.push(JSON.parse(bytes.subarray(4, length).toString('utf8')));
        bytes = bytes.subarray(length);
      }
      this.chunks = bytes.length > 0 ? [bytes] : [];
      this.size = bytes.length;
      const next = this.size >= 4 ? 4 + bytes.readUInt32BE(0) : 4;
      // One too long is refused at once: the loop comes round to it.
      this.wanted = next - 4 > this.maxBytes ? 4 : next;
    }
    return messages;
  }
}

/** The command line a code tools process is started with: the permission model's grants. */
export function sandboxArgs(given: SandboxSettings): string[] {
  // A relative CODE_TOOLS_PACKAGES_DIR is the engine's working directory's, granted as such.
  const stdlib = given.stdlib ?? (existsSync(COMPILED_STDLIB) ? COMPILED_STDLIB : undefined);
  const zoneinfo = 'zoneinfo' in given ? given.zoneinfo : zoneinfoDir();
  const settings = {
    ...given,
    packagesDir: given.packagesDir && resolve(given.packagesDir),
    ...(stdlib && { stdlib: resolve(stdlib) }),
    // Its real path: macOS's is a link to /var/db/timezone/zoneinfo, NixOS's into its store.
    zoneinfo: zoneinfo && realpathSync(zoneinfo),
  };
  const reads = [
    dirname(SCRIPT),
    PYODIDE_DIR,
    ...(settings.packagesDir ? [settings.packagesDir] : []),
    ...(settings.stdlib ? [settings.stdlib] : []),
    ...(settings.zoneinfo ? [settings.zoneinfo] : []),
  ];
  return [
    PERMISSION,
    ...reads.map((path) => `--allow-fs-read=${path}`),
    '--disallow-code-generation-from-strings',
    '--no-warnings',
    SCRIPT,
    pathToFileURL(join(PYODIDE_DIR, 'pyodide.mjs')).href,
    JSON.stringify(settings),
  ];
}

/**
 * A process running one CPython (Pyodide) for code tools (assets/python-sandbox.mjs), with no
 * environment but `TZ`: tool code that reaches its JavaScript finds no key, and Node's permission
 * model keeps it from the engine's files, memory and processes. It holds the engine's process open only
 * while it loads or runs a job (`busy`); it exits when the engine does (its input ends).
 */
export class SandboxProcess {
  private readonly child: ChildProcess;
  private readonly output: Readable;
  private readonly input: Writable;
  private readonly interrupts: Writable;
  private readonly reader = new FrameReader();
  private stderr = '';
  private killed = false;

  constructor(
    settings: SandboxSettings,
    onMessage: (message: WorkerMessage) => void,
    /** The process failed or exited without being asked to: why. */
    onFailure: (why: string) => void,
  ) {
    this.child = spawn(process.execPath, sandboxArgs(settings), {
      // No key of the engine's; its time zone, so that Python's local time is the engine's.
      env: process.env.TZ ? { TZ: process.env.TZ } : {},
      // Its standard input carries the ids of jobs to interrupt; fds 3 and 4 the frames.
      stdio: ['pipe', 'ignore', 'pipe', 'pipe', 'pipe'],
    });
    const [interrupts, , stderr, output, input] = this.child.stdio as unknown as [
      Writable,
      null,
      Readable,
      Readable,
      Writable,
    ];
    this.output = output;
    this.input = input;
    this.interrupts = interrupts;
    output.on('data', (chunk: Buffer) => {
      let messages: unknown[];
      try {
        messages = this.reader.push(chunk);
      } catch (error) {
        // Not the frames its script writes (tool code reached its JavaScript): the process is
        // not to be trusted with another job, nor what it sends held.
        this.failed(`it sent what is not a message: ${(error as Error).message}`, onFailure);
        this.child.kill('SIGKILL');
        return;
      }
      for (const message of messages) onMessage(message as WorkerMessage);
    });
    stderr.setEncoding('utf8');
    stderr.on('data', (text: string) => (this.stderr = (this.stderr + text).slice(-STDERR_KEPT)));
    // A write to a process that just ended: its exit is what reports it.
    for (const stream of [input, interrupts, output, stderr]) stream.on('error', () => undefined);
    this.child.on('error', (error) => this.failed(error.message, onFailure));
    this.child.on('exit', (code, signal) =>
      this.failed(`its process exited (${signal ?? `code ${code}`})`, onFailure),
    );
    this.child.unref();
    for (const stream of [stderr, input, interrupts]) unrefStream(stream);
  }

  /** Its process id (undefined if it could not be started). */
  get pid(): number | undefined {
    return this.child.pid;
  }

  /** Whether the engine's process waits for this one (loading, a job running). */
  set busy(yes: boolean) {
    const handle = this.output as unknown as { ref?: () => void; unref?: () => void };
    if (yes) handle.ref?.();
    else handle.unref?.();
  }

  /** Sends a message; a job's sets the largest frame taken from the process while it runs. */
  send(message: { type: string; job?: Record<string, unknown>; [key: string]: unknown }): void {
    const bytes = frame(message);
    if (message.job) this.reader.maxBytes = frameLimit(message.job, bytes.length);
    this.input.write(bytes);
  }

  /**
   * Sends the answer to the call into the engine the process waits for: its JSON as the frame's
   * body, read as it is (not escaped into another message, which would double a large one).
   */
  answer(json: string): void {
    this.input.write(textFrame(json));
  }

  /** Asks the process to interrupt job `id` (KeyboardInterrupt), if it is the one running. */
  interrupt(id: number): void {
    const bytes = Buffer.allocUnsafe(4);
    bytes.writeUInt32BE(id, 0);
    this.interrupts.write(bytes);
  }

  /** Ends the process; resolves once it has exited. */
  kill(): Promise<void> {
    this.killed = true;
    const { pid, exitCode, signalCode } = this.child;
    if (pid === undefined || exitCode !== null || signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    return exited;
  }

  private failed(why: string, onFailure: (why: string) => void): void {
    if (this.killed) return;
    this.killed = true;
    // What Node printed of an uncaught error: its first line ("Error: ENOENT: …").
    const said = this.stderr.split('\n').find((line) => /^\w*Error\b/.test(line)) ?? '';
    onFailure(said ? `${why}: ${said}` : why);
  }
}
