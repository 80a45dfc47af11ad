import { MARKUP } from './turn-harness.js';
import type { Msg } from './ws-client.js';

/** Invariants of a conversation through /ws, whatever happened in it (see turn-chaos.e2e-spec). */

/**
 * A JavaScript fault's words, or fetch's bare ones: what no error, refusal or result the engine
 * tells a client, an administrator or the model should be (the code reading something failed,
 * rather than the engine saying what was wrong with it).
 */
export const FAULT_WORDS =
  /is not (iterable|a function)|Cannot (read|set) properties of|Cannot convert |\[object Object\]|(^|: )(terminated|aborted|fetch failed)$|operation was aborted/;

/** The `error` events among `messages`: each said in words a user can read, not a fault's. */
export function expectPlainErrors(messages: Msg[]): void {
  for (const m of messages) if (m.type === 'error') expect(m.message).not.toMatch(FAULT_WORDS);
}

/**
 * fast-check's options for `runs` random conversations (a time limit of 2 s each); CHAOS_SEED and
 * CHAOS_PATH replay a failure's.
 */
export const chaosOptions = (runs: number) => ({
  numRuns: runs,
  interruptAfterTimeLimit: runs * 2000,
  ...(process.env.CHAOS_SEED && {
    seed: Number(process.env.CHAOS_SEED),
    path: process.env.CHAOS_PATH,
    endOnFailure: true,
  }),
});

/** Problems with the messages of one LLM request: the OpenAI round-trip a server would refuse. */
export function historyProblems(body: Record<string, any>): string[] {
  const problems: string[] = [];
  const messages = body.messages as Record<string, any>[];
  if (messages[0]?.role !== 'system') problems.push('the first message is not the system prompt');
  const seen = new Set<string>();
  // A turn's reasoning goes back with its calls while the turn lasts (LLM_KEEP_REASONING): none
  // before the turn's user message (or the engine's note within the turn).
  const turnStart = messages.findLastIndex(
    (m) => m.role === 'user' && !String(m.content).startsWith('(A note from the engine'),
  );
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.reasoning_content !== undefined || m.reasoning !== undefined) {
      if (i < turnStart) problems.push(`message ${i}: reasoning of an earlier turn`);
      if (m.role !== 'assistant' || !m.tool_calls?.length || m.reasoning !== m.reasoning_content)
        problems.push(`message ${i}: reasoning but on an assistant's calls, under both names`);
    }
    if (m.role === 'tool')
      problems.push(`message ${i}: a tool message no assistant tool_calls announced`);
    if (m.role === 'user' && messages[i - 1]?.role === 'user')
      problems.push(`message ${i}: a user message after another (roles that do not alternate)`);
    if (m.role === 'assistant' && typeof m.content === 'string' && MARKUP.test(m.content))
      problems.push(`message ${i}: call markup in the assistant's content`);
    if (m.role !== 'assistant' || !m.tool_calls?.length) continue;
    for (const c of m.tool_calls as Record<string, any>[]) {
      if (typeof c.id !== 'string' || c.id === '') problems.push(`message ${i}: a call without id`);
      if (seen.has(c.id)) problems.push(`message ${i}: call id ${c.id} used before in the request`);
      seen.add(c.id);
      try {
        JSON.parse(c.function.arguments);
      } catch {
        problems.push(`message ${i}: arguments of ${c.id} are not a JSON string`);
      }
    }
    const ids = (m.tool_calls as { id: string }[]).map((c) => c.id);
    const answered = messages
      .slice(i + 1, i + 1 + ids.length)
      .map((t) => (t.role === 'tool' ? t.tool_call_id : `<${t.role}>`));
    if (JSON.stringify(answered) !== JSON.stringify(ids))
      problems.push(`message ${i}: calls ${ids.join(',')} answered by ${answered.join(',')}`);
    i += ids.length;
  }
  if (body.tool_choice !== undefined && !['auto', 'none'].includes(body.tool_choice))
    problems.push(`tool_choice ${body.tool_choice}`);
  return problems;
}

