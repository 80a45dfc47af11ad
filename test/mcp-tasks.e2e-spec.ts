import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { callOnce, toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { until } from './support/waiting.js';

/**
 * MCP tools their server runs only as tasks (MCP 2025-11-25, `execution.taskSupport: "required"`:
 * long research, a report to build). A plain `tools/call` of one is refused by its server.
 */
describe('MCP tools run as tasks', () => {
  let stopped = 0;
  const mcp = new McpTestServer([
    {
      name: 'research',
      description: 'Researches a topic.',
      inputSchema: { type: 'object', properties: { topic: { type: 'string' } } },
      taskSupport: 'required',
      answer: async (args) => {
        await new Promise((r) => setTimeout(r, 100));
        return { content: [{ type: 'text', text: `Report on ${String(args.topic)}` }] };
      },
    },
    {
      name: 'endless',
      taskSupport: 'required',
      // It changes nothing: cut with its turn (one that acts is let finish, LLM_TOOL_INTERRUPTED_CALLS).
      annotations: { readOnlyHint: true },
      answer: (_args, { signal }) =>
        new Promise((resolve) =>
          signal.addEventListener(
            'abort',
            () => {
              stopped++;
              resolve({ content: [] });
            },
            { once: true },
          ),
        ),
    },
    {
      // Asks its user while it runs as a task (its question delivered on tasks/result).
      name: 'clear_cache',
      taskSupport: 'required',
      answer: async (_args, { elicit }) => {
        const answer = await elicit!('Clear the cache?');
        return { content: [{ type: 'text', text: JSON.stringify(answer) }] };
      },
    },
    {
      name: 'quick',
      taskSupport: 'optional',
      answer: () => ({ content: [{ type: 'text', text: 'done' }] }),
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'mcp', name: 'research', url: server.url },
      { type: 'mcp', name: 'endless', url: server.url, timeout_secs: 0.5 },
      { type: 'mcp', name: 'endless_too', tool: 'endless', url: server.url },
      { type: 'mcp', name: 'quick', url: server.url },
      { type: 'mcp', name: 'clear_cache', url: server.url, timeout_secs: 0.5 },
      // Its list never read: that it runs only as a task is learnt from its server's refusal.
      {
        type: 'mcp',
        name: 'research_offline',
        tool: 'research',
        // Another URL of the server: a connection that never read its list (whose SDK client
        // would refuse the plain call itself, knowing the tool).
        url: `${server.url}?offline`,
        description: 'Researches a topic.',
        parameters: { type: 'object', properties: { topic: { type: 'string' } } },
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  it("creates the task, asks after it until it ends, and hands the model the task's result", async () => {
    const { read, result } = await callOnce(rig, client.ws, 'research', { topic: 'cats' });
    expect(read).toBe('Report on cats');
    expect(result).toMatchObject({ ok: true });
    expect(mcp.tasks.created).toBe(1);
    expect(mcp.tasks.polled).toBeGreaterThan(0);
    // A tool that may be a task is called as any other, answering at once.
    expect((await callOnce(rig, client.ws, 'quick')).read).toBe('done');
    expect(mcp.tasks.created).toBe(1);
  });

  it('calls as a task a tool whose list was not read once its server refuses a plain call', async () => {
    const [created, calls] = [mcp.tasks.created, mcp.calls.length];
    expect((await callOnce(rig, client.ws, 'research_offline', { topic: 'owls' })).read).toBe(
      'Report on owls',
    );
    expect((await callOnce(rig, client.ws, 'research_offline', { topic: 'bats' })).read).toBe(
      'Report on bats',
    );
    // One plain call refused, then tasks only.
    expect([mcp.tasks.created - created, mcp.calls.length - calls]).toEqual([2, 3]);
  });

  it("gives a task up at the tool's timeout, and cancels it on its server", async () => {
    const started = Date.now();
    const { read } = await callOnce(rig, client.ws, 'endless');
    expect(read).toBe('Error: tool request failed: timed out after 0.5s');
    expect(Date.now() - started).toBeLessThan(5000);
    await until(() => stopped === 1, "the task's work stopped on the server");
    expect(mcp.tasks.cancelled).toBe(1);
  });

  it("asks the user a task's question, its time standing still until the answer", async () => {
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_c', name: 'clear_cache', arguments: {} }]),
      sseText(['ok']),
    );
    const ws = client.ws;
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: 'clear the cache' });
    const question = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(question).toMatchObject({ name: 'clear_cache', prompt: 'Clear the cache?' });
    // Answered after the tool's 0.5 s.
    await new Promise((r) => setTimeout(r, 800));
    ws.send({ type: 'tool_confirm', id: question.id, approved: true });
    await ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);
    expect(ws.messages.slice(from).find((m) => m.type === 'tool_result')).toMatchObject({
      ok: true,
    });
    expect(JSON.parse(toolRead(rig.llm))).toEqual({ action: 'accept' });
  });

  it('cancels the task on its server when the user interrupts the turn', async () => {
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name: 'endless_too', arguments: {} }]));
    const from = client.ws.messages.length;
    const { created, polled } = mcp.tasks;
    const cancellations = mcp.cancellations;
    client.ws.send({ type: 'user_text', text: 'go on for ever' });
    await client.ws.waitFor((m) => m.type === 'tool_call', from);
    await until(() => mcp.tasks.created === created + 1, 'the task on the server');
    await until(() => mcp.tasks.polled >= polled + 3, 'the task asked after three times');
    client.ws.send({ type: 'interrupt' });
    expect(await client.ws.waitFor((m) => m.type === 'assistant_end', from)).toMatchObject({
      interrupted: true,
    });
    await until(() => stopped === 2, "the task's work stopped on the server");
    expect(mcp.tasks.cancelled).toBe(2);
    // The requests it had answered (the call, each `tasks/get`) are not said to be cancelled:
    // at most the one in flight then.
    await new Promise((r) => setTimeout(r, 200));
    expect(mcp.cancellations - cancellations).toBeLessThanOrEqual(1);
  });
});
