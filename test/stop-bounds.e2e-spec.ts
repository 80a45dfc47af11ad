import { spawn } from 'node:child_process';
import { createServer, connect, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { ENGINE_NODE, runBuiltEngine } from './support/built-engine.js';
import { sseText, sseTextWithUsage, useFakeLlm } from './support/fake-llm.js';
import { WsClient } from './support/ws-client.js';
import { childPids } from './support/processes.js';

/** A TCP connection to the engine at `url`, having sent `bytes` (perhaps nothing). */
async function openConnection(url: string, bytes: string): Promise<Socket> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  await once(socket, 'connect');
  if (bytes) socket.write(bytes);
  return socket;
}

/** Everything `socket` reads until it closes. */
function readAll(socket: Socket): Promise<string> {
  let text = '';
  socket.on('data', (d: Buffer) => (text += d.toString()));
  socket.on('error', () => undefined); // a reset is a close here
  return new Promise((done) => socket.on('close', () => done(text)));
}

/** Takes connections and never answers (a frozen collector or receiver, packets dropped). */
class SilentServer {
  private readonly held: Socket[] = [];
  private readonly server = createServer((socket) => this.held.push(socket));
  get connections(): number {
    return this.held.length;
  }
  /** Listens (once: the same server for each test of a block); its URL. */
  async start(): Promise<string> {
    if (!this.server.listening)
      await new Promise<void>((done) => this.server.listen(0, '127.0.0.1', done));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  async stop(): Promise<void> {
    for (const socket of this.held) socket.destroy();
    await new Promise((done) => this.server.close(done));
  }
}

describe('a stopping engine (SIGTERM) within its bounds', () => {
  const { llm, url } = useFakeLlm();
  const collector = new SilentServer();
  const receiver = new SilentServer();
  afterAll(() => Promise.all([collector.stop(), receiver.stop()]));

  it('closes the HTTP connections left once the sessions have drained, and answers a request in flight first', async () => {
    const engine = await runBuiltEngine(
      { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', SHUTDOWN_GRACE_SECS: '20' },
      true,
    );
    const base = engine.url!;
    // A load balancer's connection never used, one cut mid-headers, one kept alive after its
    // answer: each held the stop for ever (Node's server.close waits for them).
    const unused = await openConnection(base, '');
    const halfHeaders = await openConnection(base, 'GET /health HTTP/1.1\r\nHost: x\r\n');
    const keptAlive = await openConnection(base, 'GET /health/live HTTP/1.1\r\nHost: x\r\n\r\n');
    const keptAliveText = readAll(keptAlive);
    // A request whose body is still coming when the signal arrives.
    const body = '{"name":"x"}';
    const inFlight = await openConnection(
      base,
      `POST /api/tools HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n{"na`,
    );
    const inFlightText = readAll(inFlight);
    const closed = [unused, halfHeaders].map((socket) => readAll(socket));
    await new Promise((r) => setTimeout(r, 200));

    const stoppedAt = performance.now();
    engine.stop();
    setTimeout(() => inFlight.write(body.slice(4)), 100);
    expect(await engine.exited).toBe(0);
    expect(performance.now() - stoppedAt).toBeLessThan(5000);
    expect(await Promise.all(closed)).toEqual(['', '']);
    expect(await keptAliveText).toMatch(/^HTTP\/1\.1 200 /);
    // Its answer came (the tools file refuses the body as it stands), saying the connection ends.
    const answer = await inFlightText;
    expect(answer).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(answer).toMatch(/^connection: close\r$/im);
  }, 30_000);

  it('waits for the session reports and the last spans together, each within its bound', async () => {
    const engine = await runBuiltEngine(
      {
        PORT: '0',
        LLM_BASE_URL: url(),
        LLM_MODEL: 'fake',
        SESSION_WEBHOOK_URL: await receiver.start(),
        OTEL_EXPORTER_OTLP_ENDPOINT: await collector.start(),
        OTEL_BSP_SCHEDULE_DELAY: '600000',
      },
      true,
    );
    const ws = await WsClient.connect(`${engine.url!.replace('http', 'ws')}/ws`);
    llm.enqueue(sseTextWithUsage(['Hi.'], 3, 1));
    await ws.turn('hello');
    const stoppedAt = performance.now();
    engine.stop();
    expect(await ws.closed).toBe(1001);
    expect(await engine.exited).toBe(0);
    // One after the other they took 5 s and 5 s (and 10 s and 5 s before): together, 5 s.
    const took = performance.now() - stoppedAt;
    expect(took).toBeGreaterThan(4500);
    expect(took).toBeLessThan(8500);
    expect(receiver.connections).toBeGreaterThan(0);
    expect(collector.connections).toBeGreaterThan(0);
    expect(engine.output).toContain(
      '1 session report(s) not delivered to SESSION_WEBHOOK_URL within 5s: stopping without them',
    );
    expect(engine.output).toContain(
      'the last spans were not sent to the collector: no answer within 5s',
    );
  }, 30_000);
});

describe('a second signal once the sessions have drained', () => {
  const { url } = useFakeLlm();
  const receiver = new SilentServer();
  afterAll(() => receiver.stop());

  it.each([['1'], ['2']])(
    'ends the process at once, saying what it no longer waits for (ENGINE_PROCESSES=%s)',
    async (processes) => {
      const engine = await runBuiltEngine(
        {
          PORT: '0',
          LLM_BASE_URL: url(),
          LLM_MODEL: 'fake',
          SESSION_WEBHOOK_URL: await receiver.start(),
          ENGINE_PROCESSES: processes,
        },
        true,
        Number(processes),
      );
      // A session closed: its report waits on a receiver that never answers (5 s at the stop).
      const ws = await WsClient.connect(`${engine.url!.replace('http', 'ws')}/ws`);
      ws.close();
      await ws.closed;
      engine.stop();
      // A signal within a second of the first is the same one told twice (see the test below).
      await new Promise((r) => setTimeout(r, 1200));
      for (
        let waited = 0;
        !engine.output.includes('delivering 1 session report(s)');
        waited += 20
      ) {
        if (waited > 5000) throw new Error(`the reports were not awaited:\n${engine.output}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const again = performance.now();
      engine.stop();
      expect(await engine.exited).toBe(1);
      expect(performance.now() - again).toBeLessThan(2000);
      expect(engine.output).toContain(
        'SIGTERM again: exiting now, without waiting for the session reports',
      );
    },
    30_000,
  );
});

describe('one signal told twice (Ctrl-C reaches every process, and the primary passes it on)', () => {
  const { llm, url } = useFakeLlm();

  it('is taken once: the turn in progress still finishes', async () => {
    const engine = await runBuiltEngine(
      { PORT: '0', LLM_BASE_URL: url(), LLM_MODEL: 'fake', SHUTDOWN_GRACE_SECS: '20' },
      true,
    );
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    llm.enqueue({ ...sseText(['Still ', 'talking.']), gate });
    const ws = await WsClient.connect(`${engine.url!.replace('http', 'ws')}/ws`);
    ws.send({ type: 'user_text', text: 'talk' });
    await ws.waitFor((m) => m.type === 'assistant_delta');
    engine.stop();
    await new Promise((r) => setTimeout(r, 50));
    engine.stop();
    await new Promise((r) => setTimeout(r, 300));
    release();
    expect(await ws.waitFor((m) => m.type === 'assistant_end')).toEqual({
      type: 'assistant_end',
      text: 'Still talking.',
    });
    expect(await engine.exited).toBe(0);
  }, 30_000);
});

describe('a stop that takes longer than SHUTDOWN_GRACE_SECS + 9 s', () => {
  it('ends the process with code 1 and says what it still waited for', async () => {
    // The engine's own stop, on an app whose close never ends and holds a handle (a socket would).
    const stopOnSignals = pathToFileURL(resolve('dist/lifecycle/stop-on-signals.js')).href;
    const lifecycle = pathToFileURL(resolve('dist/lifecycle/lifecycle.service.js')).href;
    const script = `
      import { createServer } from 'node:http';
      import { stopOnSignals } from ${JSON.stringify(stopOnSignals)};
      import { Lifecycle } from ${JSON.stringify(lifecycle)};
      const lifecycle = new Lifecycle();
      const server = createServer();
      const app = { get: () => lifecycle, getHttpServer: () => server, close: () => new Promise(() => setInterval(() => {}, 1000)) };
      stopOnSignals(app, 0).started();
      server.listen(0, () => process.kill(process.pid, 'SIGTERM'));
    `;
    const child = spawn(ENGINE_NODE, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    const startedAt = performance.now();
    const [code] = (await once(child, 'exit')) as [number | null];
    expect(code).toBe(1);
    expect(performance.now() - startedAt).toBeGreaterThan(8500);
    expect(output).toContain(
      'the stop took longer than SHUTDOWN_GRACE_SECS + 9s (9s): exiting while it still waits for the engine to close',
    );
  }, 30_000);
});

describe("ENGINE_PROCESSES' primary, when a process cannot end its own stop", () => {
  const { url } = useFakeLlm();
  /** Killed after the test whatever its outcome (a frozen process left would hold its port). */
  const left: number[] = [];
  afterAll(() => {
    for (const pid of left)
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone, as it should be
      }
  });

  it('kills it SHUTDOWN_GRACE_SECS + 11 s after the signal, says which, and exits with code 1', async () => {
    const engine = await runBuiltEngine(
      {
        PORT: '0',
        LLM_BASE_URL: url(),
        LLM_MODEL: 'fake',
        ENGINE_PROCESSES: '2',
        SHUTDOWN_GRACE_SECS: '0',
      },
      true,
      2,
    );
    const processes = childPids(engine.pid!);
    left.push(engine.pid!, ...processes);
    expect(processes).toHaveLength(2);
    // A process frozen (its event loop blocked would do the same): its own bound never runs.
    const [frozen, other] = processes as [number, number];
    process.kill(frozen, 'SIGSTOP');
    const stoppedAt = performance.now();
    engine.stop();
    expect(await engine.exited).toBe(1);
    expect(performance.now() - stoppedAt).toBeGreaterThan(10_500);
    expect(engine.output).toContain(
      `engine processes still running SHUTDOWN_GRACE_SECS + 11s (11s) after the signal, past their own bound: killing ${frozen}`,
    );
    expect(engine.output).not.toContain(`killing ${frozen}, ${other}`);
    expect(() => process.kill(frozen, 0)).toThrow(/ESRCH/);
    expect(() => process.kill(other, 0)).toThrow(/ESRCH/);
  }, 30_000);
});
