import fc from 'fast-check';

/**
 * Random conversations for the turn loop: what the LLM answers to each request, and what the
 * client does meanwhile. The invariants (chaos-checks.ts) must hold whatever the interleaving;
 * the answers become the fake LLM's scripts in chaos-scripts.ts.
 */

/**
 * Tools of the chaos rig: HTTP tools that answer fast, slowly, with 404, from a dead port, or
 * drop the connection halfway through the body, or need the user's approval; a tool of an MCP
 * server that answers in 40 ms (or when the call is cancelled); one behind OAuth 2.0 (tokens that
 * live a second, one in three refused, so renewals meet cut turns); Python
 * tools that keep a count in the session state, and call an HTTP tool or spin a while; and a
 * name that is not installed.
 */
export const CHAOS_TOOLS = [
  'get_weather',
  'slow_weather',
  'missing',
  'down',
  'flaky_weather',
  'danger_weather',
  'mcp_weather',
  'secured_weather',
  'py_weather',
  'py_slow',
  'not_a_tool',
];

/** A tool the client runs itself, once declared (`client_tools`); an unknown tool before. */
export const CLIENT_TOOL = {
  name: 'open_map',
  description: 'Shows a city on the map in the app',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  timeout_secs: 0.3,
};

/** The Python tools of CHAOS_TOOLS. */
export const CHAOS_CODE_TOOLS = [
  `def py_weather(city: str) -> str:
    """Weather, through the HTTP tool."""
    context.state["calls"] = context.state.get("calls", 0) + 1
    return tools.get_weather({"city": city})`,
  `def py_slow(city: str) -> int:
    """Counts for a while."""
    import time
    context.state["calls"] = context.state.get("calls", 0) + 1
    end = time.time() + 0.15
    while time.time() < end:
        pass
    return context.state["calls"]`,
].map((code) => ({ type: 'python', code }));

export type Answer =
  | { kind: 'text'; words: string[]; delayMs: number }
  | { kind: 'xml'; before: string; calls: [string, string][]; size: number; after: string }
  | { kind: 'hermes'; name: string; city: string; form: 'block' | 'bare' | 'harmony' }
  /** `numbered`: ids restart at `call_0` in every response, as some servers number them. */
  | { kind: 'structured'; calls: [string, string][]; numbered: boolean; thought: string }
  /** A structured call whose arguments the token limit cut (`finish_reason: "length"`). */
  | { kind: 'cut_call'; call: [string, string] }
  | { kind: 'stream_error'; words: string[] }
  | { kind: 'status'; status: 400 | 500 }
  | { kind: 'cut'; words: string[] }
  | { kind: 'empty' }
  | { kind: 'reply'; text: string; call?: [string, string] };

export type Action =
  | { kind: 'text'; text: string }
  | { kind: 'interrupt' }
  | { kind: 'ping' }
  | { kind: 'garbage'; frame: string }
  | { kind: 'update'; instructions: string }
  | { kind: 'wait'; ms: number }
  | { kind: 'settle' }
  /** Resumes the session on a new connection, the old one closed first or taken over. */
  | { kind: 'reconnect'; takeover: boolean }
  /** Turns speech on or off (session.update modality). */
  | { kind: 'voice'; on: boolean }
  /** A piece of the user's speech: a barge-in while the agent thinks or speaks. */
  | { kind: 'audio' }
  /** An admin installs the tool set (all of it, or without the slow tools) over /api/tools. */
  | { kind: 'install'; all: boolean }
  /** The user's answer for the oldest call awaiting approval on this connection, if any. */
  | { kind: 'answer'; approved: boolean }
  /** A spoken utterance and its end: the speech-to-text server hears words, nothing, or fails. */
  | { kind: 'utterance'; stt: SttOutcome }
  /** Declares CLIENT_TOOL, or no client tool (session.update client_tools). */
  | { kind: 'declare'; on: boolean }
  /** The client's result (or error) for the oldest call of its tool on this connection, if any. */
  | { kind: 'run'; ok: boolean }
  /** The agent says a notice (`say`), one the user may not cut (`firm`) or not. */
  | { kind: 'say'; firm: boolean };

