import type { CodeToolService } from '../code-tools/code-tool.service.js';
import { snapshotOf, type Tool } from '../tools/tool-definition.js';
import type { ToolCallContext } from '../tools/tool-executor.js';
import { validateToolDefinitions } from '../tools/tool-validation.js';
import { ToolScope } from './tool-scope.service.js';

const http = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  url: `https://api.example/${name}`,
  ...extra,
});
const callback = (code: string) => ({ type: 'callback', code });
const HIDE_B =
  'def before_model_callback(callback_context, llm_request) -> None:\n    llm_request.config.hide_tool("b")';

function snapshot(definitions: unknown[]) {
  return snapshotOf('file', validateToolDefinitions(definitions, 'test').tools);
}

/** Code tools that run no Python: each callback hides what `hides` says, and is recorded. */
function codeTools(hides: (callback: Tool, offered: string[]) => string[]) {
  const runs: { callback: string; offered: string[] }[] = [];
  const code = {
    beforeModel: (callbacks: readonly Tool[], names: string[]) => {
      const hidden = new Set<string>();
      for (const cb of callbacks) {
        runs.push({ callback: cb.name, offered: names });
        for (const name of hides(cb, names)) hidden.add(name);
      }
      return Promise.resolve(hidden);
    },
  } as unknown as CodeToolService;
  return { scope: new ToolScope(code), runs };
}

const context = (modality: 'voice' | 'text'): ToolCallContext => ({
  sessionId: 's',
  turnId: 't',
  modality,
  channel: 'websocket',
  state: { value: {} },
  events: [],
  variables: {},
});

const names = (tools: readonly Tool[]) => tools.map((t) => t.name);

describe('the tools one request may use', () => {
  it('leaves out what a single before_model_callback hides; the callback sees only what is left after the modality and the session selection', async () => {
    const { scope, runs } = codeTools(() => ['b']);
    const base = snapshot([
      http('a'),
      http('b'),
      http('c'),
      http('spoken', { modalities: ['voice'] }),
      callback(HIDE_B),
    ]);
    const scoped = await scope.forRequest({
      base,
      context: context('text'),
      only: ['a', 'b', 'spoken'],
    });
    expect(names(scoped.tools)).toEqual(['a']);
    expect(scoped.byName.has('b')).toBe(false);
    expect(runs).toEqual([{ callback: expect.any(String), offered: ['a', 'b'] }]);
  });

  it('keeps the snapshot itself when nothing is hidden, and leaves out tools of another modality', async () => {
    const { scope } = codeTools(() => []);
    const base = snapshot([http('a'), http('spoken', { modalities: ['voice'] })]);
    expect(await scope.forRequest({ base, context: context('voice'), only: null })).toBe(base);
    const text = await scope.forRequest({ base, context: context('text'), only: null });
    expect(names(text.tools)).toEqual(['a']);
  });
});
