import { nudgeNote, unkeptPromise } from './unkept-promise.js';

describe('unkeptPromise', () => {
  it.each([
    ['Let me check the weather in Paris for you.', 'Let me check the weather in Paris for you'],
    ['Sure! One moment, please.', 'One moment, please'],
    ['Sure, let me look that up…', 'Sure, let me look that up'],
    [
      'Certo. Un attimo, controllo subito la disponibilità.',
      'Un attimo, controllo subito la disponibilità',
    ],
    ['Claro, déjame comprobar tu reserva.', 'Claro, déjame comprobar tu reserva'],
    ['Très bien, je vérifie votre commande.', 'Très bien, je vérifie votre commande'],
    ['Einen Moment, ich schaue nach.', 'Einen Moment, ich schaue nach'],
    ['Claro! Vou verificar o seu pedido.', 'Vou verificar o seu pedido'],
    ["I’ll check if there's a table free at eight.", "I’ll check if there's a table free at eight"],
    ['Sure, let me see if I can find a table.', 'Sure, let me see if I can find a table'],
  ])('finds the promise in %j', (text, sentence) => {
    expect(unkeptPromise(text)).toBe(sentence);
  });

  it.each([
    ['an answer', 'It is sunny in Paris, 21 degrees.'],
    ['a promise before the answer', 'Let me check. It is sunny in Paris.'],
    ['the answer after a colon', 'Let me check: it is sunny in Paris.'],
    ['an offer', 'Shall I check the weather for you?'],
    ['a question after the promise', 'One moment. Which city did you mean?'],
    ['a promise for later', "I'll check once you tell me the date."],
    ['a promise for tomorrow', 'Domani controllo subito.'],
    ['a promise on a condition', "I'll book it if you confirm."],
    ['an offer on a condition', "If you'd like, I'll check the weather."],
    ['a sign-off that is no promise', 'Let me know if you need anything else.'],
    ['a long sentence', `One moment, ${'and then some more words '.repeat(5)}.`],
    ['nothing', ''],
  ])('finds none in %s', (_what, text) => {
    expect(unkeptPromise(text)).toBeUndefined();
  });

  it('tells the model what it said, and that nothing ran', () => {
    expect(nudgeNote({ sentence: 'One moment', kind: 'promise' }).content).toMatch(
      /^\(A note from the engine, not from the user: you said "One moment", but you made no tool call, so nothing has been done\./,
    );
  });
});
