import { resolve } from 'node:path';
import { until } from '../../../test/support/waiting.js';
import { mcpSdk } from './mcp-sdk.js';
import { connectCommand, lineReader } from './mcp-stdio.js';

const SERVER = resolve('test/support/mcp-stdio-server.mjs');

/** A real server process, spoken to through the SDK's client; what the hooks heard. */
async function start(args: string[], limits = { maxBytes: 1 << 20, timeoutMs: 5000 }) {
  const sdk = await mcpSdk();
  const client = new sdk.Client({ name: 'test', version: '1' });
  const heard = { logs: [] as string[], ended: [] as string[] };
  const connected = connectCommand(
    client,
    { command: process.execPath, args, env: {}, cwd: process.cwd() },
    limits,
    { log: (line) => heard.logs.push(line), ended: (why) => heard.ended.push(why) },
  );
  return { client, heard, connected };
}

describe('connectCommand', () => {
  it('logs what the server writes to its standard error, and output that is not JSON-RPC', async () => {
    const { client, heard, connected } = await start([SERVER, '--noise']);
    await connected;
    const { content } = (await client.callTool({ name: 'add', arguments: { a: 1, b: 2 } })) as {
      content: { text: string }[];
    };
    expect(content[0]!.text).toBe('3');
    await until(() => heard.logs.includes('call add'), 'the server to log the call');
    expect(heard.logs[0]).toMatch(/^\(engine\) /);
    expect(heard.logs).toContain('stdio test server ready');
    await client.close();
    await until(() => heard.ended.length === 1, 'the process to end');
  });

  it('stops a program that does not open the session in time', async () => {
    const { heard, connected } = await start(['-e', 'setInterval(() => {}, 1000)'], {
      maxBytes: 1 << 20,
      timeoutMs: 300,
    });
    await expect(connected).rejects.toThrow(/timed out/i);
    // Its standard input closed, then SIGTERM: the process ends.
    await until(() => heard.ended.length === 1, 'the process to end', 6000);
    expect(heard.ended).toEqual(['its process ended']);
  });
});

describe('lineReader', () => {
  it('gives lines however the chunks cut them, whatever their ends', () => {
    const lines: string[] = [];
    const push = lineReader((line) => lines.push(line));
    for (const chunk of ['one\ntw', 'o\r\nthree\rfo', 'ur\n']) push(chunk);
    expect(lines).toEqual(['one', 'two', 'three', 'four']);
  });

  it('holds no more of a line that never ends than it logs', () => {
    const lines: string[] = [];
    const push = lineReader((line) => lines.push(line));
    const chunk = 'z'.repeat(64 * 1024);
    for (let i = 0; i < 200; i++) push(chunk); // 12.5 MiB without a line's end
    push('\nnext\n');
    expect(lines).toEqual(['z'.repeat(1001), 'next']);
  });
});
