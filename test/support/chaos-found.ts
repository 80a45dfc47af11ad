import type { Action, Answer } from './chaos.js';

/**
 * Conversations a random search of test/turn-chaos.e2e-spec.ts once failed on (in CI, or on a
 * machine kept busy), tried first every time: its answers, actions and voice.
 */
export const FOUND: [Answer[], Action[], boolean][] = [
  // The apology for a failed spoken turn, waiting behind firm notices, was said after the
  // user's next turns, and cut the last of them short.
  [
    [
      { kind: 'text', words: [' Let me check that.'], delayMs: 0 },
      { kind: 'status', status: 400 },
    ],
    [
      { kind: 'voice', on: true },
      { kind: 'text', text: 'hi' },
      { kind: 'wait', ms: 8 },
      { kind: 'text', text: 'yes please' },
      { kind: 'say', firm: true },
      { kind: 'text', text: 'weather in Paris?' },
      { kind: 'audio' },
      { kind: 'say', firm: false },
      { kind: 'interrupt' },
      { kind: 'text', text: 'hi' },
    ],
    false,
  ],
  // An "I didn't catch that" waiting behind a firm notice was said after the user's next
  // turns, the last words of the conversation.
  [
    [],
    [
      { kind: 'utterance', stt: 'failure' },
      { kind: 'say', firm: true },
      { kind: 'text', text: 'hi' },
      { kind: 'interrupt' },
    ],
    true,
  ],
];
