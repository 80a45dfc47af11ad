import type { UserAnswer } from '../tool-executor.js';
import { answerElicitation, formField, type Asker } from './mcp-elicitation.js';

const confirm = { message: 'Delete 3 files?', requestedSchema: { type: 'object', properties: {} } };
const member = {
  message: 'Join as a member?',
  requestedSchema: { type: 'object', properties: { member: { type: 'boolean' } } },
};
const asking = (session: string, said: UserAnswer, asked: string[] = []): Asker => ({
  session,
  ask: (question) => (asked.push(question), Promise.resolve(said)),
});

describe('formField', () => {
  const field = (props: Record<string, unknown>) =>
    formField({ properties: props as Record<string, { type?: unknown }> });

  it('is empty for a confirmation, the name of one boolean field, undefined for several fields', () => {
    expect(formField(undefined)).toEqual({ name: '' });
    expect(field({})).toEqual({ name: '' });
    expect(field({ ok: { type: 'boolean' } })).toEqual({ name: 'ok' });
    expect(field({ ok: { type: 'boolean' }, why: { type: 'string' } })).toBeUndefined();
    expect(field({ tags: { type: 'array', items: { enum: ['a', 'b'] } } })).toBeUndefined();
  });

  it('wants a text, a number or a choice (titled by oneOf, enumNames, or its values)', () => {
    expect(field({ name: { type: 'string', maxLength: 40 } })?.wanted).toMatchObject({
      type: 'text',
      maxLength: 40,
    });
    expect(field({ n: { type: 'integer', minimum: 1, maximum: 8 } })?.wanted).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 8,
    });
    const choices = (props: Record<string, unknown>) =>
      (field(props)?.wanted as { choices?: unknown }).choices;
    expect(
      choices({
        size: {
          type: 'string',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
      }),
    ).toEqual([
      { value: 's', title: 'Small' },
      { value: 'l', title: 'Large' },
    ]);
    expect(
      choices({ size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] } }),
    ).toEqual([
      { value: 's', title: 'Small' },
      { value: 'l', title: 'Large' },
    ]);
    expect(choices({ size: { type: 'string', enum: ['small'] } })).toEqual([
      { value: 'small', title: 'small' },
    ]);
  });

  it("checks an answer as the server will (the SDK's formats)", () => {
    const email = field({ to: { type: 'string', format: 'email' } })!.wanted!;
    expect(email.check!('ada@example.com')).toBeUndefined();
    expect(email.check!('ada at example')).toMatch(/must match format "email"/);
    const date = field({ on: { type: 'string', format: 'date' } })!.wanted!;
    expect(date.check!('2026-12-24')).toBeUndefined();
    expect(date.check!('Christmas Eve')).toMatch(/format "date"/);
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
        {
          message: 'Who?',
          requestedSchema: {
            properties: { name: { type: 'string' }, email: { type: 'string' } },
          },
        },
        [never],
        'a form of several fields',
      ],
    ] as const;
    for (const [params, calls, why] of cases) {
      const answered = await answerElicitation(params, calls);
      expect(answered.answer).toEqual({ action: 'cancel' });
      expect(answered.why).toContain(why);
    }
  });
});
