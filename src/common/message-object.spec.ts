import { messageObject } from './message-object.js';

describe('messageObject: a message another process published', () => {
  it('is its JSON object', () => {
    expect(messageObject('{"id":"a","op":"list"}')).toEqual({ id: 'a', op: 'list' });
  });

  it.each(['null', '0', '"text"', '[1]', 'true', 'not json', '', '{'])('is nothing for %j', (raw) =>
    expect(messageObject(raw)).toBeUndefined(),
  );
});
