/**
 * Questions a running call puts to its user (an MCP server's elicitation, a code tool's
 * `context.confirm` or `context.ask`). Those that want a value (a form's text, number or choice
 * field) are asked with `tool_question` (said in a voice session) and answered by the client's
 * `tool_answer`, or by what the user says, types or keys next, which then starts no turn; an
 * answer that does not fit is asked again, up to MAX_ASKS times. Pure: no Nest import.
 */
import type { ToolCallContext, UserAnswer } from '../tools/tool-executor.js';
import { oneLine, QUESTION_MAX_CHARS } from '../tools/tool-progress.js';
import {
  givenAnswer,
  readAnswer,
  titled,
  wantedAnswer,
  type AnswerValue,
  type Read,
  type Wanted,
} from '../tools/user-question.js';
import { DATE_FORMATS, dateReader } from '../tools/spoken-date.js';
import { holdWaits, type Waited } from './awaiting.js';
import { answerApprovals, answerMayCome } from './approvals.js';
import type { ServerEvent, TurnEvent } from './protocol/server-events.js';
import { spokenAnswer, type Phrase } from './spoken-answer.js';
import { waitAsked } from './hold-on.js';
import type { Session } from './session.js';
import type { TurnContext } from './turn-context.js';

/** What settles a waiting question: the client's checked value, the user's words, or a refusal. */
export type QuestionReply = { value: AnswerValue } | { said: string } | 'no';

export interface WaitingQuestion {
  wanted: Wanted;
  reply: (reply: QuestionReply) => void;
}

/** How often a question is put before answers that do not fit leave it unanswered. */
export const MAX_ASKS = 3;

export interface Question {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  prompt: string;
  wanted: Wanted;
  /** The session's language and time zone: a date said aloud is read in them. */
  language: string;
  timeZone: string;
}

/**
 * Puts `question` to the user (`emit`) and waits for its answer (`hear`: until it comes, the
 * time allowed passes or the turn ends); a spoken or typed answer is told back (`tool_answered`).
 */
export async function askQuestion(
  question: Question,
  emit: (event: TurnEvent) => void,
  hear: (id: string, wanted: Wanted) => Promise<Waited<QuestionReply>>,
  counted: (outcome: QuestionOutcome) => void,
): Promise<UserAnswer> {
  const { answer, outcome } = await put(question, emit, hear);
  counted(outcome);
  return answer;
}

/**
 * What became of a question: answered, declined (a no), unclear (asked MAX_ASKS times, no answer
 * fitting), expired (no answer in time), cancelled (the turn was).
 */
export type QuestionOutcome = 'answered' | 'declined' | 'unclear' | 'expired' | 'cancelled';

async function put(
  question: Question,
  emit: (event: TurnEvent) => void,
  hear: (id: string, wanted: Wanted) => Promise<Waited<QuestionReply>>,
): Promise<{ answer: UserAnswer; outcome: QuestionOutcome }> {
  const { id, name, arguments: args, prompt, wanted, language, timeZone } = question;
  const answer = wantedAnswer(wanted);
  const format = wanted.type === 'text' ? wanted.format : undefined;
  const dates =
    format && DATE_FORMATS.has(format) ? await dateReader(language, timeZone) : undefined;
  let unclear: string | undefined;
  for (let asked = 1; asked <= MAX_ASKS; asked++) {
    emit({
      type: 'tool_question',
      id,
      name,
      arguments: args,
      prompt,
      answer,
      ...(unclear !== undefined && { unclear }),
    });
    const waited = await hear(id, wanted);
    if (typeof waited === 'string') return { answer: 'unanswered', outcome: waited };
    const reply = waited.answer;
    if (reply === 'no') {
      emit({ type: 'tool_answered', id, value: null });
      return { answer: 'no', outcome: 'declined' };
    }
    // The client's own value, checked as it came.
    if ('value' in reply) return { answer: reply, outcome: 'answered' };
    const read: Read = readAnswer(reply.said, wanted, dates, language);
    if ('value' in read) {
      emit({ type: 'tool_answered', id, value: titled(read.value, wanted) });
      return { answer: read, outcome: 'answered' };
    }
    unclear = read.error;
  }
  return { answer: 'unanswered', outcome: 'unclear' };
}

/** The question what the user says, types or keys next answers: the latest asked, if any waits. */
export function questionAnswered(session: Session): WaitingQuestion | undefined {
  return [...session.questions.values()].at(-1);
}

/**
 * While a call's question waits, what the user said or typed answers it (questionAnswered), and
 * starts no turn: a plain no (`no`) declines a number, a choice or an optional text; a text
 * question takes the words whatever they are. False when no question waits.
 */
