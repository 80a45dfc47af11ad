import { Logger } from '@nestjs/common';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runBuiltEngine, useBuiltEngines } from './support/built-engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const dir = mkdtempSync(join(tmpdir(), 'engine-secret-files-'));
const secret = (name: string, content: string) => {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
};

/**
 * Secrets handed to the container as files (Docker and Kubernetes secrets, Vault's agent):
 * NAME_FILE names the file whose content is the secret, for the engine's keys and for tools'
 * TOOL_SECRET_*, in every process of a cluster.
 */
describe('secrets given as files (NAME_FILE)', () => {
  const llm = new FakeLlm();
  const api = new RecordingServer();
  const startEngine = useBuiltEngines();
  afterAll(() => Promise.all([llm.stop(), api.stop()]));

  it("are read into the LLM server's key and a tool's secret header", async () => {
    api.respond((req, res) => res.end(`${req.path.slice(1)}: sunny`));
    const tool = {
      ...weatherTool(await api.start()),
      headers: { 'X-Api-Key': '${TOOL_SECRET_WEATHER}' },
    };
    const engine = await startEngine(
      {
        ENGINE_PROCESSES: '2',
        LLM_BASE_URL: await llm.start(),
        LLM_MODEL: 'm',
        LLM_TOOLS_FILE: writeToolsFile([tool]),
        LLM_API_KEY_FILE: secret('llm-key', 'sk-from-a-file\n'),
        TOOL_SECRET_WEATHER_FILE: secret('weather-key', 'w-42\n'),
      },
      2,
    );
    // node:cluster hands connections to its processes in turn: each serves one.
    for (const city of ['Oslo', 'Rome']) {
      const ws = await WsClient.connect(engine.wsUrl);
      llm.enqueue(
        sseStructuredCalls([{ id: 'call_1', name: 'get_weather', arguments: { city } }]),
        sseText(['Sunny.']),
      );
      expect((await ws.turn('weather?')).at(-1)).toEqual({
        type: 'assistant_end',
        text: 'Sunny.',
      });
      ws.close();
    }
    expect(llm.requests.map((r) => r.headers.authorization)).toEqual(
      Array(4).fill('Bearer sk-from-a-file'),
    );
    expect(api.requests.map((r) => [r.path, r.headers['x-api-key']])).toEqual([
      ['/Oslo', 'w-42'],
      ['/Rome', 'w-42'],
    ]);
    expect(engine.output).not.toContain('sk-from-a-file');
  }, 60_000);

  it('stop start-up naming the variable whose file cannot be read', async () => {
    const path = join(dir, 'not-mounted');
    const run = await runBuiltEngine({ PORT: '0', WS_API_KEY_FILE: path });
    expect(run.code).toBe(1);
    expect(run.output).toContain(
      `audio-agent-engine failed to start: WS_API_KEY_FILE="${path}" cannot be read (ENOENT)`,
    );
  }, 30_000);
});

describe('a TOOL_SECRET_* file rotated while the engine runs (LLM_TOOLS_FILE_WATCH_SECS)', () => {
  const keyFile = secret('rotated-key', 'key-one-1\n');
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        { ...weatherTool(toolsUrl), headers: { 'X-Api-Key': '${TOOL_SECRET_ROTATED}' } },
      ]),
      LLM_TOOLS_FILE_WATCH_SECS: '0.1',
      TOOL_SECRET_ROTATED_FILE: keyFile,
    }),
    (req, res) => res.end(String(req.headers['x-api-key'])),
  );
  const reloads = async (outcome: string) => {
    const text = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    const line = new RegExp(
      `agent_engine_tools_file_reloads_total\\{outcome="${outcome}"\\} (\\d+)`,
    );
    return Number(text.match(line)?.[1] ?? 0);
  };

  it('sends the new secret from the next call; a file left empty keeps the one in use', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect((await callOnce(rig, ws, 'get_weather', { city: 'Oslo' })).read).toBe('[secret]');
    expect(rig.tools.requests.at(-1)!.headers['x-api-key']).toBe('key-one-1');
    writeFileSync(keyFile, 'key-two-2\n');
    await untilAsync(async () => (await reloads('installed')) === 1, 'the rotated secret read');
    await callOnce(rig, ws, 'get_weather', { city: 'Oslo' });
    expect(rig.tools.requests.at(-1)!.headers['x-api-key']).toBe('key-two-2');
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    try {
      writeFileSync(keyFile, '');
      await untilAsync(async () => (await reloads('invalid')) === 1, 'the emptied file read');
      expect(String(errors.mock.calls[0]![0])).toContain(
        `TOOL_SECRET_ROTATED_FILE="${keyFile}" is empty`,
      );
    } finally {
      errors.mockRestore();
    }
    await callOnce(rig, ws, 'get_weather', { city: 'Oslo' });
    expect(rig.tools.requests.at(-1)!.headers['x-api-key']).toBe('key-two-2');
    ws.close();
  }, 30_000);
});
