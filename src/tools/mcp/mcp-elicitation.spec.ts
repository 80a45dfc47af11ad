import type { UserAnswer } from '../tool-executor.js';
import { answerElicitation, type Asker } from './mcp-elicitation.js';

const confirm = { message: 'Delete 3 files?', requestedSchema: { type: 'object', properties: {} } };
const member = {
  message: 'Join as a member?',
  requestedSchema: { type: 'object', properties: { member: { type: 'boolean' } } },
};
const asking = (session: string, said: UserAnswer, asked: string[] = []): Asker => ({
  session,
  ask: (question) => (asked.push(question), Promise.resolve(said)),
});

describe('answerElicitation', () => {
  it("asks the user of the session's call, and answers as the form wants", async () => {
    const asked: string[] = [];
    expect(await answerElicitation(confirm, [asking('s1', 'yes', asked)])).toEqual({
      answer: { action: 'accept' },
    });
    expect(await answerElicitation(confirm, [asking('s1', 'no')])).toEqual({
      answer: { action: 'decline' },
    });
    expect(await answerElicitation(member, [asking('s1', 'no', asked)])).toEqual({
      answer: { action: 'accept', content: { member: false } },
    });
    expect((await answerElicitation(member, [asking('s1', 'unanswered')])).answer).toEqual({
      action: 'cancel',
    });
    expect(asked).toEqual(['Delete 3 files?', 'Join as a member?']);
  });

  it('asks for the value of a form of one text, number or choice field; a no declines it', async () => {
    const name = {
      message: 'Your name?',
      requestedSchema: { properties: { name: { type: 'string' } } },
    };
    const wanted: unknown[] = [];
    const said = (answer: UserAnswer): Asker => ({
      session: 's1',
      ask: (_question, want) => (wanted.push(want?.type), Promise.resolve(answer)),
    });
    expect((await answerElicitation(name, [said({ value: 'Ada' })])).answer).toEqual({
      action: 'accept',
      content: { name: 'Ada' },
    });
    expect((await answerElicitation(name, [said('no')])).answer).toEqual({ action: 'decline' });
    expect((await answerElicitation(name, [said('unanswered')])).answer).toEqual({
      action: 'cancel',
    });
    expect(wanted).toEqual(['text', 'text', 'text']);
  });

  it("asks a form's fields one after the other: a no leaves an optional one out, declines a required one", async () => {
    const contact = {
      message: 'How do we reach you?',
      requestedSchema: {
        properties: {
          name: { type: 'string' },
          phone: { type: 'string' },
          news: { type: 'boolean', title: 'Send you our news' },
        },
        required: ['name'],
      },
    };
    const asked: string[] = [];
    const saying = (...answers: UserAnswer[]): Asker => ({
      session: 's1',
      ask: (question) => (asked.push(question), Promise.resolve(answers.shift()!)),
    });
    expect(
      (await answerElicitation(contact, [saying({ value: 'Ada' }, 'no', 'yes')])).answer,
    ).toEqual({ action: 'accept', content: { name: 'Ada', news: true } });
    expect(asked).toEqual(['How do we reach you? name?', 'phone?', 'Send you our news?']);
    expect((await answerElicitation(contact, [saying('no')])).answer).toEqual({
      action: 'decline',
    });
    expect(
      (await answerElicitation(contact, [saying({ value: 'Ada' }, 'unanswered')])).answer,
    ).toEqual({ action: 'cancel' });
  });

  it('asks the latest of one session’s calls that has a user', async () => {
    const asked: string[] = [];
    const calls = [asking('s1', 'no'), asking('s1', 'yes', asked), { session: 's1' }];
    expect((await answerElicitation(confirm, calls)).answer.action).toBe('accept');
    expect(asked).toHaveLength(1);
  });

  it('asks no one when it cannot be sure whose the question is, or cannot ask it', async () => {
    const never: Asker = { session: 's2', ask: () => Promise.reject(new Error('asked')) };
    const cases = [
      [confirm, [asking('s1', 'yes'), never], 'calls of several sessions'],
      [confirm, [{ session: 's1' }], 'no user waits on the call'],
      [confirm, [asking('s1', 'unasked')], 'no user waits on the call'],
      [confirm, [], 'no call waits on it'],
      [{ ...confirm, mode: 'url' }, [never], 'URL'],
      [
        { message: 'Where?', requestedSchema: { properties: { at: { type: 'object' } } } },
        [never],
        'a form of a field the engine does not ask',
      ],
    ] as const;
    for (const [params, calls, why] of cases) {
      const answered = await answerElicitation(params, calls);
      expect(answered.answer).toEqual({ action: 'cancel' });
      expect(answered.why).toContain(why);
    }
  });
});
