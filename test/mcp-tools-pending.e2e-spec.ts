import { writeFileSync } from 'node:fs';
import { useServerDown } from './support/mcp-server-down.js';
import { writeToolsFile } from './support/tools-file.js';
import { offeredNames, useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const weather = (base: string) => ({ name: 'get_weather', url: `${base}/{city}`, method: 'GET' });

/**
 * A tools file edited while the engine runs to add an MCP tool whose server is down: the edit is
 * installed without it, and it is offered once its server answers, as at start-up.
 */
describe('an MCP tool added by an edit of the tools file while its server is down', () => {
  const down = useServerDown();
  let path = '';
  const rig = useEngineRig((base) => {
    path = writeToolsFile([weather(base)]);
    return {
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: path,
      LLM_TOOLS_FILE_WATCH_SECS: '0.1',
      LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    };
  });
  const client = useClientPerTest(rig);
  const health = async () =>
    ((await (await fetch(`${rig.engine.httpUrl}/health`)).json()) as any).tools;

  it('is tried again until its server answers, then offered', async () => {
    writeFileSync(path, JSON.stringify([weather(rig.toolsUrl), down.definition()]));
    await untilAsync(async () => (await health()).count === 2, 'the edited file');
    expect((await health()).unavailable).toEqual(['lookup_order']);
    // A wait is the server's state, which /health says as it is, not a warning the set keeps.
    const set = (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as any;
    expect(set.warnings).toBeUndefined();
    expect(await offeredNames(rig, client.ws)).toEqual(['get_weather']);
    await down.mcp.start(down.port);
    await untilAsync(
      async () => (await offeredNames(rig, client.ws)).includes('lookup_order'),
      'the tool listed',
    );
    expect((await health()).unavailable).toEqual([]);
  });
});

/**
 * An engine whose MCP tool's server answers 503 (starting up) with `env`; how many times the
 * engine has tried it.
 */
function useServerStartingUp(env: Record<string, string>) {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      ...env,
      LLM_TOOLS_FILE: writeToolsFile([
        weather(base),
        { type: 'mcp', name: 'lookup_order', url: `${base}/mcp` },
      ]),
    }),
    (req, res) => {
      if (req.path === '/mcp') return void res.writeHead(503).end('starting up');
      res.end('sunny');
    },
  );
  return () => rig.tools.requests.filter((r) => r.path === '/mcp').length;
}

/**
 * LLM_TOOL_BREAKER_COOLDOWN_SECS also spaces the tries at a server that was down; set near 0,
 * the tries still come at most once a second rather than one after the other.
 */
describe('tries at a server that is down, with a cool-down near 0', () => {
  const tries = useServerStartingUp({ LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.001' });

  it('come at most once a second', async () => {
    const before = tries();
    await new Promise((r) => setTimeout(r, 2500));
    const made = tries() - before;
    expect(made).toBeGreaterThanOrEqual(1);
    expect(made).toBeLessThanOrEqual(4);
  });
});

/**
 * With LLM_TOOLS_MCP_LIST_WATCH_SECS, a server whose tools all wait for it (down when the tools
 * were read) is left to those tries: the watch lists the servers of tools offered.
 */
describe('a server whose tools wait for it, with the MCP list watch on', () => {
  const tries = useServerStartingUp({
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '5',
    LLM_TOOLS_MCP_LIST_WATCH_SECS: '0.1',
  });

  it('is tried at its own pace, not at the watch pace', async () => {
    const before = tries();
    await new Promise((r) => setTimeout(r, 1500));
    // The watch would have made ~15; the next try is 5 s after the first.
    expect(tries() - before).toBeLessThanOrEqual(1);
  });
});
