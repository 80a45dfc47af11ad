import { Injectable } from '@nestjs/common';
import { CodeToolService } from '../code-tools/code-tool.service.js';
import { withoutTools, type ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolCallContext } from '../tools/tool-executor.js';
import type { Session } from './session.js';
import type { Agent } from '../tools/handoff-tool.js';
import { offeredDeferred } from '../tools/tool-search.js';
import { saidByUser } from './notes.js';
import type { ChatMessage } from '../llm/llm.types.js';

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

/** How many of the user's latest messages a search tool's `prefetch` matches tools against. */
const PREFETCH_MESSAGES = 3;

/** What the user said or typed in their latest messages (not the notes and results told them). */
function userWords(history: readonly ChatMessage[]): string[] {
  const said = history.filter(saidByUser).slice(-PREFETCH_MESSAGES);
  return said.map((m) => m.content ?? '');
}

/**
 * Which tools one completion request may use: tools declared for other modalities, and those
 * outside the session's own selection, are left out, and `deferred` tools no search has found yet;
 * then every `before_model_callback` may hide more (`llm_request.config.hide_tool`).
 * A hidden tool is absent from the request's `tools` array and unknown if called anyway.
 */
@Injectable()
export class ToolScope {
  constructor(private readonly code: CodeToolService) {}

  async forRequest({
    base,
    context,
    only,
  }: {
    base: ToolSnapshot;
    context: ToolCallContext;
    /** The session's own selection (`session.update`'s `tools`); null for every tool. */
    only: readonly string[] | null;
  }): Promise<ToolSnapshot> {
    const hidden = new Set(
      base.tools
        .filter(
          (t) =>
            (t.modalities && !t.modalities.includes(context.modality)) ||
            (only !== null && !only.includes(t.name)),
        )
        .map((t) => t.name),
    );
    // Deferred tools: offered once the history sent has made them known (a search found them, a
    // call of them ran), or matching the user's latest words (a search tool's `prefetch`).
    const deferred = base.tools.filter((t) => t.deferred);
    if (deferred.length > 0) {
      const only = new Set(deferred.filter((t) => !hidden.has(t.name)).map((t) => t.name));
      context.findable = { tools: base.tools, only };
      const searches = base.tools.filter((t) => t.kind === 'tool_search');
      const history = context.events as readonly ChatMessage[];
      const offered = offeredDeferred(history, searches, context.findable, () =>
        userWords(history),
      );
      for (const tool of deferred) if (!offered.has(tool.name)) hidden.add(tool.name);
    }
    if (base.callbacks.length > 0) {
      const names = base.tools.map((t) => t.name).filter((n) => !hidden.has(n));
      for (const name of await this.code.beforeModel(base.callbacks, names, context))
        hidden.add(name);
    }
    return withoutTools(base, hidden);
  }
}
