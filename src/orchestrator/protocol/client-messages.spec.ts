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
});
