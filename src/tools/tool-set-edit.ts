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

/**
 * What a new set changes, by tool name, for the log of who changed the tools: `added a, b;
 * changed c; removed d`, or `no definition changed`.
 */
export function changesOf(before: readonly Tool[], after: readonly Tool[]): string {
  const was = new Map(before.map((t) => [t.name, JSON.stringify(t.raw)]));
  const is = new Set(after.map((t) => t.name));
  const added: string[] = [];
  const changed: string[] = [];
  for (const tool of after) {
    const old = was.get(tool.name);
    if (old === undefined) added.push(tool.name);
    else if (old !== JSON.stringify(tool.raw)) changed.push(tool.name);
  }
  const removed = before.filter((t) => !is.has(t.name)).map((t) => t.name);
  const parts = [
    ['added', added],
    ['changed', changed],
    ['removed', removed],
  ] as const;
  const said = parts.filter(([, names]) => names.length > 0);
  return said.length === 0
    ? 'no definition changed'
    : said.map(([what, names]) => `${what} ${names.join(', ')}`).join('; ');
}
