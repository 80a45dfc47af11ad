import { Logger } from '@nestjs/common';
import { createHmac } from 'node:crypto';
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
