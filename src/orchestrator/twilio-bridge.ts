/**
 * A Twilio Media Stream (`<Connect><Stream url="wss://…/twilio">`) joined to a session of `/ws`,
 * as any client of the engine would join it (within the process: a LocalSocket, no loopback
 * connection): the call's G.711 μ-law goes in as it is, with voice activity detection on (a call
 * streams without end), and the keys the caller presses (DTMF) as theirs; the answer's speech
 * comes back in Twilio's `media` frames, and a barge-in (speech or a key) clears what Twilio
 * still had to play. Pure: no Nest import.
 */
import WebSocket from 'ws';
import { keyMatches } from '../config/bearer-key.js';
import type { LocalSocket } from './local-socket.js';
import { phraseFor, type Phrases } from '../common/phrases.js';
import { encodeText } from '../tools/argument-text.js';
import { OWN_PARAMETERS, type TwilioMessage } from './twilio-message.js';
import { isJsonObject as isObject } from '../common/json-pointer.js';

export interface BridgeOptions {
  /** Opens a session of `/ws` within the process, `query` its query (`?resume=…`). */
  connect: (query: string) => LocalSocket;
  /** WS_API_KEY: the stream must carry it as its `token` parameter; '' for none. */
  apiKey: string;
  /** The silence that ends a caller's utterance. */
  silenceMs: number;
  /**
   * Hands the call `callSid` over to `to` (Twilio's REST API), to come back to the session of
   * `resumeToken` (if any) unanswered; rejects saying why it could not.
   */
  transfer: (callSid: string, to: string, resumeToken: string | undefined) => Promise<void>;
  /**
   * The engine stops (a rolling update): the call `callSid` is streamed again with `parameters`,
   * for another replica to take it; rejects saying why it could not. Unset without Twilio's API.
   */
  carryOver?: (callSid: string, parameters: [string, string][]) => Promise<void>;
  /** Whether another replica can resume a session (kept in Redis). */
  sharedSessions: boolean;
  /** What the agent says when a transferred call comes back unanswered, by language code. */
  unanswered: Phrases;
  log: (line: string) => void;
}

/** The longest wait for Twilio to play what it holds before a call the engine ended hangs up. */
const HANG_UP_WAIT_MS = 30_000;
/** The mark whose return says Twilio has played all it held. */
const LAST_WORDS = 'last-words';

export class TwilioBridge {
  private streamSid = '';
  private callSid = '';
  /** Where the agent handed the call over (`transfer`), once its last words are played. */
  private transferTo: string | undefined;
  /** The session's resume token: a transferred call unanswered comes back to it. */
  private resumeToken: string | undefined;
  /** The call came back from a transfer no one answered: the agent says so once resumed. */
  private returned = false;
  /** The stream resumes a session (a call placed, or back from a transfer). */
  private resuming = false;
  /** The stream's parameters, as the call came with them. */
  private parameters: Record<string, string> = {};
  private engine: LocalSocket | undefined;
  /** What the caller said before the engine's session was open. */
  private waiting: (string | Buffer)[] = [];
  /** Speech was sent that Twilio may not have played yet (none since a `clear`). */
  private playing = false;
  private hangingUp: NodeJS.Timeout | undefined;

  constructor(
    private readonly twilio: WebSocket,
    private readonly options: BridgeOptions,
  ) {}

  /** One of Twilio's frames; one that is none (not a JSON object) is ignored. */
  receive(raw: string): void {
    let message: unknown;
    try {
      message = JSON.parse(raw);
    } catch {
      message = undefined;
    }
    if (!isObject(message))
      return this.options.log('a frame that is no Twilio message was ignored');
    const { event, start, media, dtmf, mark } = message as TwilioMessage;
    if (event === 'start') this.start(isObject(start) ? start : {});
    else if (event === 'media') this.media(isObject(media) ? media : {});
    else if (event === 'dtmf') this.keyPressed(isObject(dtmf) ? dtmf : {});
    else if (event === 'stop') this.close();
    else if (event === 'mark' && isObject(mark) && mark.name === LAST_WORDS) void this.lastWords();
  }

  /**
   * The call or the engine's session is over: both ends are closed (the call with `code`: 1011
   * when the engine failed).
   */
  close(code = 1000): void {
    clearTimeout(this.hangingUp);
    if (this.engine && this.engine.readyState !== WebSocket.CLOSED) this.engine.close(1000);
    if (this.twilio.readyState === WebSocket.OPEN) this.twilio.close(code);
  }

