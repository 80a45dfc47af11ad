import { parseClientMessage, SessionUpdateMessage, UserTextMessage } from './client-messages.js';

/** `raw` is refused with `error`. */
function refused(raw: string, error: unknown): void {
  expect(parseClientMessage(raw)).toEqual({ error });
}

describe('parseClientMessage', () => {
  it('gives the message as an instance of its class, with its fields', () => {
    const parsed = parseClientMessage('{"type":"user_text","text":"Weather in Rome?"}');
    expect(parsed).toEqual({ message: { type: 'user_text', text: 'Weather in Rome?' } });
    expect('message' in parsed && parsed.message).toBeInstanceOf(UserTextMessage);
  });

  it('checks every field against its rules', () => {
    refused('{"type":"user_text","text":5}', 'user_text needs a "text" string');
    refused(
      '{"type":"user_text","text":""}',
      'user_text needs a non-empty "text" (more than spaces)',
    );
    refused('{"type":"session.update","tts":"yes"}', '"tts" must be true or false');
    const update = parseClientMessage('{"type":"session.update","modality":"voice","tools":null}');
    expect('message' in update && update.message).toBeInstanceOf(SessionUpdateMessage);
    expect(update).toMatchObject({ message: { modality: 'voice', tools: null } });
  });

  it.each([
    ['user_text', { text: 'x'.repeat(100_001) }, '"text" is longer than 100000 characters'],
    ['session.update', { modality: 'video' }, '"modality" must be "voice" or "text"'],
    ['session.update', { voice: 7 }, '"voice" must be a string'],
    ['session.update', { voice: 'v'.repeat(101) }, '"voice" is longer than 100 characters'],
    [
      'session.update',
      { language: 'english!' },
      '"language" must be a language code such as en, it, es',
    ],
    ['session.update', { audio: 'mp3' }, '"audio" must be "json" or "binary"'],
    ['session.update', { instructions: 42 }, '"instructions" must be a string'],
    [
      'session.update',
      { tools: 'get_weather' },
      '"tools" must be an array of tool names, or null for all tools',
    ],
    [
      'session.update',
      { tools: [1] },
      '"tools" must be an array of tool names, or null for all tools',
    ],
    [
      'session.update',
      { tools: Array.from({ length: 257 }, (_, i) => `t${i}`) },
      '"tools" names more than 256 tools',
    ],
    [
      'session.update',
      { client_tools: {} },
      '"client_tools" must be an array of tool definitions, or null for none',
    ],
    [
      'session.update',
      { variables: 'x' },
      '"variables" must be an object of names and string values, or null for none',
    ],
    ['ping', { id: 5 }, '"id" must be a string'],
    ['ping', { id: 'i'.repeat(201) }, '"id" is longer than 200 characters'],
    ['audio', {}, 'audio needs a base64 "data" string'],
    ['audio', { data: 'not base64!' }, 'audio "data" is not valid base64'],
    ['tool_confirm', { approved: true }, 'tool_confirm needs the call\'s "id" string'],
    ['tool_confirm', { id: '', approved: true }, 'tool_confirm needs the call\'s "id" string'],
    ['tool_confirm', { id: 'c1', approved: 'yes' }, 'tool_confirm needs "approved": true or false'],
    [
      'client_tool_result',
      { id: '', result: 1 },
      'client_tool_result needs the call\'s "id" string',
    ],
    [
      'client_tool_result',
      { id: 'c1', error: 3 },
      '"error" must be a string: what went wrong, for the model',
    ],
    [
      'client_tool_result',
      { id: 'c1', error: 'e'.repeat(10_001) },
      '"error" is longer than 10000 characters',
    ],
    [
      'client_tool_result',
      { id: 'c1' },
      expect.stringMatching(/^client_tool_result needs exactly one of "result"/),
    ],
    [
      'client_tool_result',
      { id: 'c1', result: 1, error: 'x' },
      expect.stringMatching(/^client_tool_result needs exactly one of "result"/),
    ],
  ])('refuses a %s message with %j', (type, fields, error) => {
    refused(JSON.stringify({ type, ...fields }), error);
  });

  it('takes every field at its limit', () => {
    for (const message of [
      { type: 'user_text', text: 'x'.repeat(100_000) },
      {
        type: 'session.update',
        voice: 'v'.repeat(100),
        language: 'pt-BR',
        tools: Array.from({ length: 256 }, (_, i) => `t${i}`),
        instructions: '',
        variables: null,
        client_tools: [],
      },
      { type: 'ping', id: 'i'.repeat(200) },
      { type: 'ping' },
      { type: 'audio', data: 'AAECAw==' },
      { type: 'tool_confirm', id: 'c1', approved: false },
      { type: 'client_tool_result', id: 'c1', result: null },
      { type: 'client_tool_result', id: 'c1', error: 'e'.repeat(10_000) },
    ])
      expect(parseClientMessage(JSON.stringify(message))).toEqual({ message });
  });

  it.each([
    ['say', { text: 'Hi.', interruptible: null }, '"interruptible" must be true or false'],
    ['note', { text: 'VIP', respond: null }, '"respond" must be true or false'],
    ['ping', { id: null }, '"id" must be a string'],
    ['session.update', { modality: null }, '"modality" must be "voice" or "text"'],
    ['session.update', { tts: null }, '"tts" must be true or false'],
    ['session.update', { voice: null }, '"voice" must be a string'],
    ['session.update', { timezone: null }, expect.stringMatching(/^"timezone" must be an IANA/)],
    ['session.update', { instructions: null }, '"instructions" must be a string'],
    ['client_tool_result', { id: 'c1', error: null }, expect.stringMatching(/^"error" must be/)],
  ])('refuses null for a %s field that may only be left out: %j', (type, fields, error) => {
    refused(JSON.stringify({ type, ...fields }), error);
  });

  it("takes null where it means something: the engine's model, all tools, no client tools", () => {
    const nulls = { model: null, tools: null, client_tools: null, max_secs: null, agent: null };
    expect(parseClientMessage(JSON.stringify({ type: 'session.update', ...nulls }))).toEqual({
      message: { type: 'session.update', ...nulls },
    });
    const result = { type: 'client_tool_result', id: 'c1', result: null };
    expect(parseClientMessage(JSON.stringify(result))).toEqual({ message: result });
  });

  it('is not fooled by a "__proto__" field', () => {
    // Assigned as a field, it would replace the instance's class and the rules checked.
    refused('{"type":"user_text","text":5,"__proto__":{}}', 'user_text needs a "text" string');
    refused('{"type":"user_text","__proto__":{"text":"x"}}', 'user_text needs a "text" string');
    const parsed = parseClientMessage('{"type":"user_text","text":"hi","__proto__":{"x":1}}');
    expect('message' in parsed && parsed.message).toBeInstanceOf(UserTextMessage);
    refused(
      '{"type":"session.update","__proto__":{}}',
      expect.stringContaining('unknown setting "__proto__" in session.update') as string,
    );
  });

  it('reads a frame that begins with a byte order mark, as RFC 8259 allows', () => {
    const parsed = parseClientMessage('\uFEFF{"type":"user_text","text":"hi"}');
    expect('message' in parsed && parsed.message).toMatchObject({ type: 'user_text', text: 'hi' });
    refused(
      '\uFEFF\uFEFF{"type":"ping"}',
      'malformed JSON: every message must be a JSON object with a "type"',
    );
  });

  it('names what is wrong with a frame that is no message', () => {
    refused('{nope', 'malformed JSON: every message must be a JSON object with a "type"');
    refused('[1]', 'every message must be a JSON object with a "type"');
    refused('{"type":"dance"}', expect.stringMatching(/^unknown message type "dance": expected/));
    refused(
      '{"text":"hi"}',
      expect.stringMatching(/^the message has no "type": expected one of user_text, /),
    );
    refused(
      '{"type":"user_text","text":" \\n\\t "}',
      'user_text needs a non-empty "text" (more than spaces)',
    );
  });

  it('refuses a frame nested past 100 levels before parsing it (its parse would hold every session)', () => {
    const nested = (levels: number) => '['.repeat(levels) + ']'.repeat(levels);
    const result = (levels: number) =>
      `{"type":"client_tool_result","id":"c1","result":${nested(levels)}}`;
    refused(result(500_000), 'the message nests arrays and objects more than 100 levels deep');
    expect(parseClientMessage(result(99))).toHaveProperty('message');
    // Brackets inside strings are text.
    expect(parseClientMessage(`{"type":"user_text","text":"${nested(300)}"}`)).toHaveProperty(
      'message',
    );
  });
});
