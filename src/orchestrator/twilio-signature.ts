/**
 * Whether a request to `/twilio` (a stream's upgrade) or `/twilio/voice` (a call's webhook) is
 * Twilio's own: Twilio signs each with the account's Auth Token (`X-Twilio-Signature`: HMAC-SHA1
 * of the URL it was given, and of a webhook's form parameters, base64), checked with Twilio's own
 * helper. Pure: no Nest import.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Twilio's helper, loaded at the first request checked: an engine that checks none does not hold it. */
let helper: Promise<typeof import('twilio/lib/webhooks/webhooks.js')> | undefined;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

export interface TwilioSecrets {
  authToken: string;
  sharedKey: string;
}

/** A request as the checks read it: its headers, and its path with its query. */
export interface SignedRequest {
  headers: IncomingHttpHeaders;
  url?: string;
}

/**
 * Checks a stream's upgrade `request`. `streamUrl`: the URL Twilio was told (its TwiML's `<Stream
 * url>`); when empty, the one the request names (`wss://` and its Host), for an engine reached at
 * the address Twilio dials.
 */
export function checkTwilioSignature(
  request: SignedRequest,
  secrets: TwilioSecrets,
  streamUrl: string,
): Promise<SignatureCheck> {
  return checkSigned(request, secrets, {
    url: streamUrl || `wss://${request.headers.host ?? ''}${request.url ?? '/'}`,
    configured: streamUrl !== '',
    setting: 'TWILIO_STREAM_URL',
  });
}

/**
 * Checks a call's webhook `request` with its form `params`. `voiceUrl`: the URL Twilio was given
 * (the phone number's "A call comes in" webhook), with the query parameters the engine added to
 * the URLs it gives Twilio itself (`?resume=`, `?machine=`); when empty, `https://`, the
 * request's Host and its path.
 */
export function checkTwilioWebhook(
  request: SignedRequest,
  secrets: TwilioSecrets,
  voiceUrl: string,
  params: Record<string, string>,
): Promise<SignatureCheck> {
  return checkSigned(request, secrets, {
    url: voiceUrl
      ? withQueryOf(voiceUrl, request.url)
      : `https://${request.headers.host ?? ''}${request.url ?? '/'}`,
    configured: voiceUrl !== '',
    setting: 'TWILIO_VOICE_URL',
    params,
  });
}

/** `url` with the query parameters of `path` it has not (as `withQuery` made it), else `url` itself. */
function withQueryOf(url: string, path: string | undefined): string {
  const added = new URL(path ?? '/', 'http://engine').searchParams;
  const parsed = new URL(url);
  let changed = false;
  for (const [name, value] of added)
    if (!parsed.searchParams.has(name)) {
      parsed.searchParams.append(name, value);
      changed = true;
    }
  return changed ? parsed.toString() : url;
}

/** `url` with the query parameter `name` set to `value`: the URLs the engine gives Twilio. */
export function withQuery(url: string, name: string, value: string): string {
  const parsed = new URL(url);
  parsed.searchParams.set(name, value);
  return parsed.toString();
}

async function checkSigned(
  request: SignedRequest,
  { authToken, sharedKey }: TwilioSecrets,
  {
    url,
    configured,
    setting,
    params = {},
  }: { url: string; configured: boolean; setting: string; params?: Record<string, string> },
): Promise<SignatureCheck> {
  const signature = request.headers['x-twilio-signature'];
  if (typeof signature !== 'string' || signature === '')
    return { ok: false, reason: 'no X-Twilio-Signature header' };
  // A Webhooks Rule's signature: its shared key, and the algorithm the header names.
  const settings = request.headers['x-twilio-webhooks-signature-settings'];
  const ruled = settings !== undefined;
  if (ruled && !sharedKey)
    return {
      ok: false,
      reason:
        "signed with a Webhooks Rule's shared key (X-Twilio-Webhooks-Signature-Settings): set TWILIO_WEBHOOKS_SHARED_KEY",
    };
  const secret = ruled ? sharedKey : authToken;
  const secretName = ruled ? 'TWILIO_WEBHOOKS_SHARED_KEY' : 'TWILIO_AUTH_TOKEN';
  // The engine serves a path with a trailing slash as without: either may be the one signed.
  const path = url.split('?')[0]!;
  const query = url.slice(path.length);
  const other = path.endsWith('/') ? path.replace(/\/+$/, '') : `${path}/`;
  // One token a line: a rotation may hold the new one and the old (as WS_API_KEY).
  const { validateRequest, getSignatureAlgorithm } = await (helper ??=
    import('twilio/lib/webhooks/webhooks.js'));
  const algorithm = getSignatureAlgorithm(String(settings ?? ''));
  const tokens = secret
    .split(/\r?\n/)
    .map((token) => token.trim())
    .filter((token) => token !== '');
  // A URL made of a Host header that makes none (`a b`) is signed by no one: Twilio's check
  // throws for it.
  const matches = (token: string, candidate: string) => {
    try {
      return validateRequest(token, signature, candidate, params, algorithm);
    } catch {
      return false;
    }
  };
  const signed = tokens.some((token) =>
    [url, other + query].some((candidate) => matches(token, candidate)),
  );
  return signed
    ? { ok: true }
    : {
        ok: false,
        reason: `X-Twilio-Signature does not match ${configured ? setting : `the URL ${url.slice(0, 200)} (set ${setting} to the one Twilio was given)`} signed with ${secretName}`,
      };
}
