/**
 * What Twilio's Media Streams send to `/twilio` (its frames), as the bridge reads them, and the
 * stream's parameters the bridge takes itself. Pure: no Nest import.
 */

/**
 * The stream's `<Parameter>`s the bridge takes itself; the others are the session's variables,
 * with the call's `twilio_call_sid`.
 */
export const OWN_PARAMETERS = new Set([
  'token',
  'agent',
  'greeting',
  'greeting_interruptible',
  'resume',
  'transfer_status',
]);

/** A frame of Twilio's, each field as it may come (checked where it is read). */
export interface TwilioMessage {
  event?: unknown;
  start?: { streamSid?: string; callSid?: string; customParameters?: Record<string, unknown> };
  media?: { track?: unknown; payload?: unknown };
  dtmf?: { digit?: unknown };
  mark?: { name?: unknown };
}
