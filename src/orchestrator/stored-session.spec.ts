import { readStored } from './stored-session.js';

const record = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    v: 1,
    id: 'a1',
    started: Date.now(),
    history: [
      { role: 'user', content: 'Weather in Rome?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      { role: 'assistant', content: 'Sunny.' },
    ],
    settings: { modality: 'text', language: 'en' },
    state: {},
    ...over,
  });

const why = (data: string) => {
  const read = readStored(data);
  return 'why' in read ? read.why : undefined;
};

describe('a saved session read back', () => {
  it('is taken as the engine wrote it', () => {
    const read = readStored(record());
    expect('stored' in read && read.stored.history).toHaveLength(4);
  });

  it('reads its settings as a session.update does: null own tools are none, defaults filled', () => {
    const read = readStored(
      record({ settings: { client_tools: null, variables: null, timezone: 'europe/rome' } }),
    );
    expect('stored' in read && read.stored.settings).toEqual({
      client_tools: [],
      variables: {},
      timezone: 'Europe/Rome',
    });
    const tool = { name: 'open_door' };
    const own = readStored(record({ settings: { client_tools: [tool] } }));
    expect('stored' in own && own.stored.settings.client_tools).toEqual([
      expect.objectContaining({ name: 'open_door', description: '' }),
    ]);
    // Its own phrases, as the engine keeps them.
    const phrases = { wait: { '*': ['Just a sec.', 'Bear with me.'] }, idle: { it: 'Pronto?' } };
    const spoken = readStored(record({ settings: { phrases } }));
    expect('stored' in spoken && spoken.stored.settings.phrases).toEqual(phrases);
    const agent = { via: 'to_billing', name: 'billing', instructions: '', phrases };
    const handed = readStored(record({ agent }));
    expect('stored' in handed && handed.stored.agent).toEqual(agent);
  });

  it('is refused, saying why, when the engine could not go on from it', () => {
    expect(why('{')).toBe('not JSON');
    expect(why(record({ v: 2 }))).toBe('v must be equal to constant');
    expect(why(record({ history: [{ role: 'user', content: [] }] }))).toBe(
      'history/0/content must be string',
    );
    expect(why(record({ history: [{ role: 'tool', tool_call_id: 'x', content: '' }] }))).toBe(
      'history/0 answers no call of the message before',
    );
    expect(
      why(
        record({
          history: [
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '' } }],
            },
            { role: 'user', content: 'hi' },
          ],
        }),
      ),
    ).toBe('history/1 comes before every call before it was answered');
    expect(why(record({ settings: { client_tools: [null] } }))).toMatch(
      /^its settings: client_tools\[0\]: expected an object$/,
    );
    expect(why(record({ settings: { modality: 'smoke' } }))).toMatch(/^its settings: /);
    expect(why(record({ settings: { phrases: { wait: [] } } }))).toMatch(
      /^its settings: "phrases.wait" must be a phrase/,
    );
    const agent = { via: 'to_billing', name: 'billing', instructions: '' };
    expect(why(record({ agent: { ...agent, phrases: { idle: 3 } } }))).toMatch(
      /^its assistant: "phrases.idle" must be a phrase/,
    );
  });
});
