/**
 * One run of a scenario: a conversation held with a running engine over `/ws`, as any client holds
 * it, each turn judged as it ends. Pure: no Nest import.
 */
import type WebSocket from 'ws';
import { judgeTurn, type ObservedCall, type TurnObservation } from './judge.js';
import type { Scenario, ScenarioTurn } from './scenario-file.js';
import { openSocket, type Inbox, type Message, type SessionSettings } from './engine-socket.js';
import { FRAME_BYTES } from './turn-audio.js';

export interface RunOptions {
  /** `ws://host:8787/ws`. */
  url: string;
  /** WS_API_KEY, sent as `Authorization: Bearer`. */
  key?: string;
  /** How long a turn (or the connection) may take before the run fails. */
  turnTimeoutMs: number;
}

export interface TurnResult extends TurnObservation {
  /** What the turn gave: the user's text, `(audio) path`, `(say) text`, `(note) text`. */
  user: string;
  failures: string[];
}

export interface RunResult {
  passed: boolean;
  /** Why the run could not be held (the connection, `session.update`), if so. */
  failure?: string;
  turns: TurnResult[];
}

/** What the session does with speech, as its settings say (`session`, `session.updated`). */
interface Voice {
  /** Its answers are spoken: a turn is over once its `audio_end` came too. */
  speaks: boolean;
  /** The engine ends an utterance after this much silence (0: the client's `audio_end` does). */
  vadMs: number;
}

function voiceOf(m: Message, before: Voice): Voice {
  const settings: SessionSettings = m.settings ?? {};
  return {
    speaks: settings.modality === 'voice' && settings.tts !== false && m.audio_format !== null,
    vadMs: settings.vad_silence_ms ?? before.vadMs,
  };
}

/** Errors of an utterance the engine could not hear: no turn starts. */
const UNHEARD = new Set(['invalid_audio', 'stt_unavailable', 'stt_failed', 'no_speech']);

/** Gives the engine the turn: the user's words, speech, the agent's own words, a note. */
function giveTurn(socket: WebSocket, turn: ScenarioTurn, voice: Voice, pcm?: Buffer): void {
  const send = (message: object) => socket.send(JSON.stringify(message));
  if (turn.user !== undefined) return send({ type: 'user_text', text: turn.user });
  if (turn.say !== undefined) return send({ type: 'say', text: turn.say });
  if (turn.note !== undefined) return send({ type: 'note', text: turn.note, respond: true });
  // Speech, in frames of 100 ms as fast as the socket takes them; then its end: the client's
  // `audio_end`, or, where the engine listens for the silence after it, that silence.
  const audio = voice.vadMs > 0 ? Buffer.concat([pcm!, silence(voice.vadMs + 300)]) : pcm!;
  for (let at = 0; at < audio.length; at += FRAME_BYTES)
    socket.send(audio.subarray(at, at + FRAME_BYTES), { binary: true });
  if (voice.vadMs === 0) send({ type: 'audio_end' });
}

const silence = (ms: number) => Buffer.alloc(Math.ceil(ms / 100) * FRAME_BYTES);

