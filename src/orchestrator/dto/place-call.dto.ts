import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsString, Matches, MaxLength } from 'class-validator';
import { Optional } from '../../common/optional-field.js';
import { dtoOf, firstViolation } from './dto-body.js';
import { DESTINATION_PATTERN } from '../../tools/definition-schema.js';
import { readVariables } from '../../tools/session-variables.js';

const E164 = /^\+[1-9][0-9]{1,14}$/;

/**
 * The names a call's stream takes itself (its own parameters, the call's variables): a client's
 * variable cannot stand for them.
 */
const RESERVED = new Set([
  'token',
  'greeting',
  'greeting_interruptible',
  'resume',
  'transfer_status',
  'user_number',
  'agent_number',
  'call_direction',
  'twilio_call_sid',
]);

/**
 * What a placed call does when an answering machine takes it: the message left after its beep
 * ('' for none: the call ends at once); undefined when no detection runs.
 */
export function machinePlan(call: PlaceCallDto): { voicemail: string } | undefined {
  if (call.voicemail !== undefined) return { voicemail: call.voicemail.trim() };
  return call.hang_up_on_machine ? { voicemail: '' } : undefined;
}

/** `POST /api/calls`: a call the agent places. */
export class PlaceCallDto {
  @ApiProperty({
    description: 'Who is called: a phone number in E.164 form, or a SIP address',
    example: '+15550123',
  })
  @IsString({ message: '"to" must be a string' })
  @Matches(new RegExp(DESTINATION_PATTERN), {
    message:
      '"to" must be a phone number in E.164 form ("+15550100") or a SIP address ("sip:desk@pbx.example.com")',
  })
  to!: string;

  @ApiPropertyOptional({
    description:
      "The number shown to who is called (one of the account's); default TWILIO_FROM_NUMBER",
    example: '+15550199',
  })
  @Optional()
  @IsString({ message: '"from" must be a string' })
  @Matches(E164, { message: '"from" must be a phone number in E.164 form ("+15550199")' })
  from?: string;

  @ApiPropertyOptional({
    description: 'What the agent says first once the call is answered (as `say` says it)',
    example: 'Hello, this is the clinic, calling about your appointment tomorrow.',
  })
  @Optional()
  @IsString({ message: '"greeting" must be a string' })
  @MaxLength(10_000, { message: '"greeting" is longer than 10000 characters' })
  greeting?: string;

  @ApiPropertyOptional({
    description:
      'false: the greeting is said whole, whatever the called person says or keys meanwhile (answered once it is over; `say` with "interruptible": false); default TWILIO_GREETING_INTERRUPTIBLE',
    example: false,
  })
  @Optional()
  @IsBoolean({ message: '"greeting_interruptible" must be true or false' })
  greeting_interruptible?: boolean;

  @ApiPropertyOptional({
    description:
      "The session's variables (`${session.NAME}` in tools), beside the call's own user_number, agent_number, call_direction and twilio_call_sid",
    example: { appointment_id: 'A-7' },
  })
  @Optional()
  variables?: Record<string, string>;

  @ApiPropertyOptional({
    description:
      "Why the agent calls, added to the system prompt (as a session's `instructions`; SESSION_INSTRUCTIONS_MAX_CHARS)",
    example: 'You are calling Ada Lovelace to confirm her dental appointment tomorrow at 3 pm.',
  })
  @Optional()
  instructions?: string;

  @ApiPropertyOptional({
    description: "The session's language (as `session.update`'s)",
    example: 'es',
  })
  @Optional()
  language?: string;

  @ApiPropertyOptional({
    description:
      "The callee's time zone, an IANA name (as `session.update`'s `timezone`; default SESSION_TIMEZONE)",
    example: 'Europe/Madrid',
  })
  @Optional()
  timezone?: string;

  @ApiPropertyOptional({
    description: "The session's voice (as `session.update`'s)",
    example: 'alloy',
  })
  @Optional()
  voice?: string;

  @ApiPropertyOptional({
    description:
      "How long the call may last once answered, in seconds (as `session.update`'s `max_secs`; at most SESSION_MAX_SECS): then the agent says SESSION_MAX_GOODBYE and hangs up",
    example: 600,
  })
  @Optional()
  max_secs?: number;

