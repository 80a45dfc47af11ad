import { ToolDefinitionError } from './definition-error.js';
import { parseToolsFile } from './tools-file-text.js';

describe('parseToolsFile', () => {
  it('reads JSON, a byte order mark before it too', async () => {
    expect(await parseToolsFile('\uFEFF[{"name":"a"}]', '/etc/tools.json')).toEqual([
      { name: 'a' },
    ]);
  });

  it('reads YAML from a .yaml or .yml file: comments, block text, YAML 1.2 scalars', async () => {
    const text = [
      '# Tools of the front desk',
      '- name: get_weather # what the model calls',
      '  url: "https://wttr.in/{city}?format=3"',
      '  method: GET',
      '  safe: true',
      '  headers: { X-Mode: no }',
      '- type: python',
      '  code: |',
      '    def hello(name: str) -> str:',
      '        """Greets."""',
      '        return "hi " + name',
    ].join('\n');
    const expected = [
      {
        name: 'get_weather',
        url: 'https://wttr.in/{city}?format=3',
        method: 'GET',
        safe: true,
        headers: { 'X-Mode': 'no' },
      },
      {
        type: 'python',
        code: 'def hello(name: str) -> str:\n    """Greets."""\n    return "hi " + name\n',
      },
    ];
    expect(await parseToolsFile(text, '/etc/tools.yaml')).toEqual(expected);
    expect(await parseToolsFile(text, '/etc/TOOLS.YML')).toEqual(expected);
  });

  it('names the file and the line of a YAML error, and a key given twice', async () => {
    await expect(parseToolsFile('- name: a\n  url: [x\n', '/t.yaml')).rejects.toThrow(
      new ToolDefinitionError(
        '/t.yaml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 3, column 1',
      ),
    );
    await expect(parseToolsFile('- name: a\n  name: b\n', '/t.yml')).rejects.toThrow(
      /^\/t\.yml: not valid YAML: Map keys must be unique at line 2, column 3$/,
    );
    await expect(parseToolsFile('[{"name":', '/t.json')).rejects.toThrow(
      /^\/t\.json: not valid JSON: /,
    );
  });
});
