import { holdsOn } from './hold-on.js';

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
});
