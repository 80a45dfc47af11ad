import type { Tool } from './tool-definition.js';

/** A set of definitions to install, and the places of those kept as they are from the set in use. */
export interface EditedSet {
  definitions: unknown[];
  kept: ReadonlySet<number>;
}

/** `tools` with `definition` in place of the one named `name`, or added after the others. */
export function withTool(tools: readonly Tool[], name: string, definition: unknown): EditedSet {
  const definitions: unknown[] = tools.map((t) => (t.name === name ? definition : t.raw));
  if (!tools.some((t) => t.name === name)) definitions.push(definition);
  return { definitions, kept: new Set(tools.flatMap((t, i) => (t.name === name ? [] : [i]))) };
}

/** `tools` without the one named `name`; undefined when there is none. */
export function withoutTool(tools: readonly Tool[], name: string): EditedSet | undefined {
  const rest = tools.filter((t) => t.name !== name);
  if (rest.length === tools.length) return undefined;
  return { definitions: rest.map((t) => t.raw), kept: new Set(rest.keys()) };
}
