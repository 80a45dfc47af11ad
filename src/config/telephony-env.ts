/**
 * A caller's settings (`TWILIO_*`, `DTMF_*`, `USER_IDLE_*`) of the environment. Pure: no Nest
 * import.
 */
import type { Phrases } from '../common/phrases.js';
import {
  DEFAULT_IDLE_GOODBYES,
  DEFAULT_IDLE_PHRASES,
  DEFAULT_TRANSFER_UNANSWERED,
} from './env-defaults.js';
import {
  absoluteUrl,
  bool,
  EnvError,
  httpUrl,
  int,
  phrasePerLanguage,
  present,
  secondsOrNever,
  type Raw,
} from './env-values.js';

export interface TelephonyEnv {
  twilio: {
    /** The account's Auth Token: `/twilio` takes only streams Twilio signed with it; '' for no check. */
    authToken: string;
    /** A Webhooks Rule's shared key, for streams signed with it instead of the Auth Token. */
    webhooksSharedKey: string;
    /** The stream's URL as the TwiML gives it (Twilio signs it); '' to take it from the request. */
    streamUrl: string;
    /** The call webhook's URL as Twilio was given it (Twilio signs it); '' to take it from the request. */
    voiceUrl: string;
    /** What the agent says first on a call `/twilio/voice` answers; '' for nothing. */
    greeting: string;
    /** Whether the caller may cut a call's greeting (placed calls' too, unless they say). */
    greetingInterruptible: boolean;
    /** The account whose calls a `transfer_call` tool transfers (with the Auth Token). */
    accountSid: string;
    /** The number calls the agent places come from (`POST /api/calls`), unless one is given. */
    fromNumber: string;
    /** Twilio's REST API: its US edge, or a region's. */
    apiBaseUrl: string;
    /** How long a transferred call rings before it comes back to the agent. */
    dialTimeoutSecs: number;
    /** What the agent says when a transferred call comes back unanswered, by language code. */
    transferUnanswered: Phrases;
  };
  /** Keys pressed on the caller's phone (DTMF). */
  dtmf: {
    /** The pause after the last key that ends an entry (`#` ends one at once). */
    timeoutMs: number;
  };
  /** A voice session's user who has gone quiet. */
  idle: {
    /** Silence after the agent's turn that counts as idle; 0: never. */
    secs: number;
    /** Times the user is asked whether they are there before the session ends. */
    prompts: number;
    /** What the agent asks, by language code (`*`: any language). */
    phrases: Phrases;
    /** What the agent says before it ends the session, by language code; none for a language it lacks. */
    goodbyes: Phrases;
  };
}

/** An absolute ws:// or wss:// URL with no fragment, as written. */
function wsUrl(raw: Raw, name: string): string {
  const value = present(raw, name) ?? '';
  if (value === '') return '';
  const url = absoluteUrl(value);
  if (!url || !['ws:', 'wss:'].includes(url.protocol) || url.hash !== '' || value.includes('#'))
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected the stream's absolute wss:// URL as the TwiML gives it, e.g. "wss://engine.example.com/twilio"`,
    );
  return value;
}

/** A phone number in E.164 form; '' when unset. */
function phoneNumber(raw: Raw, name: string): string {
  const value = present(raw, name) ?? '';
  if (value !== '' && !/^\+[1-9][0-9]{1,14}$/.test(value))
    throw new EnvError(
      `${name}=${JSON.stringify(value)} is invalid: expected a phone number in E.164 form, e.g. "+15550199"`,
    );
  return value;
}

/** TWILIO_GREETING: said as `say` says, so at most its 10000 characters. */
function greeting(raw: Raw): string {
  const value = (present(raw, 'TWILIO_GREETING') ?? '').trim();
  if (value.length > 10_000)
    throw new EnvError(`TWILIO_GREETING is invalid: longer than 10000 characters`);
  return value;
}

export function parseTelephony(raw: Raw): TelephonyEnv {
  return {
    twilio: {
      authToken: present(raw, 'TWILIO_AUTH_TOKEN') ?? '',
      webhooksSharedKey: present(raw, 'TWILIO_WEBHOOKS_SHARED_KEY') ?? '',
      streamUrl: wsUrl(raw, 'TWILIO_STREAM_URL'),
      voiceUrl: httpUrl(raw, 'TWILIO_VOICE_URL', ''),
      greeting: greeting(raw),
      greetingInterruptible: bool(raw, 'TWILIO_GREETING_INTERRUPTIBLE') ?? true,
      accountSid: present(raw, 'TWILIO_ACCOUNT_SID') ?? '',
      fromNumber: phoneNumber(raw, 'TWILIO_FROM_NUMBER'),
      apiBaseUrl: httpUrl(raw, 'TWILIO_API_BASE_URL', 'https://api.twilio.com'),
      dialTimeoutSecs: int(raw, 'TWILIO_DIAL_TIMEOUT_SECS', 30, 5, 600),
      transferUnanswered: phrasePerLanguage(
        raw,
        'TWILIO_TRANSFER_UNANSWERED',
        DEFAULT_TRANSFER_UNANSWERED,
      ),
    },
    dtmf: { timeoutMs: int(raw, 'DTMF_TIMEOUT_MS', 2000, 100, 60_000) },
    idle: {
      secs: secondsOrNever(raw, 'USER_IDLE_SECS', 3600),
      prompts: int(raw, 'USER_IDLE_PROMPTS', 2, 0, 10),
      phrases: phrasePerLanguage(raw, 'USER_IDLE_PHRASE', DEFAULT_IDLE_PHRASES),
      goodbyes: phrasePerLanguage(raw, 'USER_IDLE_GOODBYE', DEFAULT_IDLE_GOODBYES),
    },
  };
}
