import type { ParsedTextCall } from './hermes-call.js';

export type TextParserEvent =
  | { type: 'text'; text: string }
  | { type: 'reasoning'; text: string }
  | { type: 'call'; call: ParsedTextCall };

/** Receives the parser's output as it becomes certain (the allocation-free form of the events). */
export interface TextParserSink {
  text(text: string): void;
  reasoning(text: string): void;
  call(call: ParsedTextCall): void;
}

/** A sink that collects events, merging consecutive text (or reasoning) pieces. */
export function collect(out: TextParserEvent[]): TextParserSink {
  const add = (type: 'text' | 'reasoning', text: string) => {
    const last = out[out.length - 1];
    if (last && last.type === type) last.text += text;
    else out.push({ type, text });
  };
  return {
    text: (t) => add('text', t),
    reasoning: (t) => add('reasoning', t),
    call: (call) => out.push({ type: 'call', call }),
  };
}
