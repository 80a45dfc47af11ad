import { DEFAULT_CONFIRM_NO, DEFAULT_CONFIRM_YES } from '../config/env-defaults.js';
import { acknowledges, checksIn, continues, waitAsked } from './hold-on.js';
import { answerWaiting } from './questions.js';
import { Session } from './session.js';
import { compilePhrases } from './spoken-answer.js';

describe('waitAsked', () => {
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
      expect([said, waitAsked(said)]).toEqual([said, 'hold']);
  });

  it('hears a user asking to hear the question again, and tells it from a hold', () => {
    for (const said of [
      'Sorry?',
      'What?',
      'Sorry, can you repeat that?',
      'Come, scusi?',
      'Può ripetere, per favore?',
      '¿Cómo?',
      'Pardon ?',
      'Wie bitte?',
      'Não entendi.',
    ])
      expect([said, waitAsked(said)]).toEqual([said, 'again']);
    expect(waitAsked('Sorry, one moment.')).toBe('hold');
  });

  it('takes no answer for either: a number, a name, a yes, a hold or a question with more', () => {
    for (const said of [
      'one',
      'four',
      'Ada Lovelace',
      'yes',
      'one moment, four of us',
      'wait, no',
      'sorry, four',
      'what about Tuesday',
      'come on',
      'bitte',
    ])
      expect([said, waitAsked(said)]).toEqual([said, undefined]);
  });

  const phrases = compilePhrases({ yes: DEFAULT_CONFIRM_YES, no: DEFAULT_CONFIRM_NO });
  /** A session whose turn keeps the calls it is asked to hold, or to ask again. */
  function telling() {
    const session = new Session();
    const held: string[][] = [];
    const again: string[][] = [];
    session.waits = {
      calling: true,
      hold: (ids) => held.push(ids),
      again: (ids) => again.push(ids),
      stillRunning: () => false,
    };
    return { session, held, again };
  }

  it('leaves a word of TOOL_CONFIRM_NO its meaning: "wait" to an approval declines it', () => {
    const { session, held } = telling();
    const answers: boolean[] = [];
    session.approvals.set('c1', (approved) => answers.push(approved));
    expect(answerWaiting(session, 'One moment, please.', phrases, () => {})).toBe(true);
    expect(answers).toEqual([]);
    expect(held).toEqual([['c1']]);
    expect(answerWaiting(session, 'Wait!', phrases, () => {})).toBe(true);
    expect(answers).toEqual([false]);
    expect(held).toEqual([['c1']]);
  });

  it('asks a waiting question again, unanswered, when the user asks to hear it', () => {
    const { session, again } = telling();
    const replies: unknown[] = [];
    session.questions.set('q1', { wanted: { type: 'text' }, reply: (r) => replies.push(r) });
    // A text question would take any words as its answer: not these.
    expect(answerWaiting(session, 'Sorry, what was that?', phrases, () => {})).toBe(true);
    expect([replies, again]).toEqual([[], [['q1']]]);
    expect(answerWaiting(session, 'Ada Lovelace', phrases, () => {})).toBe(true);
    expect(replies).toEqual([{ said: 'Ada Lovelace' }]);
  });
});

describe('acknowledges', () => {
  it("hears a caller's okay to the agent at work, and nothing more", () => {
    for (const said of [
      'Okay, thanks.',
      'Uh-huh.',
      'Mm-hmm',
      'Sure, take your time.',
      'Va bene, grazie',
      "D'accord, merci",
      'Alles klar, danke!',
    ])
      expect([said, acknowledges(said)]).toEqual([said, true]);
    for (const said of ['Make it Milan instead.', 'no', 'wait', 'okay, and book a taxi', 'Stop.'])
      expect([said, acknowledges(said)]).toEqual([said, false]);
  });
});

describe('checksIn', () => {
  it('hears a caller asking whether the agent is there, and nothing more', () => {
    for (const said of ['Hello?', 'Hello? Are you still there?', 'Pronto?', 'Sind Sie noch da?'])
      expect([said, checksIn(said)]).toEqual([said, true]);
    for (const said of ['Hello, I want to book a table', 'Okay.', 'Are you sure?'])
      expect([said, checksIn(said)]).toEqual([said, false]);
  });
});

describe('continues', () => {
  it('takes a listener\'s "go on" or a hesitation, not "okay" nor words', () => {
    for (const said of ['Mm-hmm.', 'Uh-huh.', 'Um...', 'Hmm, uh.', 'Ähm.', 'Euh...'])
      expect([said, continues(said)]).toEqual([said, true]);
    for (const said of ['Okay.', 'Yeah.', 'Thanks.', 'Mm-hmm, cancel it.', 'Stop.'])
      expect([said, continues(said)]).toEqual([said, false]);
  });
});
