import { readFileSync } from 'node:fs';
import type { ToolSchemas } from '../../src/llm/parsing/qwen-xml-call.js';

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
