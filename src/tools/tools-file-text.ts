/**
 * The text of a tools file as definitions: JSON, or YAML for a file named `….yaml` or `….yml`
 * (comments, and code tools' Python as block text, `code: |`). Pure but for reading the file:
 * no Nest import.
 */
import { readFileSync } from 'node:fs';
import { ToolDefinitionError } from './definition-error.js';

export const isYamlFile = (path: string) => /\.ya?ml$/i.test(path);

/** Parses `text` read from `path`; throws ToolDefinitionError naming the file and the line. */
export async function parseToolsFile(text: string, path: string): Promise<unknown> {
  // A byte order mark (some editors write one) is no part of the text.
  const body = text.replace(/^\uFEFF/, '');
  if (!isYamlFile(path)) {
    try {
      return JSON.parse(body);
    } catch (error) {
      throw new ToolDefinitionError(`${path}: not valid JSON: ${(error as Error).message}`);
    }
  }
  const { parseDocument } = await import('yaml');
  // YAML 1.2's core schema: `yes`, `no`, `on` stay strings; a key given twice is an error.
  const document = parseDocument(body, { prettyErrors: true, uniqueKeys: true });
  const [error] = document.errors;
  if (error) {
    // The message's first line says what and where ("… at line 3, column 5:"), the rest quotes it.
    const what = error.message.split('\n')[0]!.replace(/:$/, '');
    throw new ToolDefinitionError(`${path}: not valid YAML: ${what}`);
  }
  return document.toJS({ maxAliasCount: 100 });
}

/** A tools file's definitions; one that cannot be read or parsed throws ToolDefinitionError naming it. */
export function readToolsFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ToolDefinitionError(
      `Cannot read tools file ${path} (LLM_TOOLS_FILE): ${(error as Error).message}`,
    );
  }
  return parseToolsFile(text, path);
}
