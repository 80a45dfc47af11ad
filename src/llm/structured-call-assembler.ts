/** Assembles streamed `delta.tool_calls` fragments by `index` (vLLM and OpenAI shapes), and by id where servers reuse an index. */
export interface AssembledCall {
  index: number;
  id: string | undefined;
  name: string;
  arguments: string;
}

interface Fragment {
  index?: number;
  id?: string | null;
  /** `arguments` is a JSON string; a few servers send the object itself. */
  function?: { name?: string | null; arguments?: unknown };
}

const NONE: readonly AssembledCall[] = Object.freeze([]);

export class StructuredCallAssembler {
  /** The calls by slot: the order they started in. */
  private readonly calls = new Map<number, AssembledCall>();
  private readonly done = new Set<number>();
  /** The slot of each `index` the server gave. */
  private readonly slots = new Map<number, number>();

  /** Adds fragments; returns the calls that became complete (a later call started). */
  add(fragments: unknown): readonly AssembledCall[] {
    if (!Array.isArray(fragments)) return NONE;
    const completed: AssembledCall[] = [];
    for (const raw of fragments as Fragment[]) {
      if (typeof raw !== 'object' || raw === null) continue;
      const index = typeof raw.index === 'number' ? this.slotOf(raw.index, raw) : this.indexOf(raw);
      for (const [i, call] of this.calls) {
        if (i < index && !this.done.has(i)) {
          this.done.add(i);
          completed.push(call);
        }
      }
      // A fragment for a call already reported cannot change it any more.
      if (this.done.has(index)) continue;
      const call = this.calls.get(index) ?? { index, id: undefined, name: '', arguments: '' };
      if (raw.id && !call.id) call.id = raw.id;
      if (raw.function?.name && !call.name) call.name = raw.function.name;
      const args = raw.function?.arguments;
      if (typeof args === 'string') call.arguments += args;
      else if (typeof args === 'object' && args !== null) call.arguments += JSON.stringify(args);
      this.calls.set(index, call);
    }
    return completed;
  }

  /**
   * The slot for a fragment the server gave `index`: that index's call, unless the fragment
   * starts another one there, with another id (or, without ids, another name). Ollama, and
   * proxies bridging OpenAI's Responses API, give every parallel call index 0.
   */
  private slotOf(index: number, raw: Fragment): number {
    const slot = this.slots.get(index);
    const call = slot === undefined ? undefined : this.calls.get(slot);
    const name = raw.function?.name;
    const another =
      call !== undefined &&
      (raw.id && call.id
        ? raw.id !== call.id
        : !raw.id && !call.id && !!name && call.name !== '' && name !== call.name);
    if (slot !== undefined && !another) return slot;
    const next = this.calls.size === 0 ? 0 : Math.max(...this.calls.keys()) + 1;
    this.slots.set(index, next);
    return next;
  }

  /**
   * Where a fragment without `index` goes (some OpenAI-compatible servers and proxies leave it
   * out, Gemini's among them): it continues the last call, unless it carries another id, or a
   * name when the last call already has one (a name comes once per call): then it starts the next.
   */
  private indexOf(raw: Fragment): number {
    if (this.calls.size === 0) return 0;
    const last = Math.max(...this.calls.keys());
    const call = this.calls.get(last)!;
    const otherId = !!raw.id && !!call.id && raw.id !== call.id;
    const otherName = !!raw.function?.name && call.name !== '';
    return otherId || otherName ? last + 1 : last;
  }

  /** The calls not yet reported, at the end of the stream. */
  finish(): AssembledCall[] {
    const rest = [...this.calls.values()].filter((c) => !this.done.has(c.index) && c.name !== '');
    rest.forEach((c) => this.done.add(c.index));
    return rest.sort((a, b) => a.index - b.index);
  }
}
