import fc from 'fast-check';
import { chaosOptions } from './support/chaos-checks.js';
import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { answersOn } from './support/calls-answered.js';
import { WsClient, type Msg } from './support/ws-client.js';

/** Calls the tools it is given, each `[name, arguments]`, as a code tool's author would. */
const PROBE = `import json

def probe(calls: str) -> list:
    """Calls the tools it is given."""
    out = []
    for name, arguments in json.loads(calls):
        try:
            result = getattr(tools, name)(arguments)
            json.dumps(result)  # what is no result (tools.__class__ makes a tools object)
            out.append(["ok", result])
        except Exception as e:
            out.append(["raised", type(e).__name__])
    return out
`;

const ECHO = `def echo(value: str = "") -> dict:
    """Gives back what it was given."""
    return {"got": value}
`;

/** Text as a model may write it: plain, empty, with a slash or half a character. */
const text = fc.oneof(
  fc.constantFrom('Rome', '', 'São Paulo', 'a/b?c', 'half \ud800', '..'),
  fc.string({ maxLength: 10, unit: 'binary' }),
);
/** Arguments: mostly an object of the tools' fields, or any JSON. */
const args = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        city: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
        text,
        value: fc.oneof(text, fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    ),
  },
  fc.jsonValue({ maxDepth: 2 }),
);
const call = fc.tuple(
  fc.constantFrom('get_weather', 'post_note', 'echo', 'nowhere', 'probe', '__class__', 'x y'),
  args,
);

/**
 * Random calls a code tool makes to the others (`tools.<name>(…)`): HTTP tools, a code tool, a
 * tool that is none, with arguments right or wrong, any JSON, half a character: each gives the
 * code a result or raises in Python, the code tool's own result reaches the model whole, every
 * HTTP request made is one of a call asked for, and the session answers on.
 */
describe("random calls of code tools' tools.<name>", () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      CODE_TOOLS_WORKERS: '1',
      LLM_TOOLS_FILE: writeToolsFile([
        { type: 'python', code: PROBE },
        { type: 'python', code: ECHO },
        { ...weatherTool(base), url: `${base}/weather/{city}` },
        {
          name: 'post_note',
          description: 'Keeps a note',
          parameters: { type: 'object', properties: { text: { type: 'string' } } },
          url: `${base}/notes`,
          method: 'POST',
        },
      ]),
    }),
    (_req, res) => {
      res.setHeader('Content-Type', 'application/json');
      res.end('{"kept":true}');
    },
  );

  it('give the code a result or a Python exception, never fail the turn', async () => {
    rig.llm.fallback = () => sseText(['Fine.']);
    const outcomes = new Set<string>();
    let runs = 0;
    const ws = await WsClient.connect(rig.engine.wsUrl);
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 5 }), async (calls) => {
          rig.llm.reset();
          rig.llm.fallback = () => sseText(['Fine.']);
          rig.tools.requests.length = 0;
          const id = `call_${++runs}`;
          rig.llm.enqueue(
            sseStructuredCalls([
              { id, name: 'probe', arguments: { calls: JSON.stringify(calls) } },
            ]),
            sseText(['Done.']),
          );
          const from = ws.messages.length;
          const end = await ws.turn('go', 30_000);
          const events = ws.messages.slice(from);
          expect(end.at(-1)).toEqual({ type: 'assistant_end', text: 'Done.' });
          expect(events.filter((m) => m.type === 'error')).toEqual([]);
          const result = events.find((m: Msg) => m.type === 'tool_result')!;
          const told = (rig.llm.requests[1]!.body.messages as Msg[]).find(
            (m) => m.role === 'tool' && m.tool_call_id === id,
          )!.content as string;
          expect([result.ok, told]).toEqual([true, expect.any(String)]);
          if (!told.startsWith('[')) throw new Error(told);
          const answers = JSON.parse(told) as [string, unknown][];
          expect(answers).toHaveLength(calls.length);
          for (const [outcome] of answers) outcomes.add(outcome);
          // Only calls asked for reached the tools' server, each at its own path.
          const asked = calls.filter(([name]) => name === 'get_weather' || name === 'post_note');
          expect(rig.tools.requests.length).toBeLessThanOrEqual(asked.length);
          for (const request of rig.tools.requests)
            expect(request.path).toMatch(/^\/(weather\/[^/]*|notes)$/);
        }),
        {
          ...chaosOptions(Number(process.env.CHAOS_RUNS ?? 25)),
          // Each outcome at least once, however few runs the time limit lets through.
          examples: [[[['echo', { value: 'hi' }] as [string, unknown], ['nowhere', {}]]]],
        },
      );
      await answersOn(rig.llm, ws);
    } finally {
      ws.close();
    }
    expect([...outcomes].sort()).toEqual(['ok', 'raised']);
  }, 180_000);
});