  @ApiPropertyOptional({
    description:
      "The assistant the call begins with (as `session.update`'s `agent`: a handoff tool's assistant, by its name or the tool's): its instructions, after the call's own, its tools, voice and language. Needs the session store (SESSION_RESUME_SECS above 0)",
    example: 'reminders',
  })
  @Optional()
  agent?: string;

  @ApiPropertyOptional({
    description:
      "What the agent says itself on this call (its wait phrase, its idle prompt…) instead of the engine's settings, by name, as `session.update`'s `phrases`: each a phrase, a list said in turn, or an object of language codes and either",
    type: 'object',
    additionalProperties: true,
    example: { wait: ['Let me check the calendar.', 'One moment, please.'] },
  })
  @Optional()
  phrases?: Record<string, unknown>;

  @ApiPropertyOptional({
    description:
      "The message left when an answering machine takes the call: said once its greeting's beep is over (Twilio's answering-machine detection, DetectMessageEnd, asynchronous: the call is greeted at once as ever), and then the call ends. A fax machine is hung up on. Needs the session store (SESSION_RESUME_SECS above 0)",
    example:
      'Hello, this is the clinic calling about your appointment tomorrow at 3 pm. Please call us back at 555 0100.',
  })
  @Optional()
  @IsString({ message: '"voicemail" must be a string' })
  @Matches(/\S/, { message: '"voicemail" is empty: leave it out, or set "hang_up_on_machine"' })
  @MaxLength(2000, { message: '"voicemail" is longer than 2000 characters' })
  voicemail?: string;

  @ApiPropertyOptional({
    description:
      'true: when an answering machine (or a fax) takes the call, it ends at once with no message (answering-machine detection, as for `voicemail`)',
    example: false,
  })
  @Optional()
  @IsBoolean({ message: '"hang_up_on_machine" must be true or false' })
  hang_up_on_machine?: boolean;

  @ApiPropertyOptional({
    description:
      "Where Twilio posts the call's final status (its StatusCallback: CallStatus completed, busy, no-answer, failed or canceled, with CallDuration, and AnsweredBy when a machine was looked for), signed with the account's Auth Token: how the system that asked for the call learns that it was never answered",
    example: 'https://crm.example.com/twilio/call-status',
  })
  @Optional()
  @IsString({ message: '"status_callback" must be a string' })
  @Matches(/^https?:\/\/[^\s/?#]+[^\s]*$/i, {
    message: '"status_callback" must be an absolute http:// or https:// URL',
  })
  @MaxLength(2000, { message: '"status_callback" is longer than 2000 characters' })
  status_callback?: string;
}

export class PlacedCallDto {
  @ApiProperty({ example: true })
  ok!: true;
  @ApiProperty({
    description: "Twilio's id of the call",
    example: 'CA0123456789abcdef0123456789abcdef',
  })
  call_sid!: string;
  @ApiProperty({ example: '+15550123' })
  to!: string;
  @ApiProperty({ example: '+15550199' })
  from!: string;
}

const FIELDS = new Set([
  'to',
  'from',
  'greeting',
  'greeting_interruptible',
  'variables',
  'instructions',
  'language',
  'timezone',
  'voice',
  'max_secs',
  'agent',
  'phrases',
  'voicemail',
  'hang_up_on_machine',
  'status_callback',
]);

/** The call `body` asks for, or why it is none. */
export function readPlaceCall(body: unknown): PlaceCallDto | string {
  const call = dtoOf(
    PlaceCallDto,
    FIELDS,
    body,
    'a call: {"to": "+15550123", "greeting": "…", "variables": {…}}',
  );
  if (typeof call === 'string') return call;
  if (call.to === undefined) return '"to" is required: who is called';
  const failed = firstViolation(call);
  if (failed) return failed;
  if (call.voicemail !== undefined && call.hang_up_on_machine === true)
    return '"voicemail" and "hang_up_on_machine" go against each other: a machine gets the message, or the call ends';
  const { variables } = call;
  if (variables !== undefined) {
    if (typeof variables !== 'object' || variables === null || Array.isArray(variables))
      return '"variables" must be an object of names and string values';
    const read = readVariables(variables);
    if (typeof read === 'string') return read;
    const reserved = Object.keys(read).find((name) => RESERVED.has(name));
    if (reserved !== undefined)
      return `variable ${JSON.stringify(reserved)} is the call's own: choose another name`;
  }
  return call;
}
