/**
 * The `code` of every `error` event on `/ws`: what a client can act on without reading the
 * human `message`. Their meanings are documented in the README ("WebSocket protocol").
 */
export const ERROR_CODES = [
  'invalid_message',
  'invalid_audio',
  'stt_unavailable',
  'stt_failed',
  'no_speech',
  'llm_disabled',
  'llm_failed',
  'tts_failed',
  'shutting_down',
  'rate_limited',
  'internal',
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];