/** Messages outside any turn's text: session, settings, pongs, speech, transcripts. */
const OUTSIDE = new Set([
  'session',
  'session.updated',
  'pong',
  'audio',
  'audio_end',
  'audio_clear',
  'transcript',
]);
/** Errors about a client message, not a turn: a refused frame or utterance. */
const INPUT_ERRORS = new Set(['invalid_message', 'invalid_audio', 'no_speech', 'stt_failed']);

/** The `assistant_end` of each turn (not the second, `heard` one of a barge-in). */
export const turnEnds = (messages: Msg[]) =>
  messages.filter((m) => m.type === 'assistant_end' && !m.heard);

/** Problems with what the client received, turn by turn (a turn ends at its assistant_end). */
export function turnProblems(messages: Msg[], closedEarly = false): string[] {
  const problems: string[] = [];
  let turn: Msg[] = [];
  let last: Msg | undefined;
  for (const m of messages) {
    if (OUTSIDE.has(m.type)) continue;
    if (m.type === 'error' && INPUT_ERRORS.has(m.code)) continue;
    // A background call's result (or a call's let finish when its turn was cut): outside any turn.
    if (m.type === 'tool_result' && m.background === 'done') continue;
    if (m.type !== 'assistant_end') {
      turn.push(m);
      continue;
    }
    const n = `turn ending ${JSON.stringify(m.text)}`;
    if (m.heard) {
      // Right after its turn's end: the text had ended, or was cut short too.
      if (turn.length > 0 || !last || last.heard || !m.interrupted)
        problems.push(`${n}: a heard end that does not follow its turn's end`);
      last = m;
      continue;
    }
    last = m;
    const shown = turn.filter((e) => e.type === 'assistant_delta').map((e) => e.text as string);
    if (shown.join('') !== m.text)
      problems.push(`${n}: deltas ${JSON.stringify(shown)} are not its text`);
    if (shown.some((t) => MARKUP.test(t))) problems.push(`${n}: call markup in a delta`);
    const called = new Set<string>();
    const asked = new Set<string>();
    for (const e of turn) {
      if (e.type === 'tool_call') {
        if (called.has(e.id)) problems.push(`${n}: call ${e.id} announced twice`);
        called.add(e.id);
      }
      if (e.type === 'tool_confirm' && !called.has(e.id))
        problems.push(`${n}: approval asked for ${e.id}, not called in this turn`);
      if (e.type === 'tool_confirm') asked.add(e.id);
      if (e.type === 'client_tool_call' && !called.has(e.id))
        problems.push(`${n}: the client asked to run ${e.id}, not called in this turn`);
      if (e.type === 'tool_confirmed' && !asked.delete(e.id))
        problems.push(`${n}: ${e.id} answered by voice or text, never asked for in this turn`);
      if (e.type === 'tool_progress' && !called.has(e.id))
        problems.push(`${n}: progress of ${e.id}, not running in this turn`);
      if (e.type === 'tool_result' && !called.delete(e.id))
        problems.push(`${n}: result of ${e.id}, never called in this turn`);
      if (e.type === 'error' && e.code !== 'llm_failed')
        problems.push(`${n}: error ${e.code} ${e.message}`);
      if (
        ![
          'assistant_delta',
          'tool_call',
          'tool_confirm',
          'tool_confirmed',
          'client_tool_call',
          'tool_progress',
          'tool_result',
          'error',
        ].includes(e.type)
      )
        problems.push(`${n}: event ${e.type}`);
    }
    if (called.size > 0 && !m.interrupted)
      problems.push(`${n}: calls ${[...called].join(',')} without a result`);
    turn = [];
  }
  if (turn.length > 0 && !closedEarly)
    problems.push(`events after the last assistant_end: ${JSON.stringify(turn)}`);
  return problems;
}

/** Problems with the speech: each turn's audio numbered from 0 without a gap, then one audio_end. */
export function audioProblems(messages: Msg[]): string[] {
  const problems: string[] = [];
  let next = 0;
  for (const m of messages) {
    if (m.type === 'audio') {
      if (m.seq !== next) problems.push(`audio ${m.seq} where ${next} was due`);
      next = (m.seq as number) + 1;
      if (!(typeof m.data === 'string' && m.data.length > 0)) problems.push(`audio ${m.seq} empty`);
    }
    if (m.type === 'audio_end') next = 0;
  }
  return problems;
}
