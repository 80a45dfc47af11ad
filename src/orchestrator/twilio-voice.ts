/**
 * `/twilio/voice`'s TwiML: for a call coming in, the stream that joins it to `/twilio` (the
 * greeting, the caller's and called numbers as the session's variables); for a transferred call
 * whose dial has ended, a hang-up when someone answered, else the stream back to its session.
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
 * The call's parameters that become session variables, by Twilio's name: the number that calls
 * (`caller`) and the one called (`called`), for tools that look the caller up.
 */
const CALL_VARIABLES: Record<string, string> = { From: 'caller', To: 'called' };

/** A dial's outcomes in which someone took the call: it ends with theirs. */
const ANSWERED = new Set(['completed', 'answered']);

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

/** A call coming in: its stream, `greeting` said first. */
export function answerCall({ url, token, call }: CallStream, greeting: string): Promise<string> {
  return streamTwiml(url, [
    ['token', token],
    ['greeting', greeting],
    ...Object.entries(CALL_VARIABLES).map(([from, name]): [string, string] => [
      name,
      call[from] ?? '',
    ]),
  ]);
}

/**
 * A transferred call's dial has ended (`DialCallStatus`): answered, the call ends with it;
 * otherwise (busy, no answer, failed) it streams back to the session of `resume`, which says so.
 */
export async function afterDial({ url, token, call }: CallStream, resume: string): Promise<string> {
  const status = call.DialCallStatus ?? '';
  if (ANSWERED.has(status)) {
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