export type SttOutcome = 'words' | 'yes' | 'silence' | 'failure';
/** The utterance's samples tell the fake speech-to-text server what to answer. */
export const STT_MARKERS: Record<SttOutcome, number> = { words: 1, silence: 2, failure: 3, yes: 4 };

const word = fc.constantFrom(
  'Hello',
  ' there',
  '.',
  ' The weather',
  ' is fine',
  '!',
  ' 2 < 3',
  ' <',
  'b>',
  ' <tool',
  '\n\n',
  ' ',
  ' città',
  ' 👋',
);
const words = fc.array(word, { maxLength: 8 });
const city = fc.constantFrom('Paris', 'Roma', 'São Paulo', 'a/b', '東京');
const call = fc.tuple(fc.constantFrom(...CHAOS_TOOLS, CLIENT_TOOL.name), city);

export const answer: fc.Arbitrary<Answer> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      words,
      delayMs: fc.constantFrom(0, 2, 15),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('xml' as const),
      before: fc.constantFrom('', 'Let me check. ', 'Sure<'),
      calls: fc.array(call, { minLength: 1, maxLength: 2 }),
      size: fc.integer({ min: 1, max: 9 }),
      after: fc.constantFrom('', 'Done.', '\n'),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('hermes' as const),
      name: fc.constantFrom(...CHAOS_TOOLS, CLIENT_TOOL.name),
      city,
      // In a Hermes block, bare JSON after prose (Llama 3 before a server without its parser),
      // or gpt-oss's Harmony message (a server without its parser).
      form: fc.constantFrom('block' as const, 'bare' as const, 'harmony' as const),
    }),
  },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant('structured' as const),
      calls: fc.array(call, { minLength: 1, maxLength: 3 }),
      numbered: fc.boolean(),
      // The reasoning a thinking model writes before its calls (sent back, LLM_KEEP_REASONING).
      thought: fc.constantFrom('', 'The user wants the weather. ', 'I should check both. '),
    }),
  },
  {
    // An answer that ends on a promise, or claims a thing done, and no call: asked once more
    // (LLM_TOOL_NUDGE).
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      words: fc
        .tuple(words, fc.constantFrom(' Let me check that.', " I've booked it for you."))
        .map(([w, end]) => [...w, end]),
      delayMs: fc.constant(0),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut_call' as const), call }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('stream_error' as const), words }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('status' as const),
      status: fc.constantFrom(400 as const, 500 as const),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cut' as const), words }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('empty' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record(
      {
        kind: fc.constant('reply' as const),
        text: fc.constantFrom('', 'Fine.', 'It is 21°C.'),
        call,
      },
      { requiredKeys: ['kind', 'text'] },
    ),
  },
);

const GARBAGE = [
  '{',
  '[]',
  'null',
  '{"type":"nope"}',
  '{"type":"user_text"}',
  '{"type":"user_text","text":""}',
  '{"type":"user_text","text":5}',
];

export const action: fc.Arbitrary<Action> = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record({
      kind: fc.constant('text' as const),
      // A plain yes or no answers calls awaiting approval (TOOL_CONFIRM_YES/NO), else is a turn.
      text: fc.constantFrom(
        'hi',
        'weather in Paris?',
        'and Rome',
        'stop',
        'yes please',
        'no thanks',
      ),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('interrupt' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('ping' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('garbage' as const),
      frame: fc.constantFrom(...GARBAGE),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('update' as const),
      instructions: fc.constantFrom('', 'The caller is Ada.'),
    }),
  },
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('wait' as const),
      ms: fc.integer({ min: 0, max: 40 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const) }) },
  {
    weight: 1,
    arbitrary: fc.record({ kind: fc.constant('reconnect' as const), takeover: fc.boolean() }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('voice' as const), on: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('audio' as const) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('install' as const), all: fc.boolean() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('answer' as const), approved: fc.boolean() }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('utterance' as const),
      stt: fc.constantFrom<SttOutcome>('words', 'yes', 'silence', 'failure'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('declare' as const), on: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('run' as const), ok: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('say' as const), firm: fc.boolean() }) },
);
