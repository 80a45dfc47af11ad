/**
 * A resumed session's saved settings as this engine takes them now. The record may be older than
 * the engine's configuration: a model since taken out of LLM_MODELS would fail every turn, a
 * `max_secs` over a since-lowered SESSION_MAX_SECS would outlast it. Pure: no Nest import.
 */
import type { SessionUpdateMessage } from './protocol/client-messages.js';
import type { SessionSettings } from './protocol/server-events.js';
import { settingsChanges, type SettingsLimits } from './settings-update.js';

/** The settings `session.update` checks against the engine's configuration. */
const CHECKED = [
  'instructions',
  'model',
  'max_secs',
  'tools',
  'client_tools',
  'tool_mocks',
] as const;

/**
 * `saved` with each setting a `session.update` of it alone would be refused now put back to the
 * session's default (`defaults`), and `tools` without the names of tools no longer active (the
 * session keeps to the others); `dropped` says what changed and why, for the log.
 */
export function settingsKept(
  saved: SessionSettings,
  defaults: SessionSettings,
  limits: SettingsLimits,
): { settings: SessionSettings; dropped: string[] } {
  const settings = { ...saved };
  const dropped: string[] = [];
  if (settings.tools) {
    const known = limits.toolNames();
    const gone = settings.tools.filter((name) => !known.includes(name));
    if (gone.length > 0) {
      settings.tools = settings.tools.filter((name) => known.includes(name));
      dropped.push(`tools ${gone.join(', ')}: no longer active`);
    }
  }
  for (const key of CHECKED) {
    if (settings[key] === defaults[key]) continue;
    const update = { type: 'session.update', [key]: settings[key] } as SessionUpdateMessage;
    const checked = settingsChanges(update, limits);
    if (!('error' in checked)) continue;
    (settings as Record<string, unknown>)[key] = defaults[key];
    dropped.push(`${key}: ${checked.error}`);
  }
  return { settings, dropped };
}
