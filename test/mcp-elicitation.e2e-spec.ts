import { Logger } from '@nestjs/common';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { toolRead, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

const KEY = 'k3y-of-the-files-server';
/** The server answers with what its user answered, for the test to read in the model's request. */
const asked = (answer: unknown) => ({ content: [{ type: 'text', text: JSON.stringify(answer) }] });

/**
 * An MCP server asks its client's user something while it runs a call (elicitation): a yes or
 * no is asked as an approval (`tool_confirm`), of the one user whose call it is.
 */
describe('MCP elicitation', () => {
  const waiting: (() => void)[] = [];
  const mcp = new McpTestServer([
    {
      name: 'delete_files',
      answer: async (_args, { elicit }) => asked(await elicit!(`Delete 3 files (key ${KEY})?`)),
    },
    {
      name: 'join_club',
      answer: async (_args, { elicit }) =>
        asked(await elicit!('Join as a member?', { member: { type: 'boolean' } })),
    },
    {
      // A form of 21 fields: more than a voice is asked to fill.
      name: 'ask_survey',
      answer: async (_args, { elicit }) =>
        asked(
          await elicit!(
            'A few questions?',
            Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`q${i}`, { type: 'string' }])),
          ),
        ),
    },
    {
      // Asks once a second call has come (the test's two sessions), or after 2 s.
      name: 'slow_delete',
      answer: async (_args, { elicit }) => {
        await new Promise<void>((resolve) => {
          waiting.push(resolve);
          if (waiting.length === 2) for (const go of waiting.splice(0)) go();
          setTimeout(resolve, 2000);
        });
        return asked(await elicit!('Delete the draft?'));
      },
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    TOOL_CONFIRM_TIMEOUT_SECS: '1',
    TOOL_SECRET_FILES: KEY,
    LLM_TOOLS_FILE: writeToolsFile([
      ...['delete_files', 'join_club', 'ask_survey', 'slow_delete'].map((name) => ({
        type: 'mcp',
        name,
        url: `${server.url}?key=\${TOOL_SECRET_FILES}`,
      })),
      { type: 'mcp', name: 'own_delete', tool: 'slow_delete', url: server.url, per_session: true },
      {
        type: 'mcp',
        name: 'quick_delete',
        tool: 'delete_files',
        url: server.url,
        timeout_secs: 0.3,
      },
    ]),
  }));
  const client = useClientPerTest(rig);

  /** Starts a turn of `ws` whose model calls `name`; resolves with the turn's messages' start. */
  const callTool = (ws: WsClient, name: string) => {
    const from = ws.messages.length;
    ws.send({ type: 'user_text', text: `use ${name}` });
    return from;
  };
  const script = (name: string, id = 'call_1') =>
    rig.llm.enqueue(sseStructuredCalls([{ id, name, arguments: {} }]), sseText(['ok']));
  const turnEnd = (ws: WsClient, from: number) =>
    ws.waitFor((m) => m.type === 'assistant_end', from, 10_000);

  it("asks a confirmation as an approval, the server's question its prompt, and gives the server the answer", async () => {
    script('delete_files');
    const ws = client.ws;
    const from = callTool(ws, 'delete_files');
    const question = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(question).toEqual({
      type: 'tool_confirm',
      id: 'call_1',
      name: 'delete_files',
      arguments: {},
      prompt: 'Delete 3 files (key [secret])?',
    });
    ws.send({ type: 'tool_confirm', id: question.id, approved: true });
    await turnEnd(ws, from);
    expect(JSON.parse(toolRead(rig.llm))).toMatchObject({ action: 'accept' });
  });

  it("does not count the user's thinking against the call's timeout_secs", async () => {
    script('quick_delete');
    const ws = client.ws;
    const from = callTool(ws, 'quick_delete');
    const question = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    await new Promise((r) => setTimeout(r, 700));
    ws.send({ type: 'tool_confirm', id: question.id, approved: true });
    const end = await turnEnd(ws, from);
    expect(ws.messages.slice(from).find((m) => m.type === 'tool_result')).toMatchObject({
      ok: true,
    });
    expect(JSON.parse(toolRead(rig.llm))).toMatchObject({ action: 'accept' });
    expect(end.type).toBe('assistant_end');
  });

  it('takes a typed no, and a yes or no for a form of one boolean field', async () => {
    script('delete_files');
    const ws = client.ws;
    let from = callTool(ws, 'delete_files');
    await ws.waitFor((m) => m.type === 'tool_confirm', from);
    ws.send({ type: 'user_text', text: 'no' });
    expect(await ws.waitFor((m) => m.type === 'tool_confirmed', from)).toMatchObject({
      approved: false,
    });
    await turnEnd(ws, from);
    expect(JSON.parse(toolRead(rig.llm))).toMatchObject({ action: 'decline' });

    rig.llm.reset();
    script('join_club');
    from = callTool(ws, 'join_club');
    const question = await ws.waitFor((m) => m.type === 'tool_confirm', from);
    expect(question.prompt).toBe('Join as a member?');
    ws.send({ type: 'tool_confirm', id: question.id, approved: false });
    await turnEnd(ws, from);
    expect(JSON.parse(toolRead(rig.llm))).toMatchObject({
      action: 'accept',
      content: { member: false },
    });
  });

  it('cancels a question left unanswered (TOOL_CONFIRM_TIMEOUT_SECS), and asks no form of more than 20 fields', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      script('delete_files');
      const ws = client.ws;
      let from = callTool(ws, 'delete_files');
      await ws.waitFor((m) => m.type === 'tool_confirm', from);
      await turnEnd(ws, from);
      expect(JSON.parse(toolRead(rig.llm))).toMatchObject({ action: 'cancel' });

      rig.llm.reset();
      script('ask_survey');
      from = callTool(ws, 'ask_survey');
      await turnEnd(ws, from);
      expect(ws.messages.slice(from).some((m) => /^tool_(confirm|question)$/.test(m.type))).toBe(
        false,
      );
      expect(JSON.parse(toolRead(rig.llm))).toMatchObject({ action: 'cancel' });
      const lines = warn.mock.calls.map((c) => String(c[0]));
      expect(lines).toContain(
        `MCP server ${server.url}: asked its user a question, answered cancel: a form of a field the engine does not ask, or of more than 20 fields`,
      );
    } finally {
      warn.mockRestore();
    }
  });

  it('asks no one when calls of two sessions wait on a shared connection, and each user on their own', async () => {
    const other = await WsClient.connect(rig.engine.wsUrl);
    try {
      // Both sessions' first requests get a call, their second the answer.
      const both = (name: string) => {
        rig.llm.reset();
        const call = (id: string) => sseStructuredCalls([{ id, name, arguments: {} }]);
        rig.llm.enqueue(call('call_a'), call('call_b'), sseText(['ok']), sseText(['ok']));
        return [callTool(client.ws, name), callTool(other, name)];
      };
      // A shared connection: the server's question could be either user's.
      let [a, b] = both('slow_delete');
      await Promise.all([turnEnd(client.ws, a!), turnEnd(other, b!)]);
      for (const [ws, from] of [
        [client.ws, a],
        [other, b],
      ] as const)
        expect(JSON.stringify(ws.messages.slice(from))).not.toContain('tool_confirm');
      const reads = rig.llm.requests.filter((r) => r.body.messages.at(-1).role === 'tool');
      expect(reads.map((r) => JSON.parse(r.body.messages.at(-1).content).action)).toEqual([
        'cancel',
        'cancel',
      ]);

      // per_session: each session's own connection, each user asked.
      [a, b] = both('own_delete');
      for (const [ws, from] of [
        [client.ws, a],
        [other, b],
      ] as const) {
        const q = await ws.waitFor((m) => m.type === 'tool_confirm', from);
        ws.send({ type: 'tool_confirm', id: q.id, approved: true });
      }
      await Promise.all([turnEnd(client.ws, a!), turnEnd(other, b!)]);
    } finally {
      other.close();
    }
  });

  it('answers cancel for a call tried over /api/tools/{name}/call: no user waits on it', async () => {
    const res = await fetch(`${rig.engine.httpUrl}/api/tools/delete_files/call`, {
      method: 'POST',
    });
    const body = (await res.json()) as { result: string };
    expect(JSON.parse(body.result)).toMatchObject({ action: 'cancel' });
  });
});
