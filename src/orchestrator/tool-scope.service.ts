import { Injectable } from '@nestjs/common';
import { CodeToolService } from '../code-tools/code-tool.service.js';
import { withoutTools, type ToolSnapshot } from '../tools/tool-definition.js';
import type { ToolCallContext } from '../tools/tool-executor.js';
import { offeredDeferred } from '../tools/tool-search.js';
import { saidByUser } from './notes.js';
import type { ChatMessage } from '../llm/llm.types.js';

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
