/**
 * What a session's tools see of it and may use: its code tools' state, the context of a call in
 * one of its turns, the tools its selection and assistant allow, a handoff's change of assistant.
 * Pure: no Nest import.
 */
import type { ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolCallContext } from '../tools/tool-executor.js';
import type { Agent } from '../tools/handoff-tool.js';
import type { Session } from './session.js';

const STATE_KEY = 'codeTools.state';

/** The session state code tools and callbacks read and write (`context.state`), kept across turns. */
export function sessionState(session: Session): { value: Record<string, unknown> } {
  let holder = session.data.get(STATE_KEY) as { value: Record<string, unknown> } | undefined;
  if (!holder) {
    holder = { value: {} };
    session.data.set(STATE_KEY, holder);
  }
  return holder;
}

/** What the tools of a turn see of its conversation (`context` in code tools, variables, trace). */
export function toolContextOf(session: Session, turnId: string, traceId?: string): ToolCallContext {
  return {
    sessionId: session.id,
    turnId,
    modality: session.settings.modality,
    channel: session.settings.channel,
    language: session.settings.language,
    timezone: session.settings.timezone,
    state: sessionState(session),
    events: session.history,
    variables: session.settings.variables,
    ...(session.settings.tool_mocks && { mocks: session.settings.tool_mocks }),
    callsMade: session.toolCalls,
    ...(session.settings.model && { model: session.settings.model }),
    // A transfer asked in the same turn wins: the caller is not simply hung up on.
    endSession: () => (session.ending ??= {}),
    transferCall: (to) => (session.ending = { transferTo: to }),
    // Read when a call begins: a handoff earlier in the turn counts.
    get agent() {
      return session.agent?.name;
    },
    ...(traceId !== undefined && { traceId }),
  };
}

/**
 * The tools a session may use, by name (null: every tool): those of its own selection
 * (`session.update`'s `tools`) that the assistant holding it (a handoff's, a choice's) may use.
 */
export function toolsOf(session: Session): readonly string[] | null {
  const own = session.settings.tools;
  const agent = session.agent?.tools;
  if (!agent) return own;
  return own === null ? agent : own.filter((name) => agent.includes(name));
}

/**
 * The assistant of `session` as its handoff tool in `snapshot` defines it now: a tools file
 * edited since the handoff changes it from the next turn on (one whose tool is gone stays as it
 * was).
 */
export function refreshAgent(session: Session, snapshot: ToolSnapshot): void {
  const via = session.agent?.via;
  const now = via === undefined ? undefined : snapshot.byName.get(via)?.handoff;
  if (now) session.agent = now;
}

/**
 * A handoff in a turn of `session`: the next request is the new assistant's (its instructions,
 * its tools), and the client is told.
 */
export function handingOff(
  session: Session,
  emit: (event: { type: 'handoff'; agent: string; language?: string }) => void,
  counted: (agent: string) => void,
): (agent: Agent) => void {
  return (agent) => {
    session.agent = agent;
    // An assistant of another language: the session goes on in it (speech, transcription, clock).
    const { language } = agent;
    if (language) session.settings = { ...session.settings, language };
    counted(agent.name);
    emit({ type: 'handoff', agent: agent.name, ...(language && { language }) });
  };
}
