import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';

/** A tool's `result_max_chars` replaces LLM_TOOL_RESULT_MAX_CHARS for its results. */
describe('result limits per tool', () => {
  const long = 'word '.repeat(100).trim();
  const issues = [
    { id: 1, title: 'Door  sticks', labels: ['bug'] },
    { id: 2, title: 'Light out', labels: [] },
  ];
  // As many APIs and MCP servers answer: indented, a number too large for a double.
  const indented = JSON.stringify(issues, null, 2).replace(
    '"id": 1,',
    '"id": 12345678901234567890,',
  );
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      LLM_TOOL_RESULT_MAX_CHARS: '50',
      CODE_TOOLS_WORKERS: '1',
      LLM_TOOLS_FILE: writeToolsFile([
        { name: 'article', url: `${base}/article`, method: 'GET', result_max_chars: 1000 },
        { name: 'snippet', url: `${base}/article`, method: 'GET' },
        { name: 'issues', url: `${base}/issues`, method: 'GET', result_max_chars: 120 },
        {
          type: 'python',
          code: `def essay() -> str:\n    """A long text."""\n    return ${JSON.stringify(long)}`,
          result_max_chars: 12,
        },
        {
          type: 'python',
          code: 'def rooms() -> list:\n    "Free rooms."\n    return [{"room": n, "beds": 2} for n in range(100, 120)]',
          result_max_chars: 60,
        },
      ]),
    }),
    (req, res) => {
      if (req.url !== '/issues') return void res.end(long);
      res.setHeader('Content-Type', 'application/json');
      res.end(indented);
    },
  );
  const client = useClientPerTest(rig);

  /** What the model reads for one call of `name`. */
  async function read(name: string): Promise<string> {
    rig.llm.enqueue(sseStructuredCalls([{ id: 'call_1', name, arguments: {} }]), sseText(['ok']));
    await client.ws.turn('go', 20_000);
    return rig.llm.requests[1]!.body.messages.findLast((m: any) => m.role === 'tool').content;
  }

  it('lets the one long tool be read whole, and cuts the others at the engine’s limit', async () => {
    expect(await read('article')).toBe(long);
    rig.llm.reset();
    expect(await read('snippet')).toBe(`${long.slice(0, 50)}… [truncated]`);
  });

  it('counts a JSON result without the whitespace between its tokens, as the model reads it', async () => {
    expect(indented.length).toBeGreaterThan(120);
    expect(await read('issues')).toBe(
      '[{"id":12345678901234567890,"title":"Door  sticks","labels":["bug"]},{"id":2,"title":"Light out","labels":[]}]',
    );
  });

  it('applies to code tools too', async () => {
    expect(await read('essay')).toBe(`${JSON.stringify(long).slice(0, 12)}… [truncated]`);
    // A value the function returns is written compact before the cut, as a JSON result is read.
    rig.llm.reset();
    expect(await read('rooms')).toBe(
      '[{"room":100,"beds":2},{"room":101,"beds":2},{"room":102,"be… [truncated]',
    );
  }, 30_000);
});
