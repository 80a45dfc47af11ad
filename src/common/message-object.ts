import { isJsonObject } from './json-pointer.js';

/**
 * A message another process sent (Redis's pub/sub, shared with replicas that may run another
 * version, or with anyone who can publish there): its JSON object, or undefined for anything
 * else (not JSON, `null`, a number, a list). Pure: no Nest import.
 */
export function messageObject(raw: string): Record<string, unknown> | undefined {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return undefined;
  }
  return isJsonObject(value) ? value : undefined;
}
