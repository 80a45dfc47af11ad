import { createServer, type Server } from 'node:http';
import { laterPort } from './support/ports.js';
import { sseText, type Script } from './support/fake-llm.js';
import {
  callOnce,
  pieces,
  useClientPerTest,
  useEngineRig,
  xmlCall,
} from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';

/** A tool request that failed transiently is sent again (LLM_TOOL_RETRIES, a tool's `retries`). */
describe('tool requests retried after transient failures', () => {
  let latePort = 0;
  /** Requests seen per path, for answers that change with the attempt. */
  const seen = new Map<string, number>();
  // Before the engine starts: its tools file names the port.
  beforeAll(async () => {
    latePort = await laterPort();
  });
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      // Long enough for a loaded machine to start the late backend between a refusal and its
      // retry (the last test): 450 ms at least, with the jitter.
      LLM_TOOL_RETRY_BACKOFF_MS: '600',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'flaky_get', url: `${base}/flaky-get`, method: 'GET' },
        { name: 'flaky_post', url: `${base}/flaky-post`, method: 'POST' },
        { name: 'sturdy_post', url: `${base}/sturdy-post`, method: 'POST', retries: 2 },
        { name: 'busy_get', url: `${base}/busy`, method: 'GET' },
        { name: 'slow_get', url: `${base}/slow`, method: 'GET', timeout_secs: 0.3 },
        { name: 'late_post', url: `http://127.0.0.1:${latePort}/late`, method: 'POST' },
        {
          name: 'charge',
          url: `${base}/charge`,
          method: 'POST',
          idempotency_header: 'Idempotency-Key',
        },
      ]),
    }),
    (req, res) => {
      const n = (seen.get(req.path) ?? 0) + 1;
      seen.set(req.path, n);
      if (req.path === '/busy')
        return void res.writeHead(503, { 'Retry-After': '60' }).end('come back in a minute');
      if (req.path === '/slow') return void setTimeout(() => res.end('too late'), 1000);
      // The first attempt (the first two for sturdy_post) finds the backend overloaded.
      const failures = req.path === '/sturdy-post' ? 2 : 1;
      // Every call of charge finds the backend overloaded on its first attempt.
      const fails = req.path === '/charge' ? n % 2 === 1 : n <= failures;
      if (fails) return void res.writeHead(503, { 'Retry-After': '0' }).end('overloaded');
      res.end(`answered on attempt ${n}`);
    },
  );
  const client = useClientPerTest(rig);
  let late: Server | undefined;
  beforeEach(() => seen.clear());
  afterEach(async () => {
    await new Promise<void>((resolve) => (late ? late.close(() => resolve()) : resolve()));
    late = undefined;
  });

  /** One turn in which the model calls `name`; returns what the model read, and the tool_result. */
  const call = (name: string, script?: Script) => callOnce(rig, client.ws, name, {}, script);
  const attempts = (path: string) => rig.tools.requests.filter((r) => r.path === path).length;

  it('sends a GET again after a 503, and the model reads the answer', async () => {
    const { read, result } = await call('flaky_get');
    expect(read).toBe('answered on attempt 2');
    expect(result.ok).toBe(true);
    expect(attempts('/flaky-get')).toBe(2);
  });

  it('does not send a POST twice on its own: the backend may have acted on it', async () => {
    const { read } = await call('flaky_post');
    expect(read).toBe('Error: HTTP 503 Service Unavailable — overloaded');
    expect(attempts('/flaky-post')).toBe(1);
  });

  it('retries any method as often as the tool says (`retries`)', async () => {
    const { read } = await call('sturdy_post');
    expect(read).toBe('answered on attempt 3');
    expect(attempts('/sturdy-post')).toBe(3);
  });

  it('does not wait for a Retry-After longer than the tool’s timeout, nor retry a timeout', async () => {
    expect((await call('busy_get')).read).toBe(
      'Error: HTTP 503 Service Unavailable — come back in a minute',
    );
    expect(attempts('/busy')).toBe(1);
    rig.llm.reset();
    expect((await call('slow_get')).read).toBe('Error: tool request failed: timed out after 0.3s');
    expect(attempts('/slow')).toBe(1);
  });

  it('retries a POST that carries an idempotency key, with the same key; each call has its own', async () => {
    expect((await call('charge')).read).toBe('answered on attempt 2');
    rig.llm.reset();
    expect((await call('charge')).read).toBe('answered on attempt 4');
    const keys = rig.tools.requests
      .filter((r) => r.path === '/charge')
      .map((r) => r.headers['idempotency-key']);
    expect(keys).toHaveLength(4);
    expect(keys[0]).toMatch(
      /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect(keys[1]).toBe(keys[0]);
    expect(keys[3]).toBe(keys[2]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('sends a POST again when its connection was refused (a backend restarting), and counts it', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // The call is known (prose follows it) while the end of the output waits for the gate.
    const text = `${xmlCall('late_post', {})} ${'Working on it. '.repeat(16)}`;
    const from = client.ws.messages.length;
    const done = call('late_post', { ...sseText(pieces(text, 20)), gate });
    await client.ws.waitFor((m) => m.type === 'tool_call', from);
    const bodies: string[] = [];
    release(); // the round ends: the first attempt is refused, the backend comes up meanwhile
    // Up once the refusal is counted (the retry waits LLM_TOOL_RETRY_BACKOFF_MS), not after a
    // fixed sleep that a slow machine could outrun.
    const counted = async () =>
      /agent_engine_tool_retries_total\{tool="late_post"\} (\d+)/.exec(
        await (await fetch(`${rig.engine.httpUrl}/metrics`)).text(),
      )?.[1];
    // Bounded: a wait that never ends would say nothing of why.
    const deadline = Date.now() + 10_000;
    for (let seen = await counted(); !seen || seen === '0'; seen = await counted()) {
      if (Date.now() > deadline)
        throw new Error(
          `no retry counted; the client got ${JSON.stringify(client.ws.messages.slice(from))}`,
        );
      await new Promise((r) => setTimeout(r, 5));
    }
    late = createServer((req, res) => {
      req.on('data', (c: Buffer) => bodies.push(c.toString()));
      req.on('end', () => res.end('created'));
    });
    await new Promise<void>((resolve) => late!.listen(latePort, '127.0.0.1', resolve));
    const { read } = await done;
    expect(read).toBe('created');
    expect(bodies).toEqual(['{}']);
    const metrics = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    expect(metrics).toMatch(/agent_engine_tool_retries_total\{tool="late_post"\} 1\b/);
  });
});
