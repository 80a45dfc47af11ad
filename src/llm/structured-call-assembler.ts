import { argumentsText } from './parsing/hermes-call.js';

/**
 * Assembles streamed `delta.tool_calls` fragments by `index` (vLLM and OpenAI shapes), and by id
 * and name where servers reuse or change an index.
 */
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

/**
 * A call's id as the server gave it: a string, or a number's digits (a server that numbers its
 * calls); anything else is no id (the engine then makes one). The id goes to the client in
 * `tool_call` and back to the server as `tool_call_id`, both strings.
 */
export const callId = (id: unknown): string | undefined =>
  typeof id === 'string' && id !== ''
    ? id
    : typeof id === 'number' && Number.isFinite(id)
      ? String(id)
      : undefined;

const stringOrNone = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** A fragment with its id and name as strings, or without them. */
function normalised(raw: Fragment): Fragment {
  const name = raw.function?.name;
  // As servers send them (strings, or none): the fragment itself, nothing made per piece.
  if (stringOrNone(raw.id) && stringOrNone(name)) return raw;
  return {
    ...raw,
    id: callId(raw.id),
    ...(raw.function && {
      function: { ...raw.function, name: typeof name === 'string' ? name : undefined },
    }),
  };
}

/**
 * The arguments so far with `piece` added. A piece that starts with everything so far restates
 * it: some servers and proxies stream the whole arguments so far in every fragment, or send them
 * whole once more at the end; appended, they would be the arguments twice.
 */
const joined = (sofar: string, piece: string) => (piece.startsWith(sofar) ? piece : sofar + piece);

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
    for (const given of fragments as Fragment[]) {
      if (typeof given !== 'object' || given === null) continue;
      const raw = normalised(given);
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
      if (typeof args === 'string') call.arguments = joined(call.arguments, args);
      else if (typeof args === 'object' && args !== null)
        call.arguments = joined(call.arguments, argumentsText(args));
      this.calls.set(index, call);
    }
    return completed;
  }

  /**
   * The slot for a fragment the server gave `index`. Servers are not all consistent: Ollama, and
   * proxies bridging OpenAI's Responses API, give every parallel call index 0; SGLang has given
   * a call's first fragment one index and the rest another. So a fragment with a call's id and
   * no name goes to that call; one starting another call at a used index (another id, or without
   * ids another name) gets a slot of its own; one with arguments only goes to the call at its
   * index while that call is open, else to the call started last.
   */
  private slotOf(index: number, raw: Fragment): number {
    const name = raw.function?.name;
    if (raw.id && !name) {
      // A call's id without its name continues that call (ids are not unique across calls on
      // every server: DeepSeek and GLM endpoints repeat one, each call with its own name).
      const same = [...this.calls.values()].find((c) => c.id === raw.id);
      if (same) return this.map(index, same.index);
    }
    const slot = this.slots.get(index);
    if (!raw.id && !name) {
      if (slot !== undefined && !this.done.has(slot)) return slot;
      if (this.calls.size > 0) return this.map(index, this.lastSlot());
    }
    const call = slot === undefined ? undefined : this.calls.get(slot);
    const another =
      call !== undefined &&
      (raw.id
        ? !!call.id && raw.id !== call.id
        : !call.id && !!name && call.name !== '' && name !== call.name);
    if (slot !== undefined && !another) return slot;
    return this.map(index, this.calls.size === 0 ? 0 : this.lastSlot() + 1);
  }

  private map(index: number, slot: number): number {
    this.slots.set(index, slot);
    return slot;
  }

  private lastSlot(): number {
    return Math.max(...this.calls.keys());
  }

  /**
   * Where a fragment without `index` goes (some OpenAI-compatible servers and proxies leave it
   * out, Gemini's among them): it continues the last call, unless it carries another id, or a
   * name when the last call already has one (a name comes once per call): then it starts the next.
   */
  private indexOf(raw: Fragment): number {
    if (this.calls.size === 0) return 0;
    const last = this.lastSlot();
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

/** A whole (non-streamed) message's `tool_calls` as a stream's are assembled; nameless ones skipped. */
export function messageCalls(toolCalls: unknown): AssembledCall[] {
  if (!Array.isArray(toolCalls)) return [];
  return toolCalls.flatMap((call: unknown, index) => {
    const fn = (call as { function?: { name?: unknown; arguments?: unknown } } | null)?.function;
    if (typeof fn?.name !== 'string' || fn.name === '') return [];
    const args = fn.arguments;
    return [
      {
        index,
        id: callId((call as { id?: unknown }).id),
        name: fn.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      },
    ];
  });
}
