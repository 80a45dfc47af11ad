/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks its client's user something
 * while it runs a call. The engine asks the user what a plain yes or no answers — a confirmation
 * (a form of no fields), or a form of one boolean field — as it asks approvals (`tool_confirm`,
 * said in a voice session), and only the user of the one session whose calls wait on the
 * connection: a shared connection's server cannot say whose call it asks for. Anything else is
 * answered `cancel`, as a user who dismissed the question, and the server goes on without it.
 * Pure: no Nest import.
 */
import type { UserAnswer } from '../tool-executor.js';
import type { EngineLogLevel } from './mcp-server-log.js';

/** A `tools/call` in flight on a connection: whose session it is, and how it asks its user. */
export interface Asker {
  session?: string;
  /** Absent for a call no user waits on (a background call, a try over the admin API). */
  ask?: (question: string) => Promise<UserAnswer>;
}

/** What a server asks (the params of `elicitation/create`). */
export interface ElicitParams {
  mode?: string;
  message?: unknown;
  requestedSchema?: { properties?: Record<string, { type?: unknown }> };
}

export type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, boolean>;
};

/**
 * The boolean field a yes or no fills: '' for a form of no fields (a confirmation), its name for
 * a form of one boolean field; undefined for any other form.
 */
export function yesNoField(schema: ElicitParams['requestedSchema']): string | undefined {
  const fields = Object.entries(schema?.properties ?? {});
  if (fields.length === 0) return '';
  const [[name, field] = []] = fields;
  return fields.length === 1 && field?.type === 'boolean' ? name : undefined;
}

/**
 * The answer to `params`, asked of the user of the calls in flight (`calls`, oldest first) when
 * that can be done; `why` says why it was not.
 */
export async function answerElicitation(
  params: ElicitParams,
  calls: readonly Asker[],
): Promise<{ answer: ElicitAnswer; why?: string }> {
  const cancel = (why: string) => ({ answer: { action: 'cancel' as const }, why });
  const field = yesNoField(params.requestedSchema);
  if (params.mode === 'url') return cancel('the engine asks nothing of a URL');
  if (field === undefined) return cancel('a form of fields, which a yes or no cannot fill');
  if (new Set(calls.map((c) => c.session)).size > 1)
    return cancel('calls of several sessions wait on the server: whose it is, is not known');
  const asker = calls.findLast((c) => c.ask);
  if (!asker) return cancel(calls.length ? 'no user waits on the call' : 'no call waits on it');
  const message = typeof params.message === 'string' ? params.message : '';
  const said = await asker.ask!(message);
  if (said === 'unasked') return cancel('no user waits on the call');
  if (said === 'unanswered') return cancel('the user did not answer');
  if (field === '') return { answer: { action: said === 'yes' ? 'accept' : 'decline' } };
  return { answer: { action: 'accept', content: { [field]: said === 'yes' } } };
}

/**
 * Answers a connection's questions (`answerElicitation` of the calls in flight on it, `calls`),
 * each told to `log`: the question, which may name the user's data, at debug level only, as the
 * user's words are; why one was answered cancel as a warning.
 */
export function elicitor(
  calls: ReadonlySet<Asker>,
  log: (line: string, level?: EngineLogLevel) => void,
): (params: ElicitParams) => Promise<ElicitAnswer> {
  return async (params) => {
    const { answer, why } = await answerElicitation(params, [...calls]);
    log(`asked its user ${JSON.stringify(params.message)}: answered ${answer.action}`, 'debug');
    if (why) log(`asked its user a question, answered cancel: ${why}`, 'warn');
    return answer;
  };
}
