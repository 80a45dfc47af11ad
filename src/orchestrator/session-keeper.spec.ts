import { createHash } from 'node:crypto';
import { MemorySessionStore, type Claim, type Save } from '../sessions/session-store.js';
import { SessionKeeper } from './session-keeper.service.js';
import { Session } from './session.js';
import { sessionState } from './session-tools.js';
import type { SettingsLimits } from './settings-update.js';

const LIMITS: SettingsLimits = {
  instructionsMaxChars: 1000,
  toolNames: () => [],
  toolsOff: false,
  models: [],
  maxSecs: 0,
  agents: () => [],
};

class RecordingStore extends MemorySessionStore {
  readonly saves: Save[] = [];
  readonly claims: Claim[] = [];
  failing = false;
  /** How long the next saves take, in turn (a store whose latency varies). */
  readonly delays: number[] = [];
  override async save(save: Save): Promise<boolean> {
    if (this.failing) throw new Error('connection refused');
    const delay = this.delays.shift() ?? 0;
    if (delay > 0) await new Promise((resolve) => setTimeout(resolve, delay));
    this.saves.push(save);
    return super.save(save);
  }
  override claim(claim: Claim) {
    if (this.failing) return Promise.reject(new Error('connection refused'));
    this.claims.push(claim);
    return super.claim(claim);
  }
}

describe('SessionKeeper', () => {
  let store: RecordingStore;
  let keeper: SessionKeeper;
  beforeEach(() => {
    store = new RecordingStore();
    keeper = new SessionKeeper(store, { resumeSecs: 60 });
  });
  afterEach(() => store.close());

  function talkedSession(): Session {
    const session = new Session('en');
    session.history = [
      { role: 'user', content: 'Add tea to my cart.' },
      { role: 'assistant', content: 'Done.' },
    ];
    session.settings = { ...session.settings, modality: 'voice', language: 'it' };
    sessionState(session).value = { cart: ['tea'] };
    return session;
  }

  it('saves a turn still running its calls with those calls cancelled and no reasoning, its history left as it is', async () => {
    const session = talkedSession();
    const call = {
      id: 'c1',
      type: 'function' as const,
      function: { name: 'pay', arguments: '{}' },
    };
    session.history.push(
      { role: 'user', content: 'Pay.' },
      { role: 'assistant', content: null, tool_calls: [call], reasoning_content: 'Pay it all.' },
    );
    expect(await keeper.save(session)).toBe('saved');
    expect(session.history).toHaveLength(4);
    // The turn goes on with its reasoning (LLM_KEEP_REASONING); the save is for a new turn's.
    expect(session.history[3]).toHaveProperty('reasoning_content', 'Pay it all.');
    const resumed = new Session('en');
    expect(await keeper.resume(resumed, session.resumeToken, LIMITS)).toBe(true);
    expect(resumed.history.slice(3)).toEqual([
      { role: 'assistant', content: null, tool_calls: [call] },
      { role: 'tool', tool_call_id: 'c1', content: 'Error: cancelled' },
    ]);
  });

  it('resumes history, settings and code-tool state into a new connection', async () => {
    const old = talkedSession();
    await keeper.save(old);
    const fresh = new Session('en');
    expect(await keeper.resume(fresh, old.resumeToken, LIMITS)).toBe(true);
    expect(fresh.id).toBe(old.id);
    expect(fresh.history).toEqual(old.history);
    expect(fresh.settings).toEqual(old.settings);
    expect(sessionState(fresh).value).toEqual({ cart: ['tea'] });
    expect(fresh.owner).not.toBe(old.owner);
  });

  it('never hands the token itself to the store', async () => {
    const session = talkedSession();
    await keeper.save(session);
    expect(store.saves[0]!.key).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(store.saves)).not.toContain(session.resumeToken);
  });

  it('keeps a session SESSION_RESUME_SECS from its last save and from its last claim', async () => {
    const session = talkedSession();
    await keeper.save(session);
    await keeper.resume(new Session('en'), session.resumeToken, LIMITS);
    expect(store.saves.map((s) => s.ttlSecs)).toEqual([60]);
    expect(store.claims.map((c) => c.ttlSecs)).toEqual([60]);
  });

  it('keeps a session taken over by a newer connection from being overwritten by the old one', async () => {
    const old = talkedSession();
    expect(await keeper.save(old)).toBe('saved');
    const fresh = new Session('en');
    await keeper.resume(fresh, old.resumeToken, LIMITS);
    fresh.history.push({ role: 'user', content: 'And milk.' });
    expect(await keeper.save(fresh)).toBe('saved');
    old.history = [];
    // Refused: the newer connection holds the session (the old one is then closed, see the gateway).
    expect(await keeper.save(old)).toBe('refused');
    const third = new Session('en');
    await keeper.resume(third, old.resumeToken, LIMITS);
    expect(third.history.at(-1)).toEqual({ role: 'user', content: 'And milk.' });
  });

  it('a failing store fails no turn: resume says no, save settles', async () => {
    store.failing = true;
    const session = talkedSession();
    await expect(keeper.save(session)).resolves.toBe('failed');
    expect(await keeper.resume(new Session('en'), 'token', LIMITS)).toBe(false);
  });

  it('skips mid-connection checkpoints for the in-process store, which is read only after a close', async () => {
    const session = talkedSession();
    await keeper.checkpoint(session);
    expect(store.saves).toEqual([]);
    await keeper.save(session);
    expect(store.saves).toHaveLength(1);
  });

  it('saves nothing and resumes nothing with SESSION_RESUME_SECS=0', async () => {
    const off = new SessionKeeper(store, { resumeSecs: 0 });
    const session = talkedSession();
    await off.save(session);
    expect(store.saves).toEqual([]);
    expect(await off.resume(new Session('en'), session.resumeToken, LIMITS)).toBe(false);
  });

  it("lands a session's saves in the order they were made, whatever the store's latency", async () => {
    const session = talkedSession();
    store.delays.push(50, 0);
    const first = keeper.save(session);
    session.history = [...session.history, { role: 'user', content: 'And milk.' }];
    const second = keeper.save(session);
    await Promise.all([first, second]);
    const fresh = new Session('en');
    await keeper.resume(fresh, session.resumeToken, LIMITS);
    expect(fresh.history.at(-1)).toEqual({ role: 'user', content: 'And milk.' });
  });

  it('starts afresh from a record it cannot read, and fills settings a record lacks with defaults', async () => {
    const key = (session: Session) =>
      createHash('sha256').update(session.resumeToken).digest('hex');
    const put = (session: Session, data: unknown) =>
      store.save({ key: key(session), owner: 'o', data: JSON.stringify(data), ttlSecs: 60 });
    const newer = new Session('en');
    await put(newer, { v: 2, id: 'x', history: [], settings: {}, state: {} });
    expect(await keeper.resume(new Session('en'), newer.resumeToken, LIMITS)).toBe(false);
    const broken = new Session('en');
    await put(broken, { v: 1, id: 'x', history: 'none', settings: {}, state: {} });
    expect(await keeper.resume(new Session('en'), broken.resumeToken, LIMITS)).toBe(false);
    // Saved by an engine before `variables` existed.
    const older = new Session('en');
    await put(older, { v: 1, id: 'x', history: [], settings: { modality: 'voice' } });
    const fresh = new Session('en');
    expect(await keeper.resume(fresh, older.resumeToken, LIMITS)).toBe(true);
    expect(fresh.settings).toMatchObject({ modality: 'voice', variables: {}, language: 'en' });
    expect(sessionState(fresh).value).toEqual({});
  });
});
