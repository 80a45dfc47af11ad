/**
 * `/twilio/voice`'s answer to a call coming in: TwiML that connects the call to `/twilio`, with
 * the greeting and the caller's and called numbers as the stream's parameters (the session's
 * variables). Pure: no Nest import.
 */

export interface CallStream {
  /** The stream's URL (`wss://…/twilio`). */
  url: string;
  /** WS_API_KEY's current key, which the stream must carry; '' for none. */
  token: string;
  /** Said first; '' for nothing. */
  greeting: string;
  /** The webhook's form parameters (Twilio's `From`, `To`, …). */
  call: Record<string, string>;
}

/**
 * The call's parameters that become session variables, by Twilio's name: the number that calls
 * (`caller`) and the one called (`called`), for tools that look the caller up.
 */
const CALL_VARIABLES: Record<string, string> = { From: 'caller', To: 'called' };

/** The TwiML, built by Twilio's helper (loaded at the first call: an engine that answers none does not hold it). */
export async function callTwiml({ url, token, greeting, call }: CallStream): Promise<string> {
  const { default: VoiceResponse } = await import('twilio/lib/twiml/VoiceResponse.js');
  const response = new VoiceResponse();
  const stream = response.connect().stream({ url });
  const parameters: [string, string][] = [
    ['token', token],
    ['greeting', greeting],
    ...Object.entries(CALL_VARIABLES).map(([from, name]): [string, string] => [
      name,
      call[from] ?? '',
    ]),
  ];
  for (const [name, value] of parameters) if (value !== '') stream.parameter({ name, value });
  return response.toString();
}
