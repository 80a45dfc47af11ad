/**
 * The one request of Twilio's REST API the engine makes: a call transferred, its TwiML replaced by
 * a `<Dial>` (Calls resource, update). Through the engine's egress proxy, as all its requests.
 * Pure: no Nest import.
 */
import { connectionErrorCode } from '../common/connection-error.js';
import { egressFetch } from '../common/egress.js';

export interface TwilioAccount {
  /** TWILIO_API_BASE_URL: `https://api.twilio.com`, or a region's edge. */
  apiBaseUrl: string;
  accountSid: string;
  authToken: string;
}

const TIMEOUT_MS = 10_000;

/** How a transfer dials: how long it rings, and where Twilio asks what next when it ends. */
export interface DialOptions {
  timeoutSecs: number;
  /** The URL Twilio posts the dial's outcome to (`DialCallStatus`); none: the call ends with it. */
  action?: string;
}

/**
 * TwiML dialling `to`: a phone number (E.164) or a SIP address (`sip:`), built by Twilio's helper
 * (loaded at the first transfer: an engine that never transfers a call does not hold it).
 */
export async function dialTwiml(to: string, { timeoutSecs, action }: DialOptions): Promise<string> {
  const { default: VoiceResponse } = await import('twilio/lib/twiml/VoiceResponse.js');
  const response = new VoiceResponse();
  const dial = response.dial({
    ...(action && { action, method: 'POST' as const }),
    timeout: timeoutSecs,
  });
  if (/^sips?:/i.test(to)) dial.sip(to);
  else dial.number(to);
  return response.toString();
}

/** Transfers the call `callSid` to `to`; throws an error saying why it could not. */
export async function transferCall(
  account: TwilioAccount,
  callSid: string,
  to: string,
  dial: DialOptions,
): Promise<void> {
  const { apiBaseUrl, accountSid, authToken } = account;
  if (!accountSid || !authToken)
    throw new Error('TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are needed to transfer a call');
  const url = `${apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}/Calls/${encodeURIComponent(callSid)}.json`;
  // One token a line (a rotation): the first is the account's current one.
  const token = authToken.split(/\r?\n/)[0]!.trim();
  let res: Response;
  try {
    res = await egressFetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${accountSid}:${token}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ Twiml: await dialTwiml(to, dial) }).toString(),
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(
      (error as Error).name === 'TimeoutError'
        ? `Twilio's API did not answer within ${TIMEOUT_MS / 1000}s`
        : `cannot reach Twilio's API (${connectionErrorCode(error) ?? (error as Error).message})`,
      { cause: error },
    );
  }
  const text = await res.text();
  if (res.ok) return;
  let message = text.slice(0, 300);
  try {
    const said = (JSON.parse(text) as { message?: unknown }).message;
    if (typeof said === 'string') message = said;
  } catch {
    // not JSON: its text as it is
  }
  throw new Error(`Twilio's API refused the transfer (HTTP ${res.status}): ${message}`);
}
