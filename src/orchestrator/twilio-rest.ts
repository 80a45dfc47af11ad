/**
 * The requests of Twilio's REST API the engine makes, to the Calls resource: a call transferred
 * (its TwiML replaced by a `<Dial>`), and a call placed. Through the engine's egress proxy, as all
 * its requests.
 * Pure: no Nest import.
 */
import { connectionErrorCode } from '../common/connection-error.js';
import { egressFetch } from '../common/egress.js';
import { boundedText } from '../common/response-body.js';
import { currentKey } from '../config/bearer-key.js';
import { encodeText } from '../tools/argument-text.js';

export interface TwilioAccount {
  /** TWILIO_API_BASE_URL: `https://api.twilio.com`, or a region's edge. */
  apiBaseUrl: string;
  accountSid: string;
  authToken: string;
}

const TIMEOUT_MS = 10_000;
/** The most of an answer read: Twilio's are a few KiB. */
const ANSWER_MAX_BYTES = 1024 * 1024;

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
  await redirectCall(account, callSid, await dialTwiml(to, dial), 'transfer a call');
}

/** Gives the call `callSid` the TwiML `twiml` from now on; throws an error saying why it could not. */
export async function redirectCall(
  account: TwilioAccount,
  callSid: string,
  twiml: string,
  what = 'carry a call over',
): Promise<void> {
  await callsRequest(account, `/Calls/${encodeText(callSid)}.json`, what, { Twiml: twiml });
}

/**
 * Places a call from `from` to `to` that runs `twiml` once answered; its `CA…` id. With
 * `machineCallback`, Twilio's answering-machine detection runs beside the call (asynchronous,
 * waiting for a machine's greeting to end) and posts who answered (`AnsweredBy`) there. With
 * `statusCallback`, Twilio posts the call's final status there (answered or not).
 */
export async function placeCall(
  account: TwilioAccount,
  {
    to,
    from,
    twiml,
    machineCallback,
    statusCallback,
  }: { to: string; from: string; twiml: string; machineCallback?: string; statusCallback?: string },
): Promise<string> {
  const placed = await callsRequest(account, '/Calls.json', 'place a call', {
    To: to,
    From: from,
    Twiml: twiml,
    ...(machineCallback && {
      MachineDetection: 'DetectMessageEnd',
      AsyncAmd: 'true',
      AsyncAmdStatusCallback: machineCallback,
      AsyncAmdStatusCallbackMethod: 'POST',
    }),
    ...(statusCallback && { StatusCallback: statusCallback, StatusCallbackMethod: 'POST' }),
  });
  const sid = (placed as { sid?: unknown } | undefined)?.sid;
  if (typeof sid !== 'string') throw new Error("Twilio's API answered with no call sid");
  return sid;
}

/**
 * POSTs `form` to the account's Calls resource at `path` (Twilio's REST API, through the egress
 * proxy); its JSON answer. Throws an error saying why it could not (`what` was to be done).
 */
async function callsRequest(
  account: TwilioAccount,
  path: string,
  what: string,
  form: Record<string, string>,
): Promise<unknown> {
  const { apiBaseUrl, accountSid, authToken } = account;
  if (!accountSid || !authToken)
    throw new Error(`TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN are needed to ${what}`);
  const url = `${apiBaseUrl}/2010-04-01/Accounts/${encodeURIComponent(accountSid)}${path}`;
  // One token a line (a rotation): the first is the account's current one.
  const token = currentKey(authToken);
  let res: Response;
  let read: { text: string; more: boolean };
  try {
    // The answer read within the request's time too.
    const signal = AbortSignal.timeout(TIMEOUT_MS);
    res = await egressFetch(url, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${accountSid}:${token}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams(form).toString(),
      signal,
    });
    read = await boundedText(res, ANSWER_MAX_BYTES, signal);
  } catch (error) {
    throw new Error(
      (error as Error).name === 'TimeoutError'
        ? `Twilio's API did not answer within ${TIMEOUT_MS / 1000}s`
        : `cannot reach Twilio's API (${connectionErrorCode(error) ?? (error as Error).message})`,
      { cause: error },
    );
  }
  const { text, more } = read;
  if (more) throw new Error(`Twilio's API answered more than ${ANSWER_MAX_BYTES / 1024} KiB`);
  let answer: unknown;
  try {
    answer = JSON.parse(text);
  } catch {
    // not JSON: its text as it is
  }
  if (res.ok) return answer;
  const said = (answer as { message?: unknown } | undefined)?.message;
  const message = typeof said === 'string' ? said : text.slice(0, 300);
  throw new Error(`Twilio's API refused to ${what} (HTTP ${res.status}): ${message}`);
}
