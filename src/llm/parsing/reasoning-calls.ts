import type { ParsedTextCall } from './hermes-call.js';
import { TextRewrites } from './text-rewrites.js';
import { ToolCallTextParser } from './tool-call-text.parser.js';
import type { ToolSchemas } from './value-typing.js';

/**
 * The calls written in a model's reasoning, read with every text dialect as an answer's are:
 * for an answer that ended with no call, whose model wrote its call while it was still thinking.
 */
export function callsInReasoning(schemas: ToolSchemas, reasoning: string): ParsedTextCall[] {
  if (!reasoning.includes('<')) return [];
  const rewrites = new TextRewrites(schemas);
  const text = rewrites.push(reasoning) + rewrites.end();
  const parser = new ToolCallTextParser(schemas);
  return [...parser.push(text), ...parser.flush()].flatMap((e) =>
    e.type === 'call' ? [e.call] : [],
  );
}
