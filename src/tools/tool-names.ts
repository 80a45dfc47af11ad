/** Names the engine makes for tools an entry stands for (an MCP server's, an OpenAPI document's). */

/**
 * `wanted` as a tool name — other characters than letters, digits, `_` and `-` as `_`, cut to 64
 * characters, `tool` for none (a server's tool named ""), `_2`, `_3` … when one of `made` has it
 * — added to `made`.
 */
export function uniqueName(wanted: string, made: Set<string>): string {
  const base = wanted.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'tool';
  let name = base;
  for (let n = 2; made.has(name); n++) name = `${base.slice(0, 64 - `_${n}`.length)}_${n}`;
  made.add(name);
  return name;
}
