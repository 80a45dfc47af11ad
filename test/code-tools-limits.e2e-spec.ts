import { callOnce, useEngineRig } from './support/turn-harness.js';
import { writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

const HUGE = `def huge(what: str) -> str:
    """Makes something far too large."""
    if what == "result":
        return "é" * 50_000_000
    if what == "error":
        raise ValueError("x" * 50_000_000)
    if what == "state":
        context.state["big"] = "z" * 3_000_000
        return "kept?"
    return str(len(context.state.get("big", "")))
`;

/**
 * A code tool that makes something huge — a result, an error's message, a state — hands the model
 * what LLM_TOOL_RESULT_MAX_CHARS allows, as for any tool, and the engine never holds the rest: the
 * worker sends at most one character past the limit (a state over twice the limit a session
 * keeps: only its size). Before, a 50 MB result crossed whole into the engine's memory.
 */
describe('code tools: what a call makes is held to the limits before it reaches the engine', () => {
  const rig = useEngineRig(() => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([{ type: 'python', code: HUGE, timeout_secs: 60 }]),
    CODE_TOOLS_WORKERS: '1',
    LLM_TOOL_RESULT_MAX_CHARS: '40',
  }));

  it.each([
    ['result', `"${'é'.repeat(39)}… [truncated]`],
    ['error', `Error: ValueError: ${'x'.repeat(21)}… [truncated]`],
    [
      'state',
      'Error: ValueError: context.state would hold 3000010 characters of JSON, over the 1048576 a session keeps: the changes were not kept',
    ],
  ])(
    '%s: the model reads it cut as any tool result',
    async (what, read) => {
      const ws = await WsClient.connect(rig.engine.wsUrl);
      expect((await callOnce(rig, ws, 'huge', { what })).read).toBe(read);
      // The session's state is as it was: the change was not kept.
      expect((await callOnce(rig, ws, 'huge', { what: 'size' })).read).toBe('"0"');
      ws.close();
    },
    60_000,
  );
});
