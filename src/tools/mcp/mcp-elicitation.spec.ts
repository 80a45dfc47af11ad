import type { UserAnswer } from '../tool-executor.js';
import { answerElicitation, yesNoField, type Asker } from './mcp-elicitation.js';

const confirm = { message: 'Delete 3 files?', requestedSchema: { type: 'object', properties: {} } };
const member = {
  message: 'Join as a member?',
  requestedSchema: { type: 'object', properties: { member: { type: 'boolean' } } },
};
const asking = (session: string, said: UserAnswer, asked: string[] = []): Asker => ({
  session,
  ask: (question) => (asked.push(question), Promise.resolve(said)),
});

describe('yesNoField', () => {
  it('is empty for a confirmation, the field of one boolean, undefined for other forms', () => {
    expect(yesNoField(undefined)).toBe('');
    expect(yesNoField({ properties: {} })).toBe('');
    expect(yesNoField({ properties: { ok: { type: 'boolean' } } })).toBe('ok');
    expect(yesNoField({ properties: { name: { type: 'string' } } })).toBeUndefined();
    expect(
      yesNoField({ properties: { ok: { type: 'boolean' }, why: { type: 'string' } } }),
    ).toBeUndefined();
  });
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

  it('asks the latest of one session’s calls that has a user', async () => {
    const asked: string[] = [];
    const calls = [asking('s1', 'no'), asking('s1', 'yes', asked), { session: 's1' }];
    expect((await answerElicitation(confirm, calls)).answer.action).toBe('accept');
    expect(asked).toHaveLength(1);
  });

  it('asks no one when it cannot be sure whose the question is, or a yes or no cannot answer it', async () => {
    const never: Asker = { session: 's2', ask: () => Promise.reject(new Error('asked')) };
    const cases = [
      [confirm, [asking('s1', 'yes'), never], 'calls of several sessions'],
      [confirm, [{ session: 's1' }], 'no user waits on the call'],
      [confirm, [asking('s1', 'unasked')], 'no user waits on the call'],
      [confirm, [], 'no call waits on it'],
      [{ ...confirm, mode: 'url' }, [never], 'URL'],
      [
        { message: 'Name?', requestedSchema: { properties: { name: { type: 'string' } } } },
        [never],
        'a form of fields',
      ],
    ] as const;
    for (const [params, calls, why] of cases) {
      const answered = await answerElicitation(params, calls);
      expect(answered.answer).toEqual({ action: 'cancel' });
      expect(answered.why).toContain(why);
    }
  });
});
