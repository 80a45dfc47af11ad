/** Raised when a set of definitions cannot be loaded; the message names source, index, tool and field. */
export class ToolDefinitionError extends Error {}

/** Where one definition came from, for error messages. */
export function where(source: string, index: number, name?: unknown): string {
  return `${source}: tool #${index}${typeof name === 'string' ? ` '${name}'` : ''}`;
}
