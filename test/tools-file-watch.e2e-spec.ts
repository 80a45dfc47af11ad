import { Logger } from '@nestjs/common';
import { writeFileSync } from 'node:fs';
import { sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { untilAsync } from './support/waiting.js';

const tool = (name: string, base: string) => ({
  name,
  description: `the ${name} tool`,
  url: `${base}/${name}`,
  method: 'GET',
});

/**
 * LLM_TOOLS_FILE_WATCH_SECS: a tools file edited while the engine runs (a Kubernetes ConfigMap
 * updated) is read again, and its definitions apply from the next turn, without a restart.
 */
describe('tools file watched for changes', () => {
  let path = '';
  let base = '';
  const rig = useEngineRig((toolsUrl) => {
    base = toolsUrl;
    path = writeToolsFile([tool('first', toolsUrl)]);
    return { LLM_MODEL: 'm', LLM_TOOLS_FILE: path, LLM_TOOLS_FILE_WATCH_SECS: '0.1' };
  });
  const client = useClientPerTest(rig);

  const active = async () =>
    (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as {
      source: string;
      tools: { name: string }[];
    };
  const names = async () => (await active()).tools.map((t) => t.name);
  const offered = async () => {
    rig.llm.enqueue(sseText(['ok']));
    await client.ws.turn('hello', 10_000);
    return rig.llm.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
  };
  const reloads = async (outcome: string) => {
    const text = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    const line = text.match(
      new RegExp(`agent_engine_tools_file_reloads_total\\{outcome="${outcome}"\\} (\\d+)`),
    );
    return Number(line?.[1] ?? 0);
  };

  it('installs the edited file from the next turn, and keeps the tools in use when the edit is invalid', async () => {
    expect(await offered()).toEqual(['first']);
    writeFileSync(path, JSON.stringify([tool('second', base), tool('third', base)]));
    await untilAsync(async () => (await names()).includes('second'), 'the edited file');
    expect(await offered()).toEqual(['second', 'third']);
    expect(await reloads('installed')).toBe(1);

    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    try {
      writeFileSync(
        path,
        JSON.stringify([tool('fourth', base), { name: 'broken', description: 'no address' }]),
      );
      await untilAsync(async () => (await reloads('invalid')) === 1, 'the invalid file read');
      expect(String(errors.mock.calls[0]![0])).toMatch(
        new RegExp(`tools in use are kept: ${path}: tool #1 'broken': field 'url' is required`),
      );
    } finally {
      errors.mockRestore();
    }
    expect(await names()).toEqual(['second', 'third']);
    expect(await offered()).toEqual(['second', 'third']);
  });

  it('leaves an override from /api/tools in force', async () => {
    expect((await postTools(rig.engine.httpUrl, [tool('override', base)])).status).toBe(200);
    const kept = await reloads('kept_override');
    writeFileSync(path, JSON.stringify([tool('fifth', base)]));
    await untilAsync(
      async () => (await reloads('kept_override')) === kept + 1,
      'the file read while an override is in force',
    );
    expect(await active()).toMatchObject({ source: 'request', tools: [{ name: 'override' }] });
    expect(await offered()).toEqual(['override']);
  });
});
