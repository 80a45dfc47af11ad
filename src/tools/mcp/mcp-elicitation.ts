/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks its client's user something
 * while it runs a call. The engine asks the user a form a field at a time — a confirmation (no
 * fields) or a boolean as it asks approvals (`tool_confirm`), a text, a number or a choice as a
 * question (`tool_question`), all said in a voice session — and only the user of the one
 * session whose calls wait on the connection: a shared connection's server cannot say whose call
 * it asks for. Anything else (a field of another kind, a URL) is answered `cancel`, as a user who
 * dismissed the question, and the server goes on without it. Pure: no Nest import.
 */
import type { UserAnswer } from '../tool-executor.js';
import type { AnswerValue, Wanted } from '../user-question.js';
import { formQuestions, MAX_FORM_FIELDS, type FormSchema } from './mcp-form.js';
import type { EngineLogLevel } from './mcp-server-log.js';

/** A `tools/call` in flight on a connection: whose session it is, and how it asks its user. */
export interface Asker {
  session?: string;
  /** The session's own model (LLM_MODELS), which the server's sampling requests then ask. */
  model?: string;
  /**
   * Absent for a call no user waits on (a background call, a try over the admin API). `signal`:
   * aborted when the server gives the question up.
   */
  ask?: (question: string, wanted?: Wanted, signal?: AbortSignal) => Promise<UserAnswer>;
}

/** What a server asks (the params of `elicitation/create`). */
export interface ElicitParams {
  mode?: string;
  message?: unknown;
  requestedSchema?: FormSchema;
}

export type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, boolean | AnswerValue>;
};

/**
 * The answer to `params`, asked of the user of the calls in flight (`calls`, oldest first) when
 * that can be done; `why` says why it was not. A form of several fields is asked a field at a
 * time, the server's message before the first: a no to an optional field leaves it out, to a
 * required one declines the form.
 */
export async function answerElicitation(
  params: ElicitParams,
  calls: readonly Asker[],
  signal?: AbortSignal,
): Promise<{ answer: ElicitAnswer; why?: string }> {
  const cancel = (why: string) => ({ answer: { action: 'cancel' as const }, why });
  const decline = { answer: { action: 'decline' as const } };
  if (params.mode === 'url') return cancel('the engine asks nothing of a URL');
  const questions = formQuestions(params.requestedSchema);
  if (questions === undefined)
    return cancel(
      `a form of a field the engine does not ask, or of more than ${MAX_FORM_FIELDS} fields`,
    );
  if (new Set(calls.map((c) => c.session)).size > 1)
    return cancel('calls of several sessions wait on the server: whose it is, is not known');
  const asker = calls.findLast((c) => c.ask);
  if (!asker) return cancel(calls.length ? 'no user waits on the call' : 'no call waits on it');
  const message = typeof params.message === 'string' ? params.message : '';
  const unanswered = (said: UserAnswer) =>
    said === 'unasked' || said === 'unanswered'
      ? cancel(said === 'unasked' ? 'no user waits on the call' : 'the user did not answer')
      : undefined;
  if (questions.length === 0) {
    const said = await asker.ask!(message, undefined, signal);
    return unanswered(said) ?? (said === 'yes' ? { answer: { action: 'accept' } } : decline);
  }
  const content: Record<string, boolean | AnswerValue> = {};
  for (const [i, { name, label, required, wanted }] of questions.entries()) {
    const prompt =
      questions.length === 1 ? message : i === 0 ? `${message} ${label}`.trim() : label;
    const said = await asker.ask!(prompt, wanted, signal);
    const cancelled = unanswered(said);
    if (cancelled) return cancelled;
    if (typeof said === 'object') content[name] = said.value;
    // A yes or no fills a boolean; a no to anything else is the user's refusal to say.
    else if (!wanted) content[name] = said === 'yes';
    else if (required || questions.length === 1) return decline;
  }
  return { answer: { action: 'accept', content } };
}

/**
 * Answers a connection's questions (`answerElicitation` of the calls in flight on it, `calls`),
 * each told to `log`: the question, which may name the user's data, at debug level only, as the
 * user's words are; why one was answered cancel as a warning.
 */
export function elicitor(
  calls: ReadonlySet<Asker>,
  log: (line: string, level?: EngineLogLevel) => void,
): (params: ElicitParams, signal?: AbortSignal) => Promise<ElicitAnswer> {
  return async (params, signal) => {
    const { answer, why } = await answerElicitation(params, [...calls], signal);
    log(`asked its user ${JSON.stringify(params.message)}: answered ${answer.action}`, 'debug');
    if (why) log(`asked its user a question, answered cancel: ${why}`, 'warn');
    return answer;
  };
}