/** Holds one turn: gives it, answers what the turn asks of the client, observes it. */
async function holdTurn(
  socket: WebSocket,
  inbox: Inbox,
  turn: ScenarioTurn,
  session: { voice: Voice; timeoutMs: number },
  pcm: Buffer | undefined,
): Promise<TurnObservation> {
  const send = (message: object) => socket.send(JSON.stringify(message));
  const answers = [...(turn.answers ?? [])];
  const calls: ObservedCall[] = [];
  const modelErrors: TurnObservation['modelErrors'] = [];
  const heard: string[] = [];
  let error: TurnObservation['error'];
  let firstTextMs: number | undefined;
  let firstAudioMs: number | undefined;
  let ended: { text: string; ms: number } | undefined;
  let timings: Record<string, unknown> | undefined;
  giveTurn(socket, turn, session.voice, pcm);
  // Timed from the turn given whole (for speech, its end): when a caller waits for the answer.
  const started = performance.now();
  const deadline = Date.now() + session.timeoutMs;
  const seen = (ms: number): TurnObservation => ({
    text: ended?.text ?? '',
    calls,
    modelErrors,
    error,
    firstTextMs,
    ...(firstAudioMs !== undefined && { firstAudioMs }),
    ...(turn.audio !== undefined && heard.length > 0 && { transcript: heard.join(' ') }),
    ...(timings && { timings }),
    totalMs: ended?.ms ?? ms,
  });
  for (;;) {
    const m = await inbox.next(deadline);
    const ms = performance.now() - started;
    if (!m)
      return {
        ...seen(ms),
        ...(inbox.closed
          ? { closed: inbox.closed }
          : { timedOut: true, awaited: ended ? 'audio_end' : 'assistant_end' }),
      };
    switch (m.type) {
      case 'assistant_delta':
        firstTextMs ??= ms;
        break;
      case 'audio':
        firstAudioMs ??= ms;
        break;
      case 'transcript':
        // An utterance of no words is told as '', then as `no_speech`.
        if (m.text) heard.push(m.text);
        break;
      case 'session.updated':
        // The language the user spoke in (STT_DETECT_LANGUAGE) changes the settings.
        session.voice = voiceOf(m, session.voice);
        break;
      case 'tool_call':
        calls.push({ name: m.name ?? '', arguments: m.arguments ?? {} });
        break;
      case 'client_tool_call': {
        const name = m.name ?? '';
        calls.push({ name, arguments: m.arguments ?? {} });
        const results = turn.client_results ?? {};
        send(
          Object.hasOwn(results, name)
            ? { type: 'client_tool_result', id: m.id, result: results[name] }
            : {
                type: 'client_tool_result',
                id: m.id,
                error: `the scenario gives no result for ${name}`,
              },
        );
        break;
      }
      case 'tool_result':
        if (m.model_error) modelErrors.push({ name: m.name ?? '', kind: m.model_error });
        break;
      case 'tool_confirm':
        send({ type: 'tool_confirm', id: m.id, approved: turn.approve ?? true });
        break;
      case 'tool_question':
        send({ type: 'tool_answer', id: m.id, value: answers.length > 0 ? answers.shift() : null });
        break;
      case 'error':
        error = { code: m.code ?? '', message: m.message ?? '' };
        // Speech the engine could not hear starts no turn: nothing more comes for it.
        if (turn.audio !== undefined && heard.length === 0 && UNHEARD.has(error.code))
          return { ...seen(ms), unheard: true };
        break;
      case 'assistant_end':
        ended = { text: m.text ?? '', ms };
        timings = m.timings;
        break;
    }
    // A spoken answer is over once its speech is: the next turn would otherwise cut it.
    if (ended && (m.type === 'audio_end' || (m.type === 'assistant_end' && !session.voice.speaks)))
      return seen(ms);
  }
}

/** What the report calls a turn. */
function turnLabel(turn: ScenarioTurn): string {
  if (turn.user !== undefined) return turn.user;
  if (turn.audio !== undefined) return `(audio) ${turn.audio}`;
  if (turn.say !== undefined) return `(say) ${turn.say}`;
  return `(note) ${turn.note}`;
}

/** Holds the scenario's conversation once; each turn judged, the run failing at its first failure. */
export async function runScenario(
  scenario: Scenario,
  options: RunOptions,
  audio: ReadonlyMap<ScenarioTurn, Buffer> = new Map(),
): Promise<RunResult> {
  let socket: WebSocket;
  let inbox: Inbox;
  try {
    ({ socket, inbox } = await openSocket({ ...options, timeoutMs: options.turnTimeoutMs }));
  } catch (error) {
    return {
      passed: false,
      failure: `cannot connect to ${options.url}: ${(error as Error).message}`,
      turns: [],
    };
  }
  const turns: TurnResult[] = [];
  try {
    const deadline = Date.now() + options.turnTimeoutMs;
    const first = await inbox.next(deadline);
    if (first?.type !== 'session')
      return { passed: false, failure: inbox.closed ?? 'no session event from the engine', turns };
    const session = {
      voice: voiceOf(first, { speaks: false, vadMs: 0 }),
      timeoutMs: options.turnTimeoutMs,
    };
    // Each turn's `timings` asked for too (its requests to the model, where its time went).
    socket.send(JSON.stringify({ type: 'session.update', timings: true, ...scenario.session }));
    const answer = await inbox.next(deadline);
    if (answer?.type !== 'session.updated')
      return {
        passed: false,
        failure: `session.update refused: ${answer?.type === 'error' ? answer.message : (inbox.closed ?? 'no answer')}`,
        turns,
      };
    session.voice = voiceOf(answer, session.voice);
    for (const turn of scenario.turns) {
      const user = turnLabel(turn);
      if (turn.note !== undefined && !turn.respond) {
        // Read with the next turn: nothing comes back for it.
        socket.send(JSON.stringify({ type: 'note', text: turn.note, respond: false }));
        turns.push({ user, text: '', calls: [], modelErrors: [], totalMs: 0, failures: [] });
        continue;
      }
      const seen = await holdTurn(socket, inbox, turn, session, audio.get(turn));
      const failures = judgeTurn(seen, turn.expect);
      turns.push({ user, ...seen, failures });
      if (failures.length > 0) return { passed: false, turns };
      if (inbox.closed) break;
      // Speech unheard (as expected): the apology a voice session says for it is let pass.
      if (seen.unheard) await inbox.settle(1000, Date.now() + options.turnTimeoutMs);
    }
    return inbox.closed && turns.length < scenario.turns.length
      ? { passed: false, failure: inbox.closed, turns }
      : { passed: true, turns };
  } finally {
    socket.close();
  }
}
