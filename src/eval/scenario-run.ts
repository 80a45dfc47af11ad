/**
 * One run of a scenario: a conversation held with a running engine over `/ws`, as any client holds
 * it, each turn judged as it ends. Pure: no Nest import.
 */
import WebSocket from 'ws';
import { judgeTurn, type ObservedCall, type TurnObservation } from './judge.js';
import type { Scenario, ScenarioTurn } from './scenario-file.js';

export interface RunOptions {
  /** `ws://host:8787/ws`. */
  url: string;
  /** WS_API_KEY, sent as `Authorization: Bearer`. */
  key?: string;
  /** How long a turn (or the connection) may take before the run fails. */
  turnTimeoutMs: number;
}

export interface TurnResult extends TurnObservation {
  user: string;
  failures: string[];
}

export interface RunResult {
  passed: boolean;
  /** Why the run could not be held (the connection, `session.update`), if so. */
  failure?: string;
  turns: TurnResult[];
}

/** The fields of the engine's messages that a run reads (see asyncapi.json for all of them). */
interface Message {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  arguments?: Record<string, unknown>;
  code?: string;
  message?: string;
  model_error?: string;
}

/** A connection's messages, read one after another. */
class Inbox {
  private readonly queue: Message[] = [];
  private waiter: ((m: Message | undefined) => void) | undefined;
  closed: string | undefined;

  constructor(socket: WebSocket) {
    socket.on('message', (data, binary) => {
      if (binary) return; // speech, in a voice session
      let message: Message;
      try {
        message = JSON.parse((data as Buffer).toString('utf8')) as Message;
      } catch {
        return;
      }
      this.queue.push(message);
      this.wake();
    });
    // An error (a reset) is followed by `close`, which says it: not thrown as an unhandled event.
    socket.on('error', () => undefined);
    socket.on('close', (code, reason) => {
      this.closed = `the engine closed the connection (${code}${reason.length ? ` ${reason.toString()}` : ''})`;
      this.wake();
    });
  }

  private wake() {
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.(this.queue.shift());
  }

  /** The next message, or undefined once `deadline` has passed or the connection closed. */
  next(deadline: number): Promise<Message | undefined> {
    if (this.queue.length > 0) return Promise.resolve(this.queue.shift());
    if (this.closed) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const timer = setTimeout(
        () => ((this.waiter = undefined), resolve(undefined)),
        deadline - Date.now(),
      );
      this.waiter = (m) => (clearTimeout(timer), resolve(m));
    });
  }
}

/** The connection, read from its start (its first frame may come with the upgrade's answer). */
function open(options: RunOptions): Promise<{ socket: WebSocket; inbox: Inbox }> {
  const headers = options.key ? { Authorization: `Bearer ${options.key}` } : undefined;
  const socket = new WebSocket(options.url, { headers, handshakeTimeout: options.turnTimeoutMs });
  const inbox = new Inbox(socket);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve({ socket, inbox }));
    socket.once('unexpected-response', (req, res) => {
      // Listened to, the refused upgrade is ws' to end no more: its request is let go here.
      req.destroy();
      reject(new Error(`the upgrade was refused: HTTP ${res.statusCode}`));
    });
    socket.once('error', reject);
  });
}

/** Holds one turn: sends the user's text, answers what the turn asks of the client, observes it. */
async function holdTurn(
  socket: WebSocket,
  inbox: Inbox,
  turn: ScenarioTurn,
  timeoutMs: number,
): Promise<TurnObservation> {
  const send = (message: object) => socket.send(JSON.stringify(message));
  const answers = [...(turn.answers ?? [])];
  const calls: ObservedCall[] = [];
  const modelErrors: TurnObservation['modelErrors'] = [];
  let error: TurnObservation['error'];
  let firstTextMs: number | undefined;
  const started = performance.now();
  const deadline = Date.now() + timeoutMs;
  send(
    turn.note === undefined
      ? { type: 'user_text', text: turn.user }
      : { type: 'note', text: turn.note, respond: turn.respond === true },
  );
  for (;;) {
    const m = await inbox.next(deadline);
    const ms = performance.now() - started;
    if (!m)
      return {
        text: '',
        calls,
        modelErrors,
        error,
        firstTextMs,
        totalMs: ms,
        ...(inbox.closed ? { closed: inbox.closed } : { timedOut: true }),
      };
    switch (m.type) {
      case 'assistant_delta':
        firstTextMs ??= ms;
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
        break;
    }
    if (m.type === 'assistant_end')
      return { text: m.text ?? '', calls, modelErrors, error, firstTextMs, totalMs: ms };
  }
}

/** Holds the scenario's conversation once; each turn judged, the run failing at its first failure. */
export async function runScenario(scenario: Scenario, options: RunOptions): Promise<RunResult> {
  let socket: WebSocket;
  let inbox: Inbox;
  try {
    ({ socket, inbox } = await open(options));
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
    if (scenario.session) {
      socket.send(JSON.stringify({ type: 'session.update', ...scenario.session }));
      const answer = await inbox.next(deadline);
      if (answer?.type !== 'session.updated')
        return {
          passed: false,
          failure: `session.update refused: ${answer?.type === 'error' ? answer.message : (inbox.closed ?? 'no answer')}`,
          turns,
        };
    }
    for (const turn of scenario.turns) {
      const user = turn.user ?? `(note) ${turn.note}`;
      if (turn.note !== undefined && !turn.respond) {
        // Read with the next turn: nothing comes back for it.
        socket.send(JSON.stringify({ type: 'note', text: turn.note, respond: false }));
        turns.push({ user, text: '', calls: [], modelErrors: [], totalMs: 0, failures: [] });
        continue;
      }
      const seen = await holdTurn(socket, inbox, turn, options.turnTimeoutMs);
      const failures = judgeTurn(seen, turn.expect);
      turns.push({ user, ...seen, failures });
      if (failures.length > 0) return { passed: false, turns };
      if (inbox.closed) break;
    }
    return inbox.closed && turns.length < scenario.turns.length
      ? { passed: false, failure: inbox.closed, turns }
      : { passed: true, turns };
  } finally {
    socket.close();
  }
}
