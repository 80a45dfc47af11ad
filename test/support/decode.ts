import fc from 'fast-check';
import { CompletionDecoder } from '../../src/llm/completion-decoder.js';
import type { LlmEvent } from '../../src/llm/llm.types.js';
import type { ToolSchemas } from '../../src/llm/parsing/value-typing.js';

/** `text` cut into pieces of `size` characters. */
export function piecesOf(text: string, size: number): string[] {
  const pieces: string[] = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

/** `text` cut at the given positions (taken modulo its length + 1, in any order, repeats allowed). */
export function cutAt(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  const pieces: string[] = [];
  let prev = 0;
  for (const p of [...points, text.length]) {
    pieces.push(text.slice(prev, p));
    prev = p;
  }
  return pieces;
}

/** The calls (name and arguments) and the text that streamed content decodes to. */
export function decodeContent(schemas: ToolSchemas, pieces: string[]) {
  const decoder = new CompletionDecoder(schemas);
  const events: LlmEvent[] = [];
  for (const content of pieces)
    events.push(...decoder.chunk({ choices: [{ index: 0, delta: { content } }] }));
  events.push(...decoder.end());
  return {
    calls: events.flatMap((e) => (e.type === 'tool_call' ? [[e.name, e.arguments]] : [])),
    text: events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join(''),
  };
}

/**
 * Checks, for any text from `text` cut anywhere into deltas, that `read` gives the same result
 * as for the text in one delta; `also` checks the cut result further.
 */
export function assertSameForAnySplit<T>(options: {
  text: fc.Arbitrary<string>;
  read: (deltas: string[]) => T;
  numRuns: number;
  also?: (result: T) => void;
}): void {
  const { text, read, numRuns, also } = options;
  fc.assert(
    fc.property(text, fc.array(fc.nat(100), { maxLength: 8 }), (whole, cuts) => {
      const split = read(cutAt(whole, cuts));
      expect(split).toEqual(read([whole]));
      also?.(split);
    }),
    { numRuns },
  );
}
