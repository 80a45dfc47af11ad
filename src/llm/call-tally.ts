/**
 * Calls counted by where they were read (structured `tool_calls`, the text, the reasoning): the
 * same call seen in two places (a server that parses calls and also leaves their markup in the
 * text) is one call, while a call repeated in one place (the model adding the same item twice)
 * is two.
 */
export class CallTally {
  private readonly counts = new Map<string, Map<string, number>>();

  /** Counts the call `key` read from `source`; true when it is a new call, to be emitted. */
  add(key: string, source: string): boolean {
    let bySource = this.counts.get(key);
    if (!bySource) this.counts.set(key, (bySource = new Map<string, number>()));
    const n = (bySource.get(source) ?? 0) + 1;
    bySource.set(source, n);
    let elsewhere = 0;
    for (const [other, count] of bySource)
      if (other !== source) elsewhere = Math.max(elsewhere, count);
    return n > elsewhere;
  }
}

/** A value as JSON with object keys sorted: the same arguments written in another order are equal. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** What makes two calls the same for the tally: name and arguments (their text when invalid). */
export function callKey(name: string, args: unknown, invalidRaw: string): string {
  return `${name}\u0000${canonical(args)}\u0000${invalidRaw}`;
}
