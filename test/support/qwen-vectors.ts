import { readFileSync } from 'node:fs';
import type { ToolSchemas } from '../../src/llm/parsing/value-typing.js';
import {
  ToolCallTextParser,
  type TextParserEvent,
} from '../../src/llm/parsing/tool-call-text.parser.js';

export const FIXTURES = 'test/fixtures';

export interface Vector {
  id: string;
  format: string;
  tools: { function: { name: string; parameters?: Record<string, unknown> } }[] | null;
  input: string | null;
  deltas?: string[] | null;
  chunks?: Record<string, unknown>[];
  message?: Record<string, unknown>;
  expected?: {
    content: string | null;
    tool_calls: { name: string; arguments: unknown; id?: string }[];
  };
  expected_final?: {
    content: string | null;
    tool_calls: { name: string; arguments: unknown; id?: string }[];
  };
  content_contains?: string[];
  /** The whole user-visible answer, exactly (when the vector pins it). */
  expected_visible?: string;
  disagreement?: boolean;
}

export function loadVectors(file: string): Vector[] {
  return JSON.parse(readFileSync(`${FIXTURES}/qwen/${file}`, 'utf8')) as Vector[];
}

export function schemasOf(v: Vector): ToolSchemas {
  return new Map((v.tools ?? []).map((t) => [t.function.name, t.function.parameters]));
}

/** Deterministic pseudo-random generator, so a failing split can be replayed. */
export function rng(seed: number): () => number {
  let x = seed >>> 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 4294967296;
  };
}

export function randomSplit(text: string, random: () => number, min = 1, max = 7): string[] {
  const parts: string[] = [];
  let i = 0;
  while (i < text.length) {
    const n = min + Math.floor(random() * (max - min + 1));
    parts.push(text.slice(i, i + n));
    i += n;
  }
  return parts;
}

/** What the parser made of some deltas: visible text, reasoning and calls. */
export interface Outcome {
  text: string;
  reasoning: string;
  calls: { name: string; arguments: unknown }[];
}

/** Feeds `deltas` to a fresh parser, then flushes it. */
export function runParser(deltas: string[], schemas: ToolSchemas = new Map()): Outcome {
  const parser = new ToolCallTextParser(schemas);
  const events: TextParserEvent[] = [];
  for (const d of deltas) events.push(...parser.push(d));
  events.push(...parser.flush());
  const out: Outcome = { text: '', reasoning: '', calls: [] };
  for (const e of events) {
    if (e.type === 'text') out.text += e.text;
    else if (e.type === 'reasoning') out.reasoning += e.text;
    else out.calls.push({ name: e.call.name, arguments: rawOrArgs(e.call) });
  }
  return out;
}

/** Arguments that are not an object keep their raw form (Hermes `"arguments": "hello"`). */
function rawOrArgs(call: { args: Record<string, unknown>; raw: string }): unknown {
  return Object.keys(call.args).length === 0 && call.raw !== '{}' ? call.raw : call.args;
}
