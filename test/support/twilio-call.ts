/** A call as Twilio's Media Streams carry it, for the tests of `/twilio`. */
import g711 from 'alawmulaw';
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

/** 16 kHz PCM as a telephone line carries it: 8 kHz (pairs of samples averaged), μ-law. */
export function telephone(pcm: Buffer): Buffer {
  const wide = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const narrow = new Int16Array(wide.length >> 1);
  for (let i = 0; i < narrow.length; i++) narrow[i] = (wide[2 * i]! + wide[2 * i + 1]!) >> 1;
  return Buffer.from(g711.mulaw.encode(narrow));
}

/** A spoken sentence (test/fixtures/audio/make-speech.mjs) as a call carries it. */
export const SPEECH = telephone(readFileSync('test/fixtures/audio/speech-16k.pcm'));
/** `ms` of a silent line in μ-law (0xff is zero). */
export const quiet = (ms: number) => Buffer.alloc(ms * 8, 0xff);

/** A call as Twilio streams it to `/twilio`: its frames, and what it got back. */
export class TwilioCall {
  readonly got: Record<string, any>[] = [];
  closeCode: number | undefined;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.got.push(JSON.parse(String(data)) as Record<string, any>));
    socket.on('close', (code) => (this.closeCode = code));
  }

  /** `headers`: the upgrade request's (Twilio's signature). */
  static async dial(
    url: string,
    parameters: Record<string, string>,
    headers: Record<string, string> = {},
  ): Promise<TwilioCall> {
    const socket = new WebSocket(url, { headers });
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    const call = new TwilioCall(socket);
    call.send({ event: 'connected', protocol: 'Call', version: '1.0.0' });
    call.send({
      event: 'start',
      sequenceNumber: '1',
      start: {
        streamSid: 'MZ0001',
        callSid: 'CA0001',
        tracks: ['inbound'],
        mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 },
        customParameters: parameters,
      },
      streamSid: 'MZ0001',
    });
    return call;
  }

  /**
   * The call Twilio streams as `twiml` (a `<Connect><Stream>`) says, with its parameters, to
   * `twilioUrl` (the engine's /twilio), the upgrade signed with `authToken` for `streamUrl`.
   */
  static fromTwiml(
    twilioUrl: string,
    twiml: string,
    { authToken, streamUrl }: { authToken: string; streamUrl: string },
  ): Promise<TwilioCall> {
    const parameters = Object.fromEntries(
      [...twiml.matchAll(/<Parameter name="(\w+)" value="([^"]*)"\/>/g)].map((m) => [m[1], m[2]]),
    );
    return TwilioCall.dial(twilioUrl, parameters, {
      'X-Twilio-Signature': createHmac('sha1', authToken).update(streamUrl).digest('base64'),
    });
  }

  send(frame: object): void {
    this.socket.send(JSON.stringify(frame));
  }

  /** Streams μ-law audio as Twilio does: 20 ms (160 bytes) a frame. */
  speak(audio: Buffer): void {
    for (let at = 0; at < audio.length; at += 160)
      this.send({
        event: 'media',
        streamSid: 'MZ0001',
        media: { track: 'inbound', payload: audio.subarray(at, at + 160).toString('base64') },
      });
  }

  /** The μ-law bytes of the media frames received since `from`. */
  heard(from = 0): number {
    return this.got
      .slice(from)
      .filter((f) => f.event === 'media')
      .reduce((n, f) => n + Buffer.from(f.media.payload as string, 'base64').length, 0);
  }
}

/** The names of the variables of the one session open on the engine at `httpUrl`, sorted. */
export async function sessionVariables(httpUrl: string, adminKey: string): Promise<string[]> {
  const admin = { headers: { Authorization: `Bearer ${adminKey}` } };
  const listed = (await (await fetch(`${httpUrl}/api/sessions`, admin)).json()) as {
    sessions: { session_id: string }[];
  };
  const detail = (await (
    await fetch(`${httpUrl}/api/sessions/${listed.sessions[0]!.session_id}`, admin)
  ).json()) as { settings: { variables: string[] } };
  return detail.settings.variables.sort();
}

/** Twilio's signature of a webhook: HMAC-SHA1 of its URL and its form's sorted names and values. */
export function signWebhook(url: string, form: Record<string, string>, token: string): string {
  const data = Object.keys(form)
    .sort()
    .reduce((text, name) => text + name + form[name], url);
  return createHmac('sha1', token).update(data).digest('base64');
}

/**
 * Twilio's request of a webhook it was given as `url` (`https://` a public host, a path, a query),
 * signed with `token`, made to the engine at `httpUrl` (the same path and query).
 */
export function postWebhook(
  httpUrl: string,
  url: string,
  form: Record<string, string>,
  token: string,
): Promise<Response> {
  return fetch(url.replace(/^https:\/\/[^/]+/, httpUrl), {
    method: 'POST',
    headers: {
      'Content-Type': 'application/x-www-form-urlencoded',
      'X-Twilio-Signature': signWebhook(url, form, token),
    },
    body: new URLSearchParams(form).toString(),
  });
}
