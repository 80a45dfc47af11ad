/**
 * The chaos suite's connections (test/turn-chaos.e2e-spec.ts): what a client sent on one, the
 * turns it should see end, and the check of what it received.
 */
import { acknowledges } from '../../src/orchestrator/hold-on.js';
import { DEFAULT_ERROR_PHRASES, DEFAULT_UNCLEAR_PHRASES } from '../../src/config/env-defaults.js';
import { audioProblems, turnEnds, turnProblems } from './chaos-checks.js';
import type { Msg, WsClient } from './ws-client.js';

/** What a voice session hears after a failed turn or transcription (SPEECH_ERROR_PHRASE, …). */
const APOLOGIES = new Set([DEFAULT_ERROR_PHRASES.en, DEFAULT_UNCLEAR_PHRASES.en]);

/** The last messages a client got, short (what a failure to wait for one says). */
export const lastMessages = (messages: Msg[]) =>
  JSON.stringify(
    messages.slice(-12).map(({ type, text, interrupted }: Msg) => ({ type, text, interrupted })),
  );

/** One connection of the conversation and what was sent on it. */
export interface Link {
  ws: WsClient;
  turns: number;
  pings: number;
  garbage: number;
  /**
   * Approvals and client tool calls answered (one may come after its call stopped waiting:
   * an `error` then).
   */
  answered: Set<string>;
}
export const ends = (l: Link) => turnEnds(l.ws.messages).length;
/**
 * The turns a link has started: its user_texts, and the utterances heard as words, but for
 * those taken as a yes or no to calls awaiting approval (each answer's `tool_confirmed`
 * events come together, one per call), and those heard out while calls ran that only
 * acknowledge ("Yes."); and the answers an utterance of no words cut, said on (`resumed`);
 * and the phrases a voice session hears after a turn that failed, or a transcription that
 * did (each its own turn, one delta; said on after a noise cut it, a `resumed` one).
 */
export const due = (l: Link) =>
  l.turns +
  l.ws.messages.filter(
    (m, i, all) => m.type === 'assistant_delta' && APOLOGIES.has(m.text) && !all[i + 1]?.resumed,
  ).length +
  l.ws.messages.filter((m) => m.type === 'transcript' && m.text !== '').length +
  l.ws.messages.filter((m) => m.type === 'assistant_end' && m.resumed).length -
  l.ws.messages.filter(
    (m, i, all) => m.type === 'tool_confirmed' && all[i - 1]?.type !== 'tool_confirmed',
  ).length -
  l.ws.messages.filter(
    (m, i, all) =>
      m.type === 'transcript' &&
      m.heard_out &&
      acknowledges(m.text) &&
      all[i + 1]?.type !== 'tool_confirmed',
  ).length;

/** What one connection received; `closed`: it was left before its last turn ended. */
export function checkLink(l: Link, closed: boolean): void {
  const problems = [...turnProblems(l.ws.messages, closed), ...audioProblems(l.ws.messages)];
  if (problems.length > 0)
    throw new Error(`${problems.join('\n')}\nreceived: ${JSON.stringify(l.ws.messages)}`);
  const errors = l.ws.messages.filter((m) => m.type === 'error' && m.code === 'invalid_message');
  const pongs = l.ws.messages.filter((m) => m.type === 'pong').map((m) => m.id as string);
  const pinged = Array.from({ length: l.pings }, (_, i) => `p${i + 1}`);
  if (closed) {
    expect(ends(l)).toBeLessThanOrEqual(due(l));
    expect(errors.length).toBeLessThanOrEqual(l.garbage + l.answered.size);
    expect(pongs).toEqual(pinged.slice(0, pongs.length));
  } else {
    expect(ends(l)).toBe(due(l));
    expect(errors.length).toBeGreaterThanOrEqual(l.garbage);
    expect(errors.length).toBeLessThanOrEqual(l.garbage + l.answered.size);
    expect(pongs).toEqual(pinged);
  }
}

/** A connection opened, nothing sent on it yet. */
export const linkOf = (ws: WsClient): Link => ({
  ws,
  turns: 0,
  pings: 0,
  garbage: 0,
  answered: new Set(),
});