export function answerQuestion(session: Session, text: string, no: () => boolean): boolean {
  const waiting = questionAnswered(session);
  if (!waiting) return false;
  const { type, optional } = waiting.wanted;
  waiting.reply((type !== 'text' || optional) && no() ? 'no' : { said: text });
  return true;
}

/**
 * While a call's question waits, the user's words answer it; while calls await approval, a plain
 * yes or no answers them (`answerApprovals`); either waits on when asked to ("one moment"), or is
 * asked again when the user asks to hear it ("sorry?": `waitAsked`), its time allowed started
 * again. True when they did: no turn starts from them.
 */
export function answerWaiting(
  session: Session,
  text: string,
  phrases: readonly Phrase[],
  send: (event: ServerEvent) => void,
): boolean {
  // Not for approvals when no phrase answers them (TOOL_CONFIRM_YES and _NO empty), nor for words
  // that are a yes or a no there.
  const said = spokenAnswer(text, phrases);
  const asked = said === undefined && userMayAnswer(session, phrases) && waitAsked(text);
  if (asked) return tellWaiting(session, asked);
  return (
    answerQuestion(session, text, () => said === 'no') ||
    answerApprovals(session, text, phrases, send)
  );
}

/**
 * The user asked the calls waiting for their answer or approval to wait (`hold`), or to be asked
 * again (`again`): each's time allowed starts again, and the turn tells them so. False when none
 * waits.
 */
export function tellWaiting(session: Session, asked: 'hold' | 'again'): boolean {
  const ids = [...session.approvals.keys(), ...session.questions.keys()];
  if (ids.length === 0) return false;
  holdWaits(session.questions);
  holdWaits(session.approvals);
  session.waits?.[asked](ids);
  return true;
}

/** A call waits for the user's answer to its question, or approval that some phrase would give. */
export function userMayAnswer(session: Session, phrases: readonly Phrase[]): boolean {
  return session.questions.size > 0 || answerMayCome(session, phrases);
}

/**
 * The client's `tool_answer` for call `id`: its value checked against what the question wants
 * (`null` declines it); the error to send when it does not fit, or no question waits.
 */
export function settleQuestion(
  session: Session,
  id: string,
  value: AnswerValue | null,
): string | undefined {
  const waiting = session.questions.get(id);
  if (!waiting) return `no call awaits an answer with id ${JSON.stringify(id)}`;
  if (value === null) return void waiting.reply('no');
  const read = givenAnswer(value, waiting.wanted);
  if ('error' in read) return `${read.error}; the question is still open`;
  waiting.reply(read);
  return undefined;
}

/**
 * How a running call asks the user a question (an MCP server's elicitation, a code tool's
 * `context.confirm` or `context.ask`), for a call the client was told of (`running`: between its `tool_call` and
 * its `tool_result`): a yes or no as an approval is asked (`tool_confirm`), a value as
 * `askQuestion` does (`tool_question`); the question its prompt as one line of up to
 * QUESTION_MAX_CHARS, said in a voice session.
 */
export function questionAsker(
  ctx: TurnContext,
  running: (id: string) => { name: string; arguments: Record<string, unknown> } | undefined,
): NonNullable<ToolCallContext['ask']> {
  return async (id, question, wanted, givenUp) => {
    const call = running(id);
    if (!call) return 'unasked';
    const { approvals, questions } = ctx.session;
    if (ctx.signal.aborted || approvals.has(id) || questions.has(id)) return 'unanswered';
    const { name, arguments: args } = call;
    const prompt = oneLine(question, QUESTION_MAX_CHARS);
    // Waited for until the turn is cancelled or over with the call still running, or the tool
    // gives the question up (its server cancelled it): no later words are taken for it.
    const until = givenUp ? AbortSignal.any([ctx.callSignal, givenUp]) : ctx.callSignal;
    if (wanted)
      return askQuestion(
        {
          id,
          name,
          arguments: args,
          prompt,
          wanted,
          language: ctx.session.settings.language,
          timeZone: ctx.session.settings.timezone,
        },
        ctx.emit,
        (asked, want) => ctx.hear(asked, want, until),
        ctx.questioned,
      );
    ctx.emit({
      type: 'tool_confirm',
      id,
      name,
      arguments: args,
      ...(prompt && { prompt }),
    });
    const { approval } = await ctx.approve(id, until);
    return approval === 'approved' ? 'yes' : approval === 'declined' ? 'no' : 'unanswered';
  };
}
