import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startError } from './support/engine.js';
import { callOnce, useEngineRig } from './support/turn-harness.js';
import { WsClient } from './support/ws-client.js';

/** Writes `text` as a tools file named `name` in a fresh directory; returns its path. */
function toolsYaml(text: string, name = 'tools.yaml'): string {
  const path = join(mkdtempSync(join(tmpdir(), 'engine-tools-yaml-')), name);
  writeFileSync(path, text);
  return path;
}

const TOOLS = (
  base: string,
) => `# The front desk's tools: comments are kept out of what the model reads.
- name: get_weather
  description: Current weather of a city.
  parameters:
    type: object
    properties: { city: { type: string } }
    required: [city]
  url: "${base}/{city}?format=3"
  method: GET

# A code tool's Python, as it is written, in a block.
- type: python
  code: |
    def shout(text: str) -> str:
        """Says the text louder."""
        return text.upper() + "!"
`;

/** LLM_TOOLS_FILE in YAML (`tools.yaml`, `tools.yml`): as the JSON file, with comments and code blocks. */
describe('a tools file in YAML', () => {
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: toolsYaml(TOOLS(toolsUrl)),
      CODE_TOOLS_WORKERS: '1',
    }),
    (req, res) => res.end(`${req.path.slice(1)}: sunny`),
  );

  it('gives HTTP and code tools the model calls', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    expect((await callOnce(rig, ws, 'get_weather', { city: 'Oslo' })).read).toBe('Oslo: sunny');
    expect((await callOnce(rig, ws, 'shout', { text: 'hello' })).read).toBe('"HELLO!"');
    ws.close();
  }, 60_000);

  it('that is not valid YAML stops start-up naming the file and the line', async () => {
    const path = toolsYaml('- name: a\n  url: http://h/\n  url: http://h/2\n', 'tools.yml');
    expect(await startError({ LLM_TOOLS_FILE: path })).toContain(
      `${path}: not valid YAML: Map keys must be unique at line 3, column 3`,
    );
  });
});
