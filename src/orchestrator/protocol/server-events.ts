/** Engine → client messages on `/ws` (README, "WebSocket protocol"). */
export type TurnEvent =
  | { type: 'assistant_delta'; text: string }
  | { type: 'tool_call'; id: string; name: string; arguments: Record<string, unknown> }
  | { type: 'tool_result'; id: string; name: string; ok: boolean; ms: number }
  | { type: 'assistant_end'; text: string; interrupted?: true }
  | { type: 'error'; message: string };

export type ServerEvent = TurnEvent | { type: 'session'; session_id: string };
