/**
 * Call ids in the one form every server takes: 9 letters and digits. Mistral's chat templates
 * ("Tool call IDs should be alphanumeric strings with length 9!") and tokenizer ("… must be a-z,
 * A-Z, 0-9, with a length of 9") refuse any other; every other server takes any string.
 * Pure: no Nest import.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { ChatMessage } from './llm.types.js';

const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const NINE_CHARACTERS = /^[A-Za-z0-9]{9}$/;

const base62 = (bytes: Uint8Array) =>
  Array.from(bytes.subarray(0, 9), (byte) => BASE62[byte % BASE62.length]).join('');

/** An id for a call the server gave none (or one already used). */
export const newCallId = (): string => base62(randomBytes(9));

/** `id` as 9 letters and digits: itself when it is, else from its hash (the same every time). */
export function nineCharacterId(id: string): string {
  if (NINE_CHARACTERS.test(id)) return id;
  return base62(createHash('sha256').update(id).digest());
}

/** `message` with its call ids as 9 letters and digits (what is sent; the history keeps its own). */
export function withNineCharacterIds(message: ChatMessage): ChatMessage {
  if (message.role === 'tool')
    return { ...message, tool_call_id: nineCharacterId(message.tool_call_id) };
  if (message.role !== 'assistant' || !message.tool_calls) return message;
  const calls = message.tool_calls.map((call) => ({ ...call, id: nineCharacterId(call.id) }));
  return { ...message, tool_calls: calls };
}
