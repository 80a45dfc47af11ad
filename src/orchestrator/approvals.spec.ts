import { confirmPrompt, userAnswers } from './approvals.js';
import { Session } from './session.js';

describe('confirmPrompt', () => {
  it('fills each {param} with the argument: text as it is, other values as JSON', () => {
    expect(
      confirmPrompt('Pay {amount} {currency} to {to}, tags {tags}?', {
        amount: 40.5,
        currency: 'EUR',
        to: 'Ada Lovelace',
        tags: ['rent'],
      }),
    ).toBe('Pay 40.5 EUR to Ada Lovelace, tags ["rent"]?');
  });

  it('leaves out a placeholder without an argument, and the space before it', () => {
    expect(confirmPrompt('Delete item {id} {note}?', { id: '5', note: null })).toBe(
      'Delete item 5?',
    );
    expect(confirmPrompt('Send it to {to}.', {})).toBe('Send it to.');
    expect(confirmPrompt('{who} approves the refund of order {id}', { id: 7 })).toBe(
      'approves the refund of order 7',
    );
    expect(confirmPrompt('Refund order {id} {why}', { id: 7 })).toBe('Refund order 7');
  });

  it('never reads an inherited property as an argument', () => {
    expect(confirmPrompt('Call {constructor} now', {})).toBe('Call now');
  });
});

describe('userAnswers', () => {
  const metrics = { approval: () => {}, question: () => {} };
  const wanted = { type: 'text' as const, optional: false };

  it("tells session.answered of each answer the user gave (an approval's yes or no, a question's value), not of a wait that expired", async () => {
    const session = new Session();
    const told: string[] = [];
    session.answered.subscribe((id) => told.push(id));
    const { approve, hear } = userAnswers(session, new AbortController().signal, 200, metrics);
    const approved = approve('a1');
    const declined = approve('a2');
    session.approvals.get('a1')!(true);
    session.approvals.get('a2')!(false);
    expect(await approved).toEqual({ approval: 'approved' });
    expect((await declined).approval).toBe('declined');
    const heard = hear('q1', wanted);
    session.questions.get('q1')!.reply({ said: 'Ada' });
    expect(await heard).toEqual({ answer: { said: 'Ada' } });
    expect(told).toEqual(['a1', 'a2', 'q1']);
    expect((await approve('a3')).approval).toBe('expired');
    expect(await hear('q2', wanted)).toBe('expired');
    expect(told).toEqual(['a1', 'a2', 'q1']);
  });
});
