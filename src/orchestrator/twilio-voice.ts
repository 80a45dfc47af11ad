/**
 * The TwiML of calls: for a call coming in (`/twilio/voice`), the stream that joins it to
 * `/twilio` (the greeting, the call's numbers as the session's variables); for a transferred call
 * whose dial has ended, a hang-up when someone answered, else the stream back to its session; for
 * a call the engine places (`POST /api/calls`), the stream to the session made for it.
 * Pure: no Nest import.
 */

export interface CallStream {
  /** The stream's URL (`wss://…/twilio`). */
  url: string;
  /** WS_API_KEY's current key, which the stream must carry; '' for none. */
  token: string;
  /** The webhook's form parameters (Twilio's `From`, `To`, `DialCallStatus`, …). */
  call: Record<string, string>;
}

/**
 * A call's session variables, whichever way it goes: the user's number (`user_number`, for tools
 * that look the user up), the engine's (`agent_number`), and `call_direction`.
 */
function callVariables(
  direction: 'inbound' | 'outbound',
  user = '',
  agent = '',
): [string, string][] {
  return [
    ['user_number', user],
    ['agent_number', agent],
    ['call_direction', direction],
  ];
}

/** A dial's outcomes in which someone took the call: it ends with theirs. */
const ANSWERED = new Set(['completed', 'answered']);

/** Whether someone took a transferred call (its webhook's `DialCallStatus`). */
export function dialAnswered(call: Record<string, string>): boolean {
  return ANSWERED.has(call.DialCallStatus ?? '');
}

/** Twilio's helper, loaded at the first call: an engine that answers none does not hold it. */
async function voiceResponse() {
  const { default: VoiceResponse } = await import('twilio/lib/twiml/VoiceResponse.js');
  return new VoiceResponse();
}

/** `<Connect><Stream>` with the `parameters` not empty. */
async function streamTwiml(url: string, parameters: [string, string][]): Promise<string> {
  const response = await voiceResponse();
  const stream = response.connect().stream({ url });
  for (const [name, value] of parameters) if (value !== '') stream.parameter({ name, value });
  return response.toString();
}

/** What a call's agent says first, and whether the caller may cut it. */
export interface Greeting {
  greeting: string;
  interruptible: boolean;
}

/** The stream's parameters that say the greeting: `greeting_interruptible` only when false. */
function greetingParameters({ greeting, interruptible }: Greeting): [string, string][] {
  return [
    ['greeting', greeting],
    ['greeting_interruptible', greeting && !interruptible ? 'false' : ''],
  ];
}

/**
 * A call coming in: its stream, `greeting` said first; `agent`: the assistant the session begins
 * as (the webhook's `?agent=`), '' for the engine's own.
 */
export function answerCall(
  { url, token, call }: CallStream,
  greeting: Greeting,
  agent = '',
): Promise<string> {
  return streamTwiml(url, [
    ['token', token],
    ...greetingParameters(greeting),
    ['agent', agent],
    ...callVariables('inbound', call.From, call.To),
  ]);
}

/**
 * A transferred call's dial has ended (`DialCallStatus`): answered, the call ends with it;
 * otherwise (busy, no answer, failed) it streams back to the session of `resume`, which says so.
 */
export async function afterDial({ url, token, call }: CallStream, resume: string): Promise<string> {
  const status = call.DialCallStatus ?? '';
  if (dialAnswered(call)) {
    const response = await voiceResponse();
    response.hangup();
    return response.toString();
  }
  return streamTwiml(url, [
    ['token', token],
    ['resume', resume],
    ['transfer_status', status || 'unknown'],
  ]);
}

/**
 * A call carried over from an engine that stops: its stream again, with `parameters` (its
 * session's `resume`, or those it came with) and the current `token`.
 */
export function streamAgain(
  { url, token }: Omit<CallStream, 'call'>,
  parameters: [string, string][],
): Promise<string> {
  return streamTwiml(url, [['token', token], ...parameters.filter(([name]) => name !== 'token')]);
}

/**
 * A call the engine places (`POST /api/calls`): its stream, `greeting` said first once the call
 * is answered. The session it resumes (`resume`) holds the call's `variables` (placedVariables);
 * without one (no session store) they go as the stream's parameters.
 */
export function placedCall(
  { url, token }: Omit<CallStream, 'call'>,
  {
    variables,
    resume,
    ...greeting
  }: Greeting & { variables: Record<string, string>; resume?: string },
): Promise<string> {
  return streamTwiml(url, [
    ['token', token],
    ...greetingParameters(greeting),
    ...(resume ? [['resume', resume] as [string, string]] : Object.entries(variables)),
  ]);
}

/** The variables of a call the engine places, the client's beside the call's own. */
export function placedVariables(
  to: string,
  from: string,
  variables: Record<string, string>,
): Record<string, string> {
  return { ...Object.fromEntries(callVariables('outbound', to, from)), ...variables };
}

/** Who answered a placed call, as Twilio's answering-machine detection tells (`AnsweredBy`). */
export type MachineVerdict = 'human' | 'machine' | 'fax' | 'unknown';

/**
 * `AnsweredBy` read: `machine_end_beep`, `machine_end_silence`, `machine_end_other` (its greeting
 * over: a message can be left) and `machine_start` are a machine; `human`, `fax`; anything else
 * unknown (the agent goes on talking, as to a person).
 */
export function machineVerdict(answeredBy: string | undefined): MachineVerdict {
  if (answeredBy === 'human' || answeredBy === 'fax') return answeredBy;
  return answeredBy?.startsWith('machine_') ? 'machine' : 'unknown';
}

/**
 * The URL Twilio reaches the engine's `/twilio/voice` at: TWILIO_VOICE_URL, else that of
 * TWILIO_STREAM_URL's host (`wss://host/twilio` → `https://host/twilio/voice`).
 */
export function voiceUrlOf(twilio: { voiceUrl: string; streamUrl: string }): string {
  if (twilio.voiceUrl) return twilio.voiceUrl;
  const stream = new URL(twilio.streamUrl);
  stream.protocol = stream.protocol === 'ws:' ? 'http:' : 'https:';
  stream.pathname = stream.pathname.replace(/\/+$/, '') + '/voice';
  stream.search = '';
  return stream.toString();
}
