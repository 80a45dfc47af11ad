// The engine as `npm run eval` meets it in the tests: a model (the fake LLM) that calls the weather
// tool for "the weather in CITY" and tells its result, a real tool server, the built command.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCommand } from './built-engine.js';
import { sseCall, sseText } from './fake-llm.js';
import { useEngineRig, type EngineRig } from './turn-harness.js';
import { weatherTool, writeToolsFile } from './tools-file.js';

export const EVAL_KEY = 'eval-key';

export interface EvalRig extends EngineRig {
  /** The model's arguments drift (a city written in lower case): a change a check must catch. */
  drift: boolean;
  url(): string;
  /** Writes `content` (JSON unless a string or bytes) to a file of the test's own; its path. */
  write(name: string, content: unknown): string;
  /** `npm run eval` with `args`, the key in its environment unless `env` says otherwise. */
  run(args: string[], env?: Record<string, string>): ReturnType<typeof runCommand>;
}

export function useEvalRig(
  env: (toolsUrl: string) => Record<string, string> = () => ({}),
): EvalRig {
  const dir = mkdtempSync(join(tmpdir(), 'engine-eval-'));
  const rig = useEngineRig(
    (base) => ({
      WS_API_KEY: EVAL_KEY,
      LLM_MODEL: 'good',
      LLM_MODELS: 'good,drifty',
      SESSION_TOOL_MOCKS: 'true',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool(base),
        { ...weatherTool(base), name: 'book_weather', confirm: true },
      ]),
      ...env(base),
    }),
    (req, res) => res.end(`${decodeURIComponent(req.url.split('?')[0]!.slice(1))}: sunny`),
  ) as EvalRig;
  rig.drift = false;
  rig.url = () => rig.engine.wsUrl;
  rig.write = (name, content) => {
    const path = join(dir, name);
    const bytes = typeof content === 'string' || Buffer.isBuffer(content);
    writeFileSync(path, bytes ? content : JSON.stringify(content));
    return path;
  };
  rig.run = (args, runEnv = { WS_API_KEY: EVAL_KEY }) =>
    runCommand('dist/eval/cli.js', args, runEnv);
  beforeAll(() => {
    rig.llm.fallback = (body) => {
      const last = body.messages.at(-1);
      const said = String(last.content);
      if (last.role === 'tool')
        return sseText(said.includes(': sunny') ? ['It is ', 'sunny.'] : ['Told: ', said]);
      if (said.includes('stall')) return { kind: 'hang' };
      // A call the model gets wrong (no city), then its answer once told why.
      if (said.includes('nowhere')) return sseCall('call_x', 'get_weather', {});
      if (said.includes('slowly')) return { ...sseText(['Well', '.']), delayMs: 150 };
      const city = /(weather|map) in (\w+)/i.exec(said);
      if (!city) return sseText(['Hello! How can I help?']);
      const tool = { weather: 'get_weather', map: 'open_map' }[city[1]!]!;
      const name = said.includes('booked') ? 'book_weather' : tool;
      // A model of its own (`drifty`) writes the city otherwise, as `drift` has every model do.
      const drifts = rig.drift || body.model === 'drifty';
      const written = drifts ? city[2]!.toLowerCase() : city[2]!;
      return sseCall(`call_${city[2]}`, name, { city: written });
    };
  });
  return rig;
}
