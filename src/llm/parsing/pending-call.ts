import { TRAILING_LOOKAHEAD } from './qwen-xml-call.js';
import { END_FN, END_PARAM, FN, OPEN_CALL } from './tags.js';

/** A call that seems complete, followed by prose that may yet show the call had not ended. */
export interface PendingCall<C> {
  call: C;
  /** Where the call ends in the buffer. */
  end: number;
  /** How far the buffer has been searched. */
  scanFrom: number;
}

const firstOf = (buf: string, tagList: string[], from: number) => {
  const found = tagList.map((t) => buf.indexOf(t, from)).filter((i) => i !== -1);
  return found.length ? Math.min(...found) : -1;
};

/**
 * What the prose after a pending call shows: structure (`</parameter>`, `</function>`) within
 * the look-ahead and before any next call means the "end" was text inside a value (`reparse`);
 * another call, the end of the output or prose past the look-ahead confirm the call (`emit`);
 * else `wait` (and the search resumes where it stopped).
 */
export function pendingOutcome<C>(
  buf: string,
  pending: PendingCall<C>,
  final: boolean,
): 'reparse' | 'emit' | 'wait' {
  const from = Math.max(pending.end, pending.scanFrom - 12);
  const structure = firstOf(buf, [END_PARAM, END_FN], from);
  const nextCall = firstOf(buf, [OPEN_CALL, FN], from);
  const horizon = pending.end + TRAILING_LOOKAHEAD;
  if (structure !== -1 && structure < horizon && (nextCall === -1 || structure < nextCall))
    return 'reparse';
  if (nextCall !== -1 || final || buf.length > horizon) return 'emit';
  pending.scanFrom = buf.length;
  return 'wait';
}
