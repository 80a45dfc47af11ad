import { PlaceCallDto } from './dto/place-call.dto.js';
import { placedSession } from './placed-session.js';

const call = (fields: Partial<PlaceCallDto>) =>
  Object.assign(new PlaceCallDto(), { to: '+15550123', ...fields });
const REMINDERS = { via: 'to_reminders', name: 'reminders', instructions: 'Reminders only.' };
const agents = () => [REMINDERS];
const defaults = {
  language: 'en',
  vadSilenceMs: 700,
  unfinishedWaitMs: 1500,
  idleSecs: 20,
  timeZone: 'Europe/London',
};

describe('placedSession', () => {
  it("is a voice session on the phone with the call's settings and variables, the rest as any session's", () => {
    const session = placedSession(
      call({
        instructions: 'Confirm appointment A-7.',
        language: 'es',
        timezone: 'Europe/Madrid',
        voice: 'alloy',
        max_secs: 600,
        agent: 'to_reminders',
        phrases: { wait: ['Let me check the calendar.', 'One moment.'] },
      }),
      { user_number: '+15550123', appointment_id: 'A-7' },
      defaults,
      { instructionsMaxChars: 4000, maxSecs: 0, agents },
    );
    if (typeof session === 'string') throw new Error(session);
    expect(session.settings).toMatchObject({
      modality: 'voice',
      channel: 'twilio',
      instructions: 'Confirm appointment A-7.',
      language: 'es',
      timezone: 'Europe/Madrid',
      voice: 'alloy',
      max_secs: 600,
      variables: { user_number: '+15550123', appointment_id: 'A-7' },
      vad_silence_ms: 700,
      vad_unfinished_wait_ms: 1500,
      idle_secs: 20,
      phrases: { wait: { '*': ['Let me check the calendar.', 'One moment.'] } },
    });
    expect(session.agent).toEqual(REMINDERS);
    expect(session.history).toEqual([]);
    expect(session.resumeToken).toMatch(/^[\w-]{32}$/);
  });

  it('refuses what a session.update would, saying why', () => {
    const refused = (fields: Partial<PlaceCallDto>, max = 4000) =>
      placedSession(call(fields), {}, defaults, {
        instructionsMaxChars: max,
        maxSecs: 300,
        agents,
      });
    expect(refused({ language: 'Spanish' })).toBe(
      '"language" must be a language code such as en, it, es',
    );
    expect(refused({ instructions: 'Be brief.' }, 0)).toBe(
      'this engine takes no session instructions (SESSION_INSTRUCTIONS_MAX_CHARS=0)',
    );
    expect(refused({ voice: 'v'.repeat(101) })).toBe('"voice" is longer than 100 characters');
    expect(refused({ max_secs: 301 })).toBe(
      '"max_secs" is over SESSION_MAX_SECS (300): a session may shorten its time, not lengthen it',
    );
    expect(refused({ max_secs: 0 })).toBe(
      '"max_secs" must be a whole number of seconds from 1 to 604800, or null for SESSION_MAX_SECS',
    );
    expect(refused({ agent: 'sales' })).toBe(
      'unknown assistant "sales" in "agent": the assistants are reminders',
    );
    expect(refused({ phrases: { hello: 'Hi.' } })).toMatch(/^unknown phrase "hello" in "phrases"/);
    expect(refused({ timezone: 'Mars/Olympus' })).toBe(
      '"timezone" must be an IANA time zone such as Europe/Rome, America/New_York or UTC, not "Mars/Olympus"',
    );
    const local = placedSession(call({}), {}, defaults, {
      instructionsMaxChars: 0,
      maxSecs: 0,
      agents,
    });
    expect(local).toMatchObject({ settings: { timezone: 'Europe/London' } });
  });
});
