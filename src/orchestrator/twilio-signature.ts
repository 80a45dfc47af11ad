/**
 * Whether a `/twilio` upgrade is Twilio's own: Twilio signs each stream's WebSocket request with
 * the account's Auth Token (`X-Twilio-Signature`: HMAC-SHA1 of the stream's URL as the TwiML
 * gives it, base64), checked with Twilio's own helper. Pure: no Nest import.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** Twilio's helper, loaded at the first stream checked: an engine that checks none does not hold it. */
let helper: Promise<typeof import('twilio/lib/webhooks/webhooks.js')> | undefined;

export type SignatureCheck = { ok: true } | { ok: false; reason: string };

/**
 * Checks the upgrade `request` against `authToken`. `streamUrl`: the URL Twilio was told (its
 * TwiML's `<Stream url>`); when empty, the one the request names (`wss://` and its Host), for an
 * engine reached at the address Twilio dials.
 */
export async function checkTwilioSignature(
  request: { headers: IncomingHttpHeaders; url?: string },
  { authToken, sharedKey }: { authToken: string; sharedKey: string },
  streamUrl: string,
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
  const url = streamUrl || `wss://${request.headers.host ?? ''}${request.url ?? '/'}`;
  // The engine serves `/twilio/` as `/twilio`: either may be the one Twilio signed.
  const alternative = url.endsWith('/') ? url.replace(/\/+$/, '') : `${url}/`;
  // One token a line: a rotation may hold the new one and the old (as WS_API_KEY).
  const { validateRequest, getSignatureAlgorithm } = await (helper ??=
    import('twilio/lib/webhooks/webhooks.js'));
  const algorithm = getSignatureAlgorithm(String(settings ?? ''));
  const tokens = secret
    .split(/\r?\n/)
    .map((token) => token.trim())
    .filter((token) => token !== '');
  const signed = tokens.some((token) =>
    [url, alternative].some((candidate) =>
      validateRequest(token, signature, candidate, {}, algorithm),
    ),
  );
  return signed
    ? { ok: true }
    : {
        ok: false,
        reason: `X-Twilio-Signature does not match ${streamUrl ? 'TWILIO_STREAM_URL' : `the URL ${url.slice(0, 200)} (set TWILIO_STREAM_URL to the TwiML's)`} signed with ${secretName}`,
      };
}
