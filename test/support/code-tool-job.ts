/**
 * The `context` a code tool's job carries into its worker (what the engine builds from a turn:
 * CodeToolService), for tests that drive the pool itself. `session` also names the call.
 */
export function jobContext(
  session = 's1',
  { text = 'hi', state = {} }: { text?: string; state?: Record<string, unknown> } = {},
) {
  return {
    function_call_id: `call_${session}`,
    user_content: { role: 'user', parts: [{ text }] },
    state,
    events: [],
    session_id: session,
    invocation_id: 't1',
    agent_name: 'agent',
    session: { modality: 'TEXT', channel: 'websocket' },
  };
}

/** The job of calling `f()` in `code` with no arguments, as the pool takes it (`pool.run({job})`). */
export const jobOf = (code: string, context: ReturnType<typeof jobContext> = jobContext()) => ({
  code,
  func: 'f',
  args: {},
  context,
});
