/**
 * A scenario made from a conversation that went well: an end-of-session report's `history` (the
 * conversation as the model read it), each user's turn expecting the calls the model made then.
 * A team keeps a good call as a check that the next model or prompt still makes those calls
 * (`npm run eval -- --from-report`). Pure: no Nest import.
 */
import { NOT_THE_USERS, noteIn } from '../orchestrator/notes.js';
import {
  ScenarioFileError,
  type ExpectedCall,
  type Scenario,
  type ScenarioTurn,
} from './scenario-file.js';

/** The session's settings a scenario sends again: those that change what the model is asked. */
const KEPT_SETTINGS = ['instructions', 'tools', 'client_tools', 'model', 'language', 'timezone'];

interface HistoryMessage {
  role?: unknown;
  content?: unknown;
  tool_calls?: { function?: { name?: unknown; arguments?: unknown } }[];
}

/** A call's arguments as written (a JSON text), when they are an object. */
function argumentsOf(text: unknown): Record<string, unknown> | undefined {
  if (typeof text !== 'string') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/** The settings worth sending again: set, and not the engine's own (`null`, `""`, `[]`). */
function sessionOf(settings: unknown): Record<string, unknown> | undefined {
  if (typeof settings !== 'object' || settings === null) return undefined;
  const kept = Object.entries(settings).filter(
    ([key, value]) =>
      KEPT_SETTINGS.includes(key) &&
      value !== null &&
      value !== '' &&
      !(Array.isArray(value) && value.length === 0),
  );
  return kept.length > 0 ? Object.fromEntries(kept) : undefined;
}

/** The scenario of one report (`source` names it in errors); `name` by default its session's. */
export function scenarioFromReport(report: unknown, source: string, name?: string): Scenario {
  const { history, session_id, settings } = (report ?? {}) as {
    history?: unknown;
    session_id?: unknown;
    settings?: unknown;
  };
  if (!Array.isArray(history))
    throw new ScenarioFileError(
      `${source}: no "history" list: an end-of-session report (SESSION_WEBHOOK_URL) has one`,
    );
  const turns: { step: ScenarioTurn; calls?: ExpectedCall[] }[] = [];
  /** The turn the model's calls are the answer of: the last user's turn, or note answered. */
  let answering: ExpectedCall[] | undefined;
  for (const message of history as HistoryMessage[]) {
    if (typeof message !== 'object' || message === null) continue;
    const { role, content } = message;
    const note = role === 'user' && typeof content === 'string' ? noteIn(content) : undefined;
    if (note) {
      // The application's note, answered by a turn of its own when it asked for one.
      answering = note.respond ? [] : undefined;
      turns.push({
        step: { note: note.text, ...(note.respond && { respond: true }) },
        calls: answering,
      });
    } else if (
      role === 'user' &&
      typeof content === 'string' &&
      !content.startsWith(NOT_THE_USERS)
    ) {
      answering = [];
      turns.push({ step: { user: content }, calls: answering });
    } else if (role === 'assistant' && Array.isArray(message.tool_calls) && answering)
      for (const call of message.tool_calls) {
        const tool = call?.function?.name;
        if (typeof tool !== 'string') continue;
        const args = argumentsOf(call.function?.arguments);
        answering.push({ name: tool, ...(args && { arguments: args }) });
      }
  }
  if (!turns.some(({ step }) => step.user !== undefined))
    throw new ScenarioFileError(`${source}: its history holds no turn of the user's`);
  const session = sessionOf(settings);
  return {
    name: name ?? (typeof session_id === 'string' ? `session ${session_id}` : source),
    ...(session && { session }),
    turns: turns.map(({ step, calls }) =>
      calls ? { ...step, expect: { tool_calls: calls } } : step,
    ),
  };
}
