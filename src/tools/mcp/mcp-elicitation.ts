/**
 * MCP elicitation (`elicitation/create`, form mode): a server asks its client's user something
 * while it runs a call. The engine asks the user a form of one field — a confirmation (no
 * fields) or a boolean as it asks approvals (`tool_confirm`), a text, a number or a choice as a
 * question (`tool_question`), both said in a voice session — and only the user of the one
 * session whose calls wait on the connection: a shared connection's server cannot say whose call
 * it asks for. Anything else is answered `cancel`, as a user who dismissed the question, and the
 * server goes on without it. Pure: no Nest import.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import formatsPlugin from 'ajv-formats';
import type { UserAnswer } from '../tool-executor.js';
import type { Wanted } from '../user-question.js';
import type { EngineLogLevel } from './mcp-server-log.js';

/** A `tools/call` in flight on a connection: whose session it is, and how it asks its user. */
export interface Asker {
  session?: string;
  /** The session's own model (LLM_MODELS), which the server's sampling requests then ask. */
  model?: string;
  /** Absent for a call no user waits on (a background call, a try over the admin API). */
  ask?: (question: string, wanted?: Wanted) => Promise<UserAnswer>;
}

/** A field of a form, as the protocol's primitive schemas declare one. */
interface FormField {
  type?: unknown;
  enum?: unknown;
  enumNames?: unknown;
  oneOf?: unknown;
  minLength?: unknown;
  maxLength?: unknown;
  minimum?: unknown;
  maximum?: unknown;
  format?: unknown;
}

/** What a server asks (the params of `elicitation/create`). */
export interface ElicitParams {
  mode?: string;
  message?: unknown;
  requestedSchema?: { properties?: Record<string, FormField> };
}

export type ElicitAnswer = {
  action: 'accept' | 'decline' | 'cancel';
  content?: Record<string, boolean | string | number>;
};

/**
 * The form's one field: '' for a form of no fields (a confirmation); its name, and what it wants
 * unless a yes or no fills it (a boolean); undefined for a form of several fields, or of a field
 * the engine cannot ask for (a list of choices to tick).
 */
export function formField(
  schema: ElicitParams['requestedSchema'],
): { name: string; wanted?: Wanted } | undefined {
  const fields = Object.entries(schema?.properties ?? {});
  if (fields.length === 0) return { name: '' };
  const [[name, field] = []] = fields;
  if (fields.length > 1 || !name || !field || typeof field !== 'object') return undefined;
  if (field.type === 'boolean') return { name };
  const wanted = fieldWanted(field);
  return wanted && { name, wanted: { ...wanted, check: fieldCheck(field) } };
}

const strings = (list: unknown): string[] | undefined =>
  Array.isArray(list) && list.length > 0 && list.every((v) => typeof v === 'string')
    ? list
    : undefined;
const numberOf = (n: unknown) => (typeof n === 'number' ? n : undefined);

function fieldWanted(field: FormField): Wanted | undefined {
  if (field.type === 'number' || field.type === 'integer')
    return { type: field.type, minimum: numberOf(field.minimum), maximum: numberOf(field.maximum) };
  if (field.type !== 'string') return undefined;
  const values = strings(field.enum);
  if (values) {
    const names = strings(field.enumNames);
    const titled = names?.length === values.length ? names : values;
    return { type: 'choice', choices: values.map((value, i) => ({ value, title: titled[i]! })) };
  }
  if (Array.isArray(field.oneOf)) {
    const choices = (field.oneOf as { const?: unknown; title?: unknown }[]).filter(
      (c): c is { const: string; title: string } =>
        typeof c?.const === 'string' && typeof c.title === 'string',
    );
    if (choices.length === 0 || choices.length !== field.oneOf.length) return undefined;
    return { type: 'choice', choices: choices.map((c) => ({ value: c.const, title: c.title })) };
  }
  return {
    type: 'text',
    minLength: numberOf(field.minLength),
    maxLength: numberOf(field.maxLength),
    ...(typeof field.format === 'string' && { format: field.format }),
  };
}

let formats: Ajv | undefined;

/**
 * The field's schema as the server holds the answer to it (the SDK checks it with Ajv and its
 * formats: an email, a URI, a date): an answer the server would refuse is asked again instead.
 */
function fieldCheck(field: FormField): (value: string | number) => string | undefined {
  let check: ValidateFunction | undefined;
  return (value) => {
    formats ??= formatsPlugin.default(new Ajv({ strict: false, validateSchema: false }));
    check ??= formats.compile(field);
    if (check(value)) return undefined;
    const [error] = check.errors ?? [];
    return `the answer ${error?.message ?? 'does not fit'}`;
  };
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
  const field = formField(params.requestedSchema);
  if (params.mode === 'url') return cancel('the engine asks nothing of a URL');
  if (field === undefined)
    return cancel('a form of several fields, or of a list to tick, which the engine does not ask');
  if (new Set(calls.map((c) => c.session)).size > 1)
    return cancel('calls of several sessions wait on the server: whose it is, is not known');
  const asker = calls.findLast((c) => c.ask);
  if (!asker) return cancel(calls.length ? 'no user waits on the call' : 'no call waits on it');
  const message = typeof params.message === 'string' ? params.message : '';
  const said = await asker.ask!(message, field.wanted);
  if (said === 'unasked') return cancel('no user waits on the call');
  if (said === 'unanswered') return cancel('the user did not answer');
  const accept = (value: boolean | string | number) =>
    field.name === ''
      ? { answer: { action: 'accept' as const } }
      : { answer: { action: 'accept' as const, content: { [field.name]: value } } };
  // The user would not say: the question is declined.
  if (field.wanted)
    return typeof said === 'object' ? accept(said.value) : { answer: { action: 'decline' } };
  // A yes or no: a confirmation declined by a no, a boolean field given it.
  if (field.name === '' && said === 'no') return { answer: { action: 'decline' } };
  return accept(said === 'yes');
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