  private start({ streamSid, callSid, customParameters }: NonNullable<TwilioMessage['start']>) {
    if (this.engine) return;
    this.streamSid = typeof streamSid === 'string' ? streamSid : '';
    this.callSid = typeof callSid === 'string' ? callSid : '';
    const parameters = Object.fromEntries(
      Object.entries(isObject(customParameters) ? customParameters : {}).map(([name, value]) => [
        name,
        String(value),
      ]),
    );
    this.parameters = parameters;
    const { apiKey, silenceMs } = this.options;
    if (apiKey && !keyMatches(parameters.token ?? '', apiKey)) {
      this.options.log(`Twilio stream refused: its token parameter does not carry WS_API_KEY`);
      return void this.twilio.close(1008, 'token parameter missing or wrong');
    }
    this.options.log(`Twilio stream ${this.streamSid} of call ${this.callSid || '?'} joined`);
    // Back from a transfer (see /twilio/voice): the session the call had, resumed.
    this.returned = parameters.transfer_status !== undefined;
    this.resuming = Boolean(parameters.resume);
    const resume = parameters.resume ? `?resume=${encodeText(parameters.resume)}` : '';
    const engine = this.options.connect(resume);
    this.engine = engine;
    // The call's id too, for tools that act on the call through Twilio's API (its caller's
    // number, an SMS to it): `${session.twilio_call_sid}`.
    const own: [string, string][] = this.callSid ? [['twilio_call_sid', this.callSid]] : [];
    const variables: Record<string, string> = Object.fromEntries([
      ...own,
      ...Object.entries(parameters).filter(([name]) => !OWN_PARAMETERS.has(name)),
    ]);
    engine.on('open', () => {
      engine.send(
        JSON.stringify({
          type: 'session.update',
          modality: 'voice',
          channel: 'twilio',
          input_audio_format: 'g711_ulaw',
          output_audio_format: 'g711_ulaw',
          vad_silence_ms: silenceMs,
          // A resumed session keeps its own.
          ...(!resume && Object.keys(variables).length > 0 && { variables }),
        }),
      );
      // Alone: an assistant the tools lack is refused (logged) without the call's audio settings.
      if (parameters.agent && !resume)
        engine.send(JSON.stringify({ type: 'session.update', agent: parameters.agent }));
      if (parameters.greeting) {
        const firm = parameters.greeting_interruptible === 'false';
        const say = {
          type: 'say',
          text: parameters.greeting,
          ...(firm && { interruptible: false }),
        };
        engine.send(JSON.stringify(say));
      }
      for (const frame of this.waiting) engine.send(frame);
      this.waiting = [];
    });
    engine.on('message', (data: Buffer) => this.answer(data.toString()));
    // Closed as the engine stops (1001): the call goes on elsewhere rather than ending.
    engine.on('close', (code: number) => void (code === 1001 ? this.carryOver() : this.hangUp()));
  }

  private media({ track, payload }: NonNullable<TwilioMessage['media']>) {
    if ((track !== undefined && track !== 'inbound') || typeof payload !== 'string') return;
    // As a binary frame, in the session's μ-law: no JSON to write here and parse there again.
    this.toEngine(Buffer.from(payload, 'base64'));
  }

