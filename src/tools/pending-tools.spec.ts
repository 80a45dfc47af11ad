import { snapshotOf, type Tool } from './tool-definition.js';
import { listPending, PendingTries } from './pending-tools.js';

const tool = (name: string, pending?: string) =>
  ({ kind: 'mcp', name, ...(pending && { pending }) }) as unknown as Tool;

describe('listPending', () => {
  it('offers the tools listed this time, leaves the others pending, and changes not the set in use', async () => {
    const inUse = snapshotOf('file', [tool('a'), tool('b', 'down'), tool('c', 'down')]);
    const next = await listPending(inUse, (tools, only) => {
      for (const t of tools) if (only.has(t) && t.name === 'b') t.pending = undefined;
      return Promise.resolve();
    });
    expect(next.offered).toEqual(['b']);
    expect(next.snapshot.tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(next.snapshot.definitions.map((t) => t.name)).toEqual(['a', 'b', 'c']);
    expect(inUse.tools.map((t) => t.name)).toEqual(['a']);
    expect(inUse.definitions[1]!.pending).toBe('down');
  });

  it('keeps tools pending when the completion fails part way, and says why', async () => {
    const inUse = snapshotOf('file', [tool('b', 'down'), tool('c', 'down')]);
    const next = await listPending(inUse, (tools) => {
      tools[0]!.pending = undefined;
      return Promise.reject(new Error("the MCP server has no tool 'c'"));
    });
    expect(next.offered).toEqual(['b']);
    expect(next.error).toBe("the MCP server has no tool 'c'");
    expect(next.snapshot.tools.map((t) => t.name)).toEqual(['b']);
  });
});

describe('PendingTries', () => {
  it('tries until the tool is ready, logging an error that repeats try after try once', async () => {
    const errors: string[] = [];
    const logs: string[] = [];
    const why = ["no tool 'c'", "no tool 'c'", "no tool 'c'", 'cannot reach it', undefined];
    let tries = 0;
    const tries$ = new PendingTries(
      1,
      (tools, only) => {
        const error = why[tries++];
        if (error === undefined) for (const t of only) t.pending = undefined;
        return error === undefined ? Promise.resolve() : Promise.reject(new Error(error));
      },
      { log: (m) => logs.push(m), error: (m) => errors.push(m) },
    );
    let current = snapshotOf('file', [tool('c', 'down')]);
    // Each try installs the set it made, and the next try starts from it.
    await new Promise<void>((resolve) =>
      tries$.schedule(
        current,
        (s) => s === current,
        (next) => {
          current = next;
          if (next.tools.length > 0) resolve();
        },
      ),
    );
    tries$.stop();
    expect(tries).toBe(5);
    expect(errors).toEqual(["no tool 'c'", 'cannot reach it']);
    // Said once, by the try that made it ready.
    expect(logs).toEqual(['tool(s) c ready: offered from the next turn']);
    expect(current.tools.map((t) => t.name)).toEqual(['c']);
  });

  it('installs nothing for a set replaced meanwhile, and tries nothing for a set with no pending tool', async () => {
    let tries = 0;
    const installed: unknown[] = [];
    const tries$ = new PendingTries(
      1,
      () => {
        tries++;
        return Promise.resolve();
      },
      { log: () => undefined, error: () => undefined },
    );
    tries$.schedule(
      snapshotOf('file', [tool('c', 'down')]),
      () => false,
      (n) => installed.push(n),
    );
    await new Promise((r) => setTimeout(r, 30));
    expect(tries).toBe(1);
    expect(installed).toEqual([]);
    tries$.schedule(
      snapshotOf('file', [tool('a')]),
      () => true,
      (n) => installed.push(n),
    );
    await new Promise((r) => setTimeout(r, 30));
    tries$.stop();
    expect(tries).toBe(1);
    expect(installed).toEqual([]);
  });

  it('keeps one try scheduled: a set scheduled anew replaces the one before', async () => {
    const tried: string[] = [];
    const tries$ = new PendingTries(
      20,
      (tools) => {
        tried.push(tools.map((t) => t.name).join());
        return Promise.resolve();
      },
      { log: () => undefined, error: () => undefined },
    );
    tries$.schedule(
      snapshotOf('file', [tool('old', 'down')]),
      () => false,
      () => undefined,
    );
    tries$.schedule(
      snapshotOf('file', [tool('new', 'down')]),
      () => false,
      () => undefined,
    );
    await new Promise((r) => setTimeout(r, 80));
    tries$.stop();
    expect(tried).toEqual(['new']);
  });
});
