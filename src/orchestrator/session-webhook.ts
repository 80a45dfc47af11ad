/**
 * SESSION_WEBHOOK_URL: an end-of-session report POSTed as each connection closes — the
 * conversation and how it ended — for a CRM, quality review or analytics, signed with
 * SESSION_WEBHOOK_SECRET (`X-Engine-Signature: t=<unix seconds>,v1=<HMAC-SHA256 hex of "t.body">`)
 * so that the receiver knows it came from the engine. Sent through the egress proxy, retried
 * after a failure of the network or the receiver (5xx, 429), never holding the session up.
 */
import type { Redact } from '../common/redaction.js';
import { createHmac } from 'node:crypto';
import { wholeCharacters } from '../common/whole-characters.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { egressFetch } from '../common/egress.js';
import { retryAfterMs, retryDelayMs } from '../common/retry.js';
import { publicConversation, publicSettings, turnsOf, type Session } from './session.js';
import type { LatencyMeasure, LatencySummary } from './turn-latency.js';

/** The report of one connection's end. */
export interface SessionEnded {
  type: 'session.ended';
  session_id: string;
  /** When the conversation began: its first connection's opening (a resumed session's is earlier). */
  started_at: string;
  opened_at: string;
  ended_at: string;
  duration_secs: number;
  /** The WebSocket close code (1000 a normal close, 1001 the engine stopping, 4002 an administrator). */
  close_code: number;
  /**
   * Why it ended (`agent_engine_sessions_ended_total`'s reasons): client, dropped, agent,
   * transferred, answering_machine, user_idle, time_limit, admin, resumed_elsewhere,
   * server_shutdown.
   */
  end_reason: string;
  /** Transferred (`transfer_call`): where to, a phone number or SIP address. */
  transferred_to?: string;
  /** The client may still resume it (SESSION_RESUME_SECS): a later connection's report follows. */
  resumable: boolean;
  /** Its settings, of its variables only the names. */
  settings: Record<string, unknown>;
  /** The assistant holding it at its end (a handoff's, a line's); null: the engine's own. */
  agent: string | null;
  turns: number;
  /** Tokens of all its turns, when the LLM server reports usage. */
  usage?: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
  /** How long this connection's user waited for its answers, by measure (`TurnTimings`'). */
  latency?: Partial<Record<LatencyMeasure, LatencySummary>>;
  /** The conversation in OpenAI chat form (user, assistant with tool_calls, tool). */
  history: unknown[];
  /** What the bounded history dropped of it, summarised (LLM_HISTORY_SUMMARY). */
  summary?: string;
}

export function reportOf(
  session: Session,
  times: { openedAt: number; endedAt: number },
  { closeCode, reason }: { closeCode: number; reason: string },
  resumable: boolean,
  redact?: Redact,
): SessionEnded {
  const latency = session.latency?.summary();
  return {
    type: 'session.ended',
    session_id: session.id,
    started_at: new Date(session.startedAt).toISOString(),
    opened_at: new Date(times.openedAt).toISOString(),
    ended_at: new Date(times.endedAt).toISOString(),
    duration_secs: Math.round((times.endedAt - times.openedAt) / 100) / 10,
    close_code: closeCode,
    end_reason: reason,
    ...(reason === 'transferred' &&
      session.ending?.transferTo && { transferred_to: session.ending.transferTo }),
    resumable,
    settings: publicSettings(session.settings),
    agent: session.agent?.name ?? null,
    turns: turnsOf(session),
    ...(session.usage && { usage: session.usage }),
    ...(latency && { latency }),
    ...publicConversation(session, redact),
  };
}

/** `X-Engine-Signature` of `body` sent at `unixSecs` (Stripe's scheme: replay shows in `t`). */
export function signature(secret: string, body: string, unixSecs: number): string {
  const mac = createHmac('sha256', secret).update(`${unixSecs}.${body}`).digest('hex');
  return `t=${unixSecs},v1=${mac}`;
}

const ATTEMPTS = 3;
const TIMEOUT_MS = 10_000;

/**
 * POSTs `report` to `url`; after a network failure, a 5xx or a 429 tries again (3 attempts in
 * all, 1 s then 2 s apart, or as Retry-After says). Resolves with what happened, never throws.
 */
export async function deliver(
  url: string,
  secret: string,
  report: SessionEnded,
  baseMs = 1000,
): Promise<{ ok: true } | { ok: false; why: string }> {
  // Half a character (a user's text cut mid-emoji) as U+FFFD: a receiver storing UTF-8 takes it.
  const body = JSON.stringify(report, wholeCharacters);
  let why = '';
  for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
    let wait: number | undefined;
    try {
      const headers: Record<string, string> = { 'Content-Type': 'application/json' };
      if (secret)
        headers['X-Engine-Signature'] = signature(secret, body, Math.floor(Date.now() / 1000));
      const res = await egressFetch(url, {
        method: 'POST',
        headers,
        body,
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
      await res.body?.cancel();
      if (res.ok) return { ok: true };
      why = `HTTP ${res.status}`;
      if (res.status < 500 && res.status !== 429) return { ok: false, why };
      wait = retryAfterMs(res.headers.get('retry-after') ?? undefined);
    } catch (error) {
      const e = error as Error & { cause?: { code?: string; message?: string } };
      why =
        e.name === 'TimeoutError'
          ? `no answer within ${TIMEOUT_MS / 1000}s`
          : (e.cause?.code ?? e.cause?.message ?? e.message);
    }
    if (attempt < ATTEMPTS)
      await sleep(retryDelayMs({ attempt, baseMs, capMs: 30_000, retryAfterMs: wait }));
  }
  return { ok: false, why: `${why} (${ATTEMPTS} attempts)` };
}
