import { mkdirSync, mkdtempSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startError } from './support/engine.js';
import { sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const tool = (name: string, base: string) => ({ name, url: `${base}/${name}`, method: 'GET' });
const yamlTool = (name: string, base: string) =>
  `- name: ${name}\n  url: ${base}/${name}\n  method: GET\n`;

/**
 * LLM_TOOLS_FILE naming a directory: each team's tools file (JSON or YAML, a ConfigMap each
 * projected into it) makes one set, in the order of the files' names, read again as files come,
 * go or change; messages name the file a definition is in.
 */
describe('a directory of tools files', () => {
  let dir = '';
  let base = '';
  const rig = useEngineRig((toolsUrl) => {
    base = toolsUrl;
    dir = mkdtempSync(join(tmpdir(), 'engine-tools-dir-'));
    writeFileSync(join(dir, 'b-orders.yaml'), yamlTool('lookup_order', toolsUrl));
    writeFileSync(join(dir, 'a-weather.json'), JSON.stringify([tool('get_weather', toolsUrl)]));
    writeFileSync(join(dir, 'README.md'), 'not a tools file');
    mkdirSync(join(dir, '..2026_12_02'));
    writeFileSync(join(dir, '..2026_12_02', 'c.json'), JSON.stringify([tool('hidden', toolsUrl)]));
    symlinkSync('..2026_12_02', join(dir, '..data'));
    return { LLM_MODEL: 'm', LLM_TOOLS_FILE: dir, LLM_TOOLS_FILE_WATCH_SECS: '0.1' };
  });
  const client = useClientPerTest(rig);
  const offered = async () => {
    rig.llm.enqueue(sseText(['ok']));
    await client.ws.turn('hello', 10_000);
    return rig.llm.requests.at(-1)!.body.tools.map((t: any) => t.function.name);
  };
  const names = async () =>
    (
      (await (await fetch(`${rig.engine.httpUrl}/api/tools`)).json()) as {
        tools: { name: string }[];
      }
    ).tools.map((t) => t.name);

  it("offers every file's tools, in the order of the files' names", async () => {
    expect(await offered()).toEqual(['get_weather', 'lookup_order']);
  });

  it('reads the directory again when a file comes, changes or goes', async () => {
    writeFileSync(join(dir, 'c-new.tmp'), JSON.stringify([tool('book_table', base)]));
    renameSync(join(dir, 'c-new.tmp'), join(dir, 'c-bookings.json'));
    await untilAsync(async () => (await names()).includes('book_table'), 'the new file');
    expect(await offered()).toEqual(['get_weather', 'lookup_order', 'book_table']);
    writeFileSync(join(dir, 'b-orders.yaml'), yamlTool('cancel_order', base));
    await untilAsync(async () => (await names()).includes('cancel_order'), 'the edited file');
    rmSync(join(dir, 'a-weather.json'));
    await untilAsync(async () => !(await names()).includes('get_weather'), 'the removed file');
    expect(await offered()).toEqual(['cancel_order', 'book_table']);
  });
});

describe('a directory of tools files that is not valid', () => {
  const start = async (files: Record<string, string>) => {
    const dir = mkdtempSync(join(tmpdir(), 'engine-tools-dir-'));
    for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
    return { dir, error: await startError({ LLM_TOOLS_FILE: dir }) };
  };

  it('stops start-up naming the file of the bad definition and its place in it', async () => {
    const { dir, error } = await start({
      'a.json': JSON.stringify([tool('one', 'http://h'), tool('two', 'http://h')]),
      'b.yaml': `${yamlTool('three', 'http://h')}- name: broken\n`,
    });
    expect(error).toContain(`${join(dir, 'b.yaml')}: tool #1 'broken': field 'url' is required`);
  });

  it('names both files of a name given twice', async () => {
    const { dir, error } = await start({
      'a.json': JSON.stringify([tool('one', 'http://h'), tool('two', 'http://h')]),
      'b.json': JSON.stringify([tool('two', 'http://h2')]),
    });
    expect(error).toContain(
      `${join(dir, 'b.json')}: tool #0 'two': field 'name' duplicates tool #1 of ${join(dir, 'a.json')}`,
    );
  });

  it('stops start-up on a directory with no tools file, and on a file that is no array, naming the setting', async () => {
    const empty = await start({ 'notes.txt': 'x' });
    expect(empty.error).toContain(
      `${empty.dir} (LLM_TOOLS_FILE): the directory holds no tools file (*.json, *.yaml, *.yml)`,
    );
    const object = await start({ 'a.yaml': 'name: one\nurl: http://h/\n' });
    expect(object.error).toContain(
      `LLM_TOOLS_FILE: ${join(object.dir, 'a.yaml')}: expected a JSON array of tool definitions`,
    );
  });
});
