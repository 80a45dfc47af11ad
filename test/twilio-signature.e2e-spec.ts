import { Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import WebSocket from 'ws';
import { TwilioCall } from './support/twilio-call.js';
import { useVoiceRig } from './support/speech-server.js';
import { until } from './support/waiting.js';

const AUTH_TOKEN = 'f0e1d2c3b4a5968778695a4b3c2d1e0f';
/** The stream's URL in the TwiML; the engine is reached elsewhere (an ingress before it). */
const STREAM_URL = 'wss://voice.example.com/agents/front-desk';
/** Twilio's signature of a stream's request: HMAC-SHA1 of the stream's URL, base64. */
const sign = (token: string, url: string) => createHmac('sha1', token).update(url).digest('base64');

/** The HTTP status an upgrade was refused with (0 when it was accepted). */
function refusal(url: string, headers: Record<string, string>): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    socket.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? -1));
    socket.once('open', () => {
      socket.close();
      resolve(0);
    });
    socket.once('error', reject);
  });
}

/**
 * TWILIO_AUTH_TOKEN: `/twilio` takes only the streams Twilio signed (X-Twilio-Signature) for the
 * stream's URL, TWILIO_STREAM_URL here; anyone else who learns the URL is refused before a session
 * (and a model's turn) is opened.
 */
describe('Twilio stream signatures (TWILIO_AUTH_TOKEN)', () => {
  const rig = useVoiceRig({ TWILIO_AUTH_TOKEN: AUTH_TOKEN, TWILIO_STREAM_URL: STREAM_URL });
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  it('takes a stream Twilio signed for the TwiML’s URL, and the call is answered', async () => {
    const call = await TwilioCall.dial(
      url(),
      { greeting: 'Hello, this is the front desk.' },
      { 'X-Twilio-Signature': sign(AUTH_TOKEN, STREAM_URL) },
    );
    await until(() => call.heard() >= 1500, 'the greeting');
    call.socket.close();
  });

  it('refuses with HTTP 403 a stream unsigned, signed with another token or for another URL', async () => {
    const wrong: Record<string, string>[] = [
      {},
      { 'X-Twilio-Signature': sign('another-account-token', STREAM_URL) },
      // Signed for the address it reached: not the URL Twilio was given.
      { 'X-Twilio-Signature': sign(AUTH_TOKEN, url().replace(/^ws:/, 'wss:')) },
      { 'X-Twilio-Signature': 'not base64 at all' },
    ];
    const warned: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void warned.push(String(message)));
    try {
      for (const headers of wrong) expect(await refusal(url(), headers)).toBe(403);
    } finally {
      spy.mockRestore();
    }
    // `/ws` is not Twilio's: its upgrades need no signature.
    expect(await refusal(rig.engine.wsUrl, {})).toBe(0);
    expect(warned).toEqual([
      'Twilio stream refused: no X-Twilio-Signature header',
      ...Array(3).fill(
        'Twilio stream refused: X-Twilio-Signature does not match TWILIO_STREAM_URL signed with TWILIO_AUTH_TOKEN',
      ),
    ]);
  });
});

/** The status line of the answer to `request`, written as it is to the engine at `httpUrl`. */
function rawStatus(httpUrl: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(httpUrl).port), '127.0.0.1', () => socket.write(request));
    let got = '';
    socket.on('data', (data: Buffer) => (got += data.toString()));
    socket.on('close', () => resolve(got.split('\r\n')[0]!));
    socket.on('error', reject);
  });
}

/**
 * With no TWILIO_VOICE_URL, the URL a webhook's signature covers is made of the request's Host:
 * one that makes no URL (`a b`), its signature wrong, is refused with 403 (Twilio's check threw
 * for it, looking for the URL with and without its port: HTTP 500).
 */
describe('Twilio webhook signatures over a Host header that makes no URL', () => {
  const rig = useVoiceRig({ TWILIO_AUTH_TOKEN: AUTH_TOKEN });

  it('are refused with 403, said in the log', async () => {
    const warned: string[] = [];
    const spy = jest
      .spyOn(Logger.prototype, 'warn')
      .mockImplementation((message: unknown) => void warned.push(String(message)));
    try {
      const status = await rawStatus(
        rig.engine.httpUrl,
        [
          'POST /twilio/voice HTTP/1.1',
          'Host: a b',
          'Content-Type: application/x-www-form-urlencoded',
          'Content-Length: 14',
          'X-Twilio-Signature: forged',
          'Connection: close',
          '',
          'CallSid=CA0001',
        ].join('\r\n'),
      );
      expect(status).toBe('HTTP/1.1 403 Forbidden');
    } finally {
      spy.mockRestore();
    }
    expect(warned).toEqual([
      expect.stringMatching(/^Twilio call webhook refused: X-Twilio-Signature does not match/),
    ]);
  });
});
