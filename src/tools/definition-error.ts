/** Raised when a set of definitions cannot be loaded; the message names source, index, tool and field. */
export class ToolDefinitionError extends Error {}

/** Where one definition came from, for error messages. */
export function where(source: string, index: number, name?: unknown): string {
  return `${source}: tool #${index}${typeof name === 'string' ? ` '${name}'` : ''}`;
}

/**
 * `message` about the set read from `source`, each definition it names (`source: tool #N`,
 * `duplicates tool #N`) named where `place(N)` says it is: its index there, and its file when that
 * is not `source`; one `place` does not know is left as it is.
 */
export function renamePlaces(
  message: string,
  source: string,
  place: (index: number) => { index: number; file?: string } | undefined,
): string {
  const placed = new RegExp(`${source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: tool #(\\d+)`, 'g');
  return message
    .replace(placed, (whole, n: string) => {
      const at = place(Number(n));
      return at ? `${at.file ?? source}: tool #${at.index}` : whole;
    })
    .replace(/duplicates tool #(\d+)/g, (whole, n: string) => {
      const at = place(Number(n));
      return at ? `duplicates tool #${at.index}${at.file ? ` of ${at.file}` : ''}` : whole;
    });
}
