import g711 from 'alawmulaw';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';
import { sseText } from './support/fake-llm.js';
import { useVoiceRig } from './support/speech-server.js';
import { until } from './support/waiting.js';

/** A spoken sentence, 16 kHz (test/fixtures/audio/make-speech.mjs), as a call carries it: 8 kHz μ-law. */
const SPEECH = (() => {
  const pcm = readFileSync('test/fixtures/audio/speech-16k.pcm');
  const wide = new Int16Array(pcm.buffer.slice(pcm.byteOffset, pcm.byteOffset + pcm.length));
  const narrow = new Int16Array(wide.length >> 1);
  for (let i = 0; i < narrow.length; i++) narrow[i] = (wide[2 * i]! + wide[2 * i + 1]!) >> 1;
  return Buffer.from(g711.mulaw.encode(narrow));
})();
/** `ms` of a silent line in μ-law (0xff is zero). */
const quiet = (ms: number) => Buffer.alloc(ms * 8, 0xff);

/** A call as Twilio streams it to `/twilio`: its frames, and what it got back. */
class TwilioCall {
  readonly got: Record<string, any>[] = [];
  closeCode: number | undefined;
  private constructor(readonly socket: WebSocket) {
    socket.on('message', (data) => this.got.push(JSON.parse(String(data)) as Record<string, any>));
    socket.on('close', (code) => (this.closeCode = code));
  }

  static async dial(url: string, parameters: Record<string, string>): Promise<TwilioCall> {
    const socket = new WebSocket(url);
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

/**
 * `/twilio`: a call's Twilio Media Stream joined to a session as is, no gateway of one's own: the
 * greeting and the answers played back on the call, the caller's words heard and answered, a
 * barge-in clearing what Twilio still had to play.
 */
describe('Twilio Media Streams (/twilio)', () => {
  const rig = useVoiceRig({ WS_API_KEY: 'call-key' });
  const { llm, speech } = rig;
  const url = () => rig.engine.wsUrl.replace(/\/ws$/, '/twilio');

  it('greets the caller, hears them out, and answers on the call', async () => {
    const call = await TwilioCall.dial(url(), {
      token: 'call-key',
      greeting: 'Hello, this is the front desk.',
      customer_id: 'C-42',
    });
    // The greeting's 0.2 s of speech, as 8 kHz μ-law: about 1600 bytes, in frames of the stream.
    await until(() => call.heard() >= 1500, 'the greeting');
    expect(call.got.every((f) => f.streamSid === 'MZ0001')).toBe(true);
    llm.enqueue(sseText(['It is sunny.']));
    const from = call.got.length;
    call.speak(Buffer.concat([quiet(500), SPEECH, quiet(1000)]));
    await until(() => call.heard(from) >= 1500, 'the answer', 10_000);
    expect(llm.requests[0]!.body.messages.slice(1)).toEqual([
      { role: 'assistant', content: 'Hello, this is the front desk.' },
      { role: 'user', content: speech.transcript },
    ]);
    expect(speech.inputs()).toEqual(['Hello, this is the front desk.', 'It is sunny.']);
    call.send({ event: 'stop', sequenceNumber: '99', streamSid: 'MZ0001', stop: {} });
    await until(() => call.closeCode !== undefined, 'the call to close');
    expect(call.closeCode).toBe(1000);
  });

  it('clears what Twilio still had to play when the caller speaks over the agent', async () => {
    speech.seconds = 30; // the agent speaks for long
    const call = await TwilioCall.dial(url(), { token: 'call-key', greeting: 'Hello there.' });
    await until(() => call.heard() > 0, 'the greeting');
    call.speak(quiet(1000)); // the line's silence is no barge-in
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(call.got.some((f) => f.event === 'clear')).toBe(false);
    call.speak(SPEECH);
    await until(() => call.got.some((f) => f.event === 'clear'), 'a clear', 10_000);
    expect(call.got.find((f) => f.event === 'clear')).toEqual({
      event: 'clear',
      streamSid: 'MZ0001',
    });
    call.socket.close();
  });

  it('refuses a stream without the engine’s key in its token parameter', async () => {
    const call = await TwilioCall.dial(url(), { token: 'wrong' });
    await until(() => call.closeCode !== undefined, 'the refusal');
    expect(call.closeCode).toBe(1008);
    expect(call.heard()).toBe(0);
  });

  it('ignores frames that are no Twilio message, and the call goes on', async () => {
    const socket = new WebSocket(url());
    await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
    for (const frame of ['null', '5', '[]', 'not json', '{"event":"media","media":null}'])
      socket.send(frame);
    socket.send(
      JSON.stringify({ event: 'start', start: { streamSid: 'MZ2', customParameters: null } }),
    );
    const closed = await new Promise<number>((resolve) => socket.once('close', resolve));
    // No token parameter: refused as such, the engine still serving.
    expect(closed).toBe(1008);
    const call = await TwilioCall.dial(url(), { token: 'call-key', greeting: 'Hello.' });
    await until(() => call.heard() > 0, 'the greeting');
    call.socket.close();
  });
});
