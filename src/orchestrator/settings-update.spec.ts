import { settingsChanges } from './settings-update.js';
import type { SessionUpdateMessage } from './protocol/client-messages.js';

const BILLING = { via: 'to_billing', name: 'billing', instructions: 'Billing.', language: 'es' };
const FRONT = { via: 'to_front_desk', name: 'front desk', instructions: '' };

describe('settingsChanges', () => {
  const limits = {
    instructionsMaxChars: 100,
    toolNames: () => ['get_weather'],
    toolsOff: false,
    models: ['qwen3-coder', 'qwen3-coder-bank-lora'],
    maxSecs: 0,
    agents: () => [BILLING],
  };
  const update = (fields: Partial<SessionUpdateMessage>) =>
    ({ type: 'session.update', ...fields }) as SessionUpdateMessage;

  it('changes only the fields given, client tools with their defaults; null declares none', () => {
    expect(
      settingsChanges(update({ language: 'it', client_tools: [{ name: 'vibrate' }] }), limits),
    ).toEqual({
      changes: {
        language: 'it',
        client_tools: [
          { name: 'vibrate', description: '', parameters: { type: 'object', properties: {} } },
        ],
      },
    });
    expect(settingsChanges(update({ client_tools: null }), limits)).toEqual({
      changes: { client_tools: [] },
    });
  });

  it('takes tool_mocks only on an engine under test, of active tools, each result as text', () => {
    const mocks = { get_weather: { city: 'Rome', sky: 'snow' } };
    expect(settingsChanges(update({ tool_mocks: mocks }), limits)).toEqual({
      error:
        'this engine takes no "tool_mocks" (SESSION_TOOL_MOCKS=false): they are for engines under test',
    });
    const testing = { ...limits, toolMocks: true };
    expect(settingsChanges(update({ tool_mocks: mocks }), testing)).toEqual({
      changes: { tool_mocks: { get_weather: '{"city":"Rome","sky":"snow"}' } },
    });
    expect(settingsChanges(update({ tool_mocks: { get_weather: 'Snow.' } }), testing)).toEqual({
      changes: { tool_mocks: { get_weather: 'Snow.' } },
    });
    expect(settingsChanges(update({ tool_mocks: { book: 'ok' } }), testing)).toEqual({
      error: 'unknown tool "book" in "tool_mocks": the active tools are get_weather',
    });
    // None (null, {}): none kept, on any engine.
    expect(settingsChanges(update({ tool_mocks: null }), limits)).toEqual({
      changes: { tool_mocks: undefined },
    });
  });

  it('takes a max_secs within SESSION_MAX_SECS (any, with none), or null for it again', () => {
    expect(settingsChanges(update({ max_secs: 86_400 }), limits)).toEqual({
      changes: { max_secs: 86_400 },
    });
    const capped = { ...limits, maxSecs: 600 };
    expect(settingsChanges(update({ max_secs: 600 }), capped)).toEqual({
      changes: { max_secs: 600 },
    });
    expect(settingsChanges(update({ max_secs: null }), capped)).toEqual({
      changes: { max_secs: null },
    });
    expect(settingsChanges(update({ max_secs: 601 }), capped)).toEqual({
      error:
        '"max_secs" is over SESSION_MAX_SECS (600): a session may shorten its time, not lengthen it',
    });
  });

  it("takes a model of LLM_MODELS, or null for the engine's again, and refuses any other", () => {
    expect(settingsChanges(update({ model: 'qwen3-coder-bank-lora' }), limits)).toEqual({
      changes: { model: 'qwen3-coder-bank-lora' },
    });
    expect(settingsChanges(update({ model: null }), limits)).toEqual({ changes: { model: null } });
    expect(settingsChanges(update({ model: 'gpt-4o' }), limits)).toEqual({
      error:
        'unknown model "gpt-4o" in "model": the models offered are qwen3-coder, qwen3-coder-bank-lora',
    });
    expect(settingsChanges(update({ model: 'qwen3-coder' }), { ...limits, models: [] })).toEqual({
      error: 'this engine lets no session choose its model (LLM_MODELS is empty)',
    });
  });

  it('refuses tools of its own when tool calling is off, but lets a client clear them', () => {
    const off = { ...limits, toolsOff: true };
    expect(settingsChanges(update({ client_tools: [{ name: 'vibrate' }] }), off)).toEqual({
      error: 'this engine calls no tools (LLM_TOOLS_ENABLED=false): "client_tools" must be empty',
    });
    expect(settingsChanges(update({ client_tools: [] }), off)).toEqual({
      changes: { client_tools: [] },
    });
  });

  it('refuses an unknown tool in "tools" and instructions over the limit', () => {
    expect(settingsChanges(update({ tools: ['nope'] }), limits)).toEqual({
      error: 'unknown tool "nope" in "tools": the active tools are get_weather',
    });
    expect(settingsChanges(update({ instructions: 'x'.repeat(101) }), limits)).toEqual({
      error: '"instructions" is longer than SESSION_INSTRUCTIONS_MAX_CHARS (100)',
    });
    expect(settingsChanges(update({ instructions: 'x'.repeat(100) }), limits)).toEqual({
      changes: { instructions: 'x'.repeat(100) },
    });
    expect(
      settingsChanges(update({ instructions: 'x' }), { ...limits, instructionsMaxChars: 0 }),
    ).toEqual({
      error: 'this engine takes no session instructions (SESSION_INSTRUCTIONS_MAX_CHARS=0)',
    });
    // Empty instructions clear them, even where none are taken.
    expect(
      settingsChanges(update({ instructions: '' }), { ...limits, instructionsMaxChars: 0 }),
    ).toEqual({ changes: { instructions: '' } });
    expect(
      settingsChanges(update({ tools: ['get_weather'] }), { ...limits, toolNames: () => [] }),
    ).toEqual({ error: 'unknown tool "get_weather" in "tools": the active tools are none' });
  });
  it("gives the session an assistant by its name or its handoff tool's, in its language unless told another", () => {
    expect(settingsChanges(update({ agent: 'billing' }), limits)).toEqual({
      changes: { language: 'es' },
      agent: BILLING,
    });
    expect(settingsChanges(update({ agent: 'to_billing', language: 'it' }), limits)).toEqual({
      changes: { language: 'it' },
      agent: BILLING,
    });
    expect(settingsChanges(update({ agent: null }), limits)).toEqual({ changes: {}, agent: null });
    expect(settingsChanges(update({ agent: 'sales' }), limits)).toEqual({
      error: 'unknown assistant "sales" in "agent": the assistants are billing',
    });
    // SESSION_AGENTS: those a client may choose; none.
    const billingOnly = { ...limits, agents: () => [BILLING, FRONT], clientAgents: ['to_billing'] };
    expect(settingsChanges(update({ agent: 'billing' }), billingOnly)).toMatchObject({
      agent: BILLING,
    });
    expect(settingsChanges(update({ agent: 'front desk' }), billingOnly)).toEqual({
      error: 'unknown assistant "front desk" in "agent": the assistants are billing',
    });
    expect(settingsChanges(update({ agent: 'billing' }), { ...limits, clientAgents: [] })).toEqual({
      error: 'this engine lets no client choose its assistant (SESSION_AGENTS=none)',
    });
    expect(settingsChanges(update({ agent: null }), { ...limits, clientAgents: [] })).toEqual({
      changes: {},
      agent: null,
    });
    expect(settingsChanges(update({ agent: 'sales' }), { ...limits, agents: () => [] })).toEqual({
      error:
        'unknown assistant "sales" in "agent": the assistants are none (no handoff tool is active)',
    });
  });
});

describe('session variables in settingsChanges', () => {
  const limits = {
    instructionsMaxChars: 100,
    toolNames: () => [],
    toolsOff: false,
    models: [],
    maxSecs: 0,
    agents: () => [],
  };
  const update = (variables: unknown) =>
    ({ type: 'session.update', variables }) as SessionUpdateMessage;

  it('takes names and string values; null clears them', () => {
    expect(settingsChanges(update({ customer_id: '42', user_token: 't' }), limits)).toEqual({
      changes: { variables: { customer_id: '42', user_token: 't' } },
    });
    expect(settingsChanges(update(null), limits)).toEqual({ changes: { variables: {} } });
  });

  it.each([
    [{ 'bad name': 'x' }, 'variable "bad name": a name is 1 to 64 letters, digits or "_"'],
    [{ id: 42 }, "variable 'id' must be a string of at most 4000 characters, without line breaks"],
    [
      { id: 'a\r\nX-Evil: 1' },
      "variable 'id' must be a string of at most 4000 characters, without line breaks",
    ],
    [
      Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`v${i}`, 'x'])),
      '"variables" holds more than 32 names',
    ],
  ])('refuses %#', (variables, error) => {
    expect(settingsChanges(update(variables), limits)).toEqual({ error });
  });
});
