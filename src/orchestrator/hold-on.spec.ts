import { DEFAULT_CONFIRM_NO, DEFAULT_CONFIRM_YES } from '../config/env-defaults.js';
import { holdsOn } from './hold-on.js';
import { answerWaiting } from './questions.js';
import { Session } from './session.js';
import { compilePhrases } from './spoken-answer.js';

describe('holdsOn', () => {
  it('hears a user asking to wait, in the languages of the default phrases', () => {
    for (const said of [
      'One moment.',
      'Hmm, just a second please',
      'hold on',
      'Let me think...',
      'Un attimo, per favore.',
      'Déjame pensar',
      'Laissez-moi réfléchir',
      'Um momento',
      'Einen Augenblick, bitte.',
    ])
      expect([said, holdsOn(said)]).toEqual([said, true]);
  });

  it('takes no answer for a hold: a number, a name, a yes, a hold with more', () => {
    for (const said of ['one', 'four', 'Ada Lovelace', 'yes', 'one moment, four of us', 'wait, no'])
      expect([said, holdsOn(said)]).toEqual([said, false]);
  });

  it('leaves a word of TOOL_CONFIRM_NO its meaning: "wait" to an approval declines it', () => {
    const phrases = compilePhrases({ yes: DEFAULT_CONFIRM_YES, no: DEFAULT_CONFIRM_NO });
    const session = new Session();
    const answers: boolean[] = [];
    const held: string[][] = [];
    session.held = (ids) => held.push(ids);
    session.approvals.set('c1', (approved) => answers.push(approved));
    expect(answerWaiting(session, 'One moment, please.', phrases, () => {})).toBe(true);
    expect(answers).toEqual([]);
    expect(held).toEqual([['c1']]);
    expect(answerWaiting(session, 'Wait!', phrases, () => {})).toBe(true);
    expect(answers).toEqual([false]);
    expect(held).toEqual([['c1']]);
  });
});
