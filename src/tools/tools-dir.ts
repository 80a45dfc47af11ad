/**
 * LLM_TOOLS_FILE naming a directory: every tools file in it (`*.json`, `*.yaml`, `*.yml`; not
 * hidden ones, as Kubernetes' `..data`), in the order of their names, make one set, so that each
 * team keeps its own file (a ConfigMap each, projected into one directory). Messages name the file
 * a definition came from and its place there. Pure but for reading the directory: no Nest import.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { renamePlaces, ToolDefinitionError } from './definition-error.js';

const TOOLS_FILE = /^[^.].*\.(json|ya?ml)$/i;

export const isDirectory = (path: string) => {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
};

/** The tools files of directory `dir`, sorted by name. */
export function toolsFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (error) {
    throw new ToolDefinitionError(
      `Cannot read tools directory ${dir} (LLM_TOOLS_FILE): ${(error as Error).message}`,
    );
  }
  return names
    .filter((name) => TOOLS_FILE.test(name))
    .sort()
    .map((name) => join(dir, name))
    .filter((path) => !isDirectory(path));
}

/** Where each file's definitions begin in the set the directory makes. */
export interface FilePart {
  file: string;
  first: number;
  count: number;
}

/** The definitions of each file (an array each) as one set, and where each file's are. */
export function joinFiles(parsed: { file: string; definitions: unknown }[]): {
  definitions: unknown[];
  parts: FilePart[];
} {
  const definitions: unknown[] = [];
  const parts: FilePart[] = [];
  for (const { file, definitions: entries } of parsed) {
    if (!Array.isArray(entries))
      throw new ToolDefinitionError(`${file}: expected a JSON array of tool definitions`);
    parts.push({ file, first: definitions.length, count: entries.length });
    definitions.push(...(entries as unknown[]));
  }
  return { definitions, parts };
}

/**
 * `message` about the set made of directory `dir`, naming instead the file of each definition it
 * names and the definition's place there: `dir: tool #5` → `dir/b.yaml: tool #1`.
 */
export function inFiles(message: string, dir: string, parts: readonly FilePart[]): string {
  const partOf = (index: number) =>
    parts.find((p) => index >= p.first && index < p.first + p.count);
  return renamePlaces(message, dir, (n) => {
    const part = partOf(n);
    return part && { index: n - part.first, file: part.file };
  });
}
