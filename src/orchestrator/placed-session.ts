/**
 * The session a call the agent places (`POST /api/calls`) begins with: kept in the session store
 * before the call rings, and resumed by the call's stream once it is answered, so that why the
 * agent calls (`instructions`), its language, time zone and voice, the assistant it begins as
 * (`agent`) and the call's variables are the session's from its first word, whichever process
 * or replica takes the stream (with Redis). Pure: no Nest import.
 */
import { machinePlan, type PlaceCallDto } from './dto/place-call.dto.js';
import { parseClientMessage, type SessionUpdateMessage } from './protocol/client-messages.js';
import { Session } from './session.js';
import { settingsChanges, type SettingsLimits } from './settings-update.js';

export interface SessionDefaults {
  language: string;
  vadSilenceMs: number;
  unfinishedWaitMs: number;
  idleSecs: number;
  timeZone: string;
}

/** The placed call's session, or why its settings cannot be taken (as `session.update` says). */
export function placedSession(
  call: PlaceCallDto,
  variables: Record<string, string>,
  defaults: SessionDefaults,
  limits: Pick<SettingsLimits, 'instructionsMaxChars' | 'maxSecs' | 'agents'>,
): Session | string {
  const update = parseClientMessage(
    JSON.stringify({
      type: 'session.update',
      modality: 'voice',
      channel: 'twilio',
      instructions: call.instructions,
      language: call.language,
      timezone: call.timezone,
      voice: call.voice,
      max_secs: call.max_secs,
      agent: call.agent,
      phrases: call.phrases,
      variables,
    }),
  );
  if ('error' in update) return update.error;
  const checked = settingsChanges(update.message as SessionUpdateMessage, {
    ...limits,
    toolNames: () => [],
    toolsOff: false,
    models: [],
  });
  if ('error' in checked) return checked.error;
  const { language, vadSilenceMs, idleSecs, timeZone, unfinishedWaitMs } = defaults;
  const session = new Session(language, vadSilenceMs, idleSecs, timeZone, unfinishedWaitMs);
  session.settings = { ...session.settings, ...checked.changes };
  if (checked.agent) session.agent = checked.agent;
  session.machine = machinePlan(call);
  session.placed = true;
  return session;
}
