/** The telephone line's settings (`TWILIO_*`, `DTMF_*`) of the environment. Pure: no Nest import. */
import { absoluteUrl, EnvError, int, present, type Raw } from './env-values.js';

export interface TelephonyEnv {
  twilio: {
    /** The account's Auth Token: `/twilio` takes only streams Twilio signed with it; '' for no check. */
    authToken: string;
    /** The stream's URL as the TwiML gives it (Twilio signs it); '' to take it from the request. */
    streamUrl: string;
  };
  /** Keys pressed on the caller's phone (DTMF). */
  dtmf: {
    /** The pause after the last key that ends an entry (`#` ends one at once). */
    timeoutMs: number;
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

export function parseTelephony(raw: Raw): TelephonyEnv {
  return {
    twilio: {
      authToken: present(raw, 'TWILIO_AUTH_TOKEN') ?? '',
      streamUrl: wsUrl(raw, 'TWILIO_STREAM_URL'),
    },
    dtmf: { timeoutMs: int(raw, 'DTMF_TIMEOUT_MS', 2000, 100, 60_000) },
  };
}