  /** A key the caller pressed (Twilio sends one `dtmf` frame a key). */
  private keyPressed({ digit }: NonNullable<TwilioMessage['dtmf']>) {
    if (typeof digit === 'string' && /^[0-9*#A-D]$/.test(digit))
      this.toEngine({ type: 'dtmf', digits: digit });
  }

  /** A message (or audio) of the caller's to the engine's session, kept until that is open. */
  private toEngine(message: object | Buffer): void {
    const frame = Buffer.isBuffer(message) ? message : JSON.stringify(message);
    if (this.engine?.readyState === WebSocket.OPEN) this.engine.send(frame);
    else if (this.engine) this.waiting.push(frame);
  }

  /** The engine's events as Twilio takes them: speech to play, and what to stop playing. */
  private answer(raw: string): void {
    const event = JSON.parse(raw) as {
      type: string;
      data?: string;
      message?: string;
      interrupted?: boolean;
      heard_out?: boolean;
      to?: string;
      resume_token?: string;
      settings?: { language?: string; variables?: Record<string, string> };
    };
    const send = (frame: object) =>
      this.twilio.readyState === WebSocket.OPEN &&
      this.twilio.send(JSON.stringify({ ...frame, streamSid: this.streamSid }));
    if (event.type === 'audio') {
      this.playing = true;
      send({ event: 'media', media: { payload: event.data } });
    }
    // Speech over the agent clears at once (not speech heard out while tools run: the agent goes
    // on); any other cut (a key pressed) as the turn ends; a question answered while it is said
    // (`audio_clear`) at once. Only what was sent since the last clear is cleared: a barge-in's
    // turn then ends with no second clear, and the caller speaking while nothing plays sends none.
    else if (
      (event.type === 'speech_started' && event.heard_out !== true) ||
      (event.type === 'assistant_end' && event.interrupted === true) ||
      event.type === 'audio_clear'
    ) {
      if (this.playing) send({ event: 'clear' });
      this.playing = false;
    } else if (event.type === 'transfer' && typeof event.to === 'string')
      this.transferTo = event.to;
    else if (event.type === 'session') this.opened(event);
    else if (event.type === 'error')
      this.options.log(`Twilio stream ${this.streamSid}: ${String(event.message)}`);
  }

  /**
   * The session is open. One the stream resumed (a call placed, or back from a transfer) keeps its
   * variables, this call's id added; after a transfer no one answered, the agent says so first.
   */
  private opened({
    resume_token: token,
    settings,
  }: {
    resume_token?: string;
    settings?: { language?: string; variables?: Record<string, string> };
  }): void {
    this.resumeToken = token;
    const variables = settings?.variables ?? {};
    if (this.resuming && this.callSid && variables.twilio_call_sid !== this.callSid)
      this.engine?.send(
        JSON.stringify({
          type: 'session.update',
          variables: { ...variables, twilio_call_sid: this.callSid },
        }),
      );
    if (!this.returned) return;
    this.returned = false;
    const text = phraseFor(this.options.unanswered, settings?.language ?? 'en', this);
    if (text) this.engine?.send(JSON.stringify({ type: 'say', text }));
  }

  /**
   * The engine ended the session (the agent hung up or handed the call over, the caller stayed
   * silent): the call ends, or is transferred, once Twilio has played the last words it holds
   * (the return of a `mark` sent after them).
   */
  private hangUp(): void {
    if (!this.playing || this.twilio.readyState !== WebSocket.OPEN) return void this.lastWords();
    this.twilio.send(
      JSON.stringify({ event: 'mark', streamSid: this.streamSid, mark: { name: LAST_WORDS } }),
    );
    this.hangingUp ??= setTimeout(() => void this.lastWords(), HANG_UP_WAIT_MS);
    this.hangingUp.unref();
  }

  /**
   * The engine stops: the call is streamed again, to its session where another replica can
   * resume it, or as it came when it has none yet (it came in as the engine stopped); else it ends.
   */
  private async carryOver(): Promise<void> {
    const { carryOver, sharedSessions, log } = this.options;
    const { callSid, resumeToken: token } = this;
    const again: [string, string][] | undefined = !token
      ? Object.entries(this.parameters)
      : sharedSessions
        ? [['resume', token]]
        : undefined;
    if (!carryOver || !callSid || !again || this.twilio.readyState !== WebSocket.OPEN)
      return this.hangUp();
    try {
      await carryOver(callSid, again);
      log(`Twilio call ${callSid} carried over: streamed again${token ? ' to its session' : ''}`);
    } catch (error) {
      log(`Twilio call ${callSid} not carried over, it ends: ${(error as Error).message}`);
    }
    this.close();
  }

  /** The last words are played: the call is handed over if the agent said so, then closed. */
  private async lastWords(): Promise<void> {
    clearTimeout(this.hangingUp);
    const to = this.transferTo;
    this.transferTo = undefined;
    if (to !== undefined && this.twilio.readyState === WebSocket.OPEN)
      try {
        await this.options.transfer(this.callSid, to, this.resumeToken);
        this.options.log(`Twilio call ${this.callSid} transferred`);
      } catch (error) {
        this.options.log(
          `Twilio call ${this.callSid} not transferred: ${(error as Error).message}`,
        );
      }
    this.close();
  }
}
