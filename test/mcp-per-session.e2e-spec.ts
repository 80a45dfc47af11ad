import { Logger } from '@nestjs/common';
import { resolve } from 'node:path';
import { McpTestServer, useMcpServer } from './support/mcp-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { alive, until } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const SERVER = resolve('test/support/mcp-stdio-server.mjs');
const ADMIN = { Authorization: 'Bearer admin-key' };

/**
 * `"per_session": true`: an MCP server that keeps state for its client (a cart, a browser) gets
 * a connection of each session of the engine, so that no user meets another's state, closed
 * when the session is over.
 */
describe('MCP tools with per_session', () => {
  /** Carts by MCP session: what the server holds for each of its clients. */
  const carts = new Map<string, string[]>();
  const mcp = new McpTestServer([
    {
      name: 'add_to_cart',
      inputSchema: { type: 'object', properties: { item: { type: 'string' } } },
      answer: (args, { headers }) => {
        const id = String(headers['mcp-session-id']);
        const cart = carts.get(id) ?? [];
        carts.set(id, [...cart, String(args.item)]);
        return { content: [{ type: 'text', text: `cart: ${carts.get(id)!.join(', ')}` }] };
      },
    },
  ]);
  const server = useMcpServer(mcp);
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'mcp', name: 'add_to_cart', url: server.url, per_session: true },
      { type: 'mcp', name: 'add_to_shared_cart', tool: 'add_to_cart', url: server.url },
      {
        type: 'mcp',
        name: 'add_to_small_cart',
        tool: 'add_to_cart',
        url: `${server.url}?small`,
        per_session: true,
        max_sessions: 1,
      },
      { type: 'mcp', name: 'whoami', command: process.execPath, args: [SERVER], per_session: true },
      {
        type: 'python',
        name: 'add_later',
        background: true,
        code: 'import time\ndef add_later(item: str) -> str:\n    """Adds an item in a while."""\n    time.sleep(2)\n    return str(tools.add_to_cart({"item": item}))',
      },
    ]),
    CODE_TOOLS_WORKERS: '1',
    SESSION_RESUME_SECS: '30',
    SESSION_TOOLS_KEEP_SECS: '1',
    ADMIN_API_KEY: 'admin-key',
  }));
  const clients: WsClient[] = [];
  const connect = async (query = '') => {
    const ws = await WsClient.connect(`${rig.engine.wsUrl}${query}`);
    clients.push(ws);
    return ws;
  };
  afterEach(() => clients.splice(0).forEach((ws) => ws.close()));
  const add = async (ws: WsClient, item: string, name = 'add_to_cart') =>
    (await callOnce(rig, ws, name, { item })).read;
  /** The MCP session the server saw the last call in. */
  const lastMcpSession = () => String(mcp.calls.at(-1)!.headers['mcp-session-id']);
  const sessionIdOf = (ws: WsClient) => ws.messages[0]!.session_id as string;
  const closeForGood = async (ws: WsClient) => {
    const res = await fetch(`${rig.engine.httpUrl}/api/sessions/${sessionIdOf(ws)}`, {
      method: 'DELETE',
      headers: ADMIN,
    });
    expect(res.status).toBe(200);
    await ws.closed;
  };

  it("gives each session the server's state of its own; a shared entry shares it", async () => {
    const [ada, bob] = [await connect(), await connect()];
    expect(await add(ada, 'apples')).toBe('cart: apples');
    expect(await add(bob, 'pears')).toBe('cart: pears');
    expect(await add(ada, 'bread')).toBe('cart: apples, bread');
    expect(await add(ada, 'soap', 'add_to_shared_cart')).toBe('cart: soap');
    expect(await add(bob, 'salt', 'add_to_shared_cart')).toBe('cart: soap, salt');
  });

  it('refuses a session past max_sessions, until one of those holding one ends', async () => {
    const [ada, bob] = [await connect(), await connect()];
    expect(await add(ada, 'apples', 'add_to_small_cart')).toBe('cart: apples');
    expect(await add(bob, 'pears', 'add_to_small_cart')).toBe(
      'Error: tool request failed: the MCP server serves as many sessions as it may here (max_sessions 1); try again later',
    );
    expect(await add(ada, 'bread', 'add_to_small_cart')).toBe('cart: apples, bread');
    await closeForGood(ada);
    expect(await add(bob, 'pears', 'add_to_small_cart')).toBe('cart: pears');
  });

  it('ends the MCP session at once when the session is closed for good, and keeps the others', async () => {
    const [ada, bob] = [await connect(), await connect()];
    await add(ada, 'apples');
    const adas = lastMcpSession();
    await add(bob, 'pears');
    const bobs = lastMcpSession();
    await closeForGood(ada);
    // Well within SESSION_RESUME_SECS: the session cannot come back.
    await until(() => mcp.sessionsEnded.includes(adas), "the end of Ada's MCP session", 1500);
    expect(mcp.sessionsEnded).not.toContain(bobs);
    expect(await add(bob, 'salt')).toBe('cart: pears, salt');
  });

  it('keeps the MCP session of a session resumed in time, and ends it once resuming is over', async () => {
    const ada = await connect();
    await add(ada, 'apples');
    const adas = lastMcpSession();
    ada.close();
    await ada.closed;
    const back = await connect(`?resume=${encodeURIComponent(ada.messages[0]!.resume_token)}`);
    expect(back.messages[0]).toMatchObject({ resumed: true });
    expect(await add(back, 'milk')).toBe('cart: apples, milk');
    expect(lastMcpSession()).toBe(adas);
    back.close();
    await back.closed;
    await new Promise((r) => setTimeout(r, 500));
    expect(mcp.sessionsEnded).not.toContain(adas);
    // SESSION_TOOLS_KEEP_SECS, before SESSION_RESUME_SECS.
    await until(() => mcp.sessionsEnded.includes(adas), 'the end of the MCP session', 3000);
  });

  it("gives a call made once its session's own is closed (a background call's) one of its own, ended with it", async () => {
    const ada = await connect();
    await add(ada, 'apples');
    const adas = lastMcpSession();
    const calls = mcp.calls.length;
    await callOnce(rig, ada, 'add_later', { item: 'pears' });
    // Gone away, may come back: the background call goes on; its session's own MCP session
    // is closed after SESSION_TOOLS_KEEP_SECS.
    ada.close();
    await until(() => mcp.sessionsEnded.includes(adas), "the end of Ada's MCP session", 3000);
    await until(() => mcp.calls.length === calls + 1, 'the background call', 5000);
    const late = lastMcpSession();
    expect(late).not.toBe(adas);
    await until(() => mcp.sessionsEnded.includes(late), 'the end of its MCP session');
    expect(carts.get(late)).toEqual(['pears']);
  });

  it('runs a server that is a command once per session, stopped when the session is over', async () => {
    const [ada, bob] = [await connect(), await connect()];
    const pid = async (ws: WsClient) => JSON.parse((await callOnce(rig, ws, 'whoami')).read).pid;
    const log = jest.spyOn(Logger.prototype, 'log').mockImplementation(() => {});
    let adas: number, bobs: number;
    try {
      [adas, bobs] = [await pid(ada), await pid(bob)];
      expect(adas).not.toBe(bobs);
      expect(await pid(ada)).toBe(adas);
      // What each process writes to its standard error is logged with its session.
      const said = log.mock.calls.map((c) => String(c[0])).filter((l) => l.endsWith('call whoami'));
      const by = (ws: WsClient) =>
        said.filter((l) => l.includes(`(session_id=${sessionIdOf(ws)}): `));
      expect([by(ada).length, by(bob).length]).toEqual([2, 1]);
    } finally {
      log.mockRestore();
    }
    await closeForGood(ada);
    await until(() => !alive(adas), "the end of Ada's server process", 6000);
    expect(alive(bobs)).toBe(true);
  });

  /** A try of add_to_cart over /api/tools: what the model would read, or the refusal. */
  const tryAdd = async (item: string, session?: string) => {
    const res = await fetch(`${rig.engine.httpUrl}/api/tools/add_to_cart/call`, {
      method: 'POST',
      headers: ADMIN,
      body: JSON.stringify({ arguments: { item }, ...(session !== undefined && { session }) }),
    });
    const body = (await res.json()) as { result?: string; message?: string };
    return res.status === 200 ? body.result : `${res.status} ${body.message}`;
  };

  it('tries a call over /api/tools in a session of its own, ended with it', async () => {
    const ended = mcp.sessionsEnded.length;
    expect(await tryAdd('apples')).toBe('cart: apples');
    expect(await tryAdd('pears')).toBe('cart: pears');
    await until(() => mcp.sessionsEnded.length === ended + 2, 'the end of both MCP sessions');
  });

  it('shares the MCP session between tries naming one session', async () => {
    expect(await tryAdd('apples', 'checkout-1')).toBe('cart: apples');
    expect(await tryAdd('pears', 'checkout-2')).toBe('cart: pears');
    expect(await tryAdd('bread', 'checkout-1')).toBe('cart: apples, bread');
    expect(await tryAdd('milk', 'no spaces')).toBe(
      `400 "session" must be 1 to 64 letters, digits, '_', '.', ':' or '-'`,
    );
  });
});
