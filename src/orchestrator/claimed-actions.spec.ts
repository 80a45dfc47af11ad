import { actedIn, claimedAction } from './claimed-actions.js';
import type { ChatMessage } from '../llm/llm.types.js';
import type { Tool } from '../tools/tool-definition.js';

describe('claimedAction', () => {
  it.each([
    ["I've booked your table for eight. Anything else?", "I've booked your table for eight"],
    ['Great, I have sent the text to Ada.', 'Great, I have sent the text to Ada'],
    ['Done! I just cancelled your order.', 'I just cancelled your order'],
    ["I've gone ahead and booked it.", "I've gone ahead and booked it"],
    ['I’ve made a reservation for four.', 'I’ve made a reservation for four'],
    ["No problem, I've booked it.", "No problem, I've booked it"],
    ['Ho prenotato il tavolo per le otto.', 'Ho prenotato il tavolo per le otto'],
    ["Perfetto, l'ho inviato.", "Perfetto, l'ho inviato"],
    ['He reservado su mesa.', 'He reservado su mesa'],
    ["J'ai réservé votre table.", "J'ai réservé votre table"],
    ['Ich habe Ihren Tisch für 20 Uhr gebucht.', 'Ich habe Ihren Tisch für 20 Uhr gebucht'],
    ['Reservei a sua mesa.', 'Reservei a sua mesa'],
  ])('finds the claim in %j', (text, sentence) => {
    expect(claimedAction(text)).toBe(sentence);
  });

  it.each([
    ['a denial', "I haven't booked it yet."],
    ['a denial in full', 'I have not booked it.'],
    ['an Italian denial', 'Non ho prenotato.'],
    ['a Spanish denial', 'No he reservado nada.'],
    ['a French denial', "Je n'ai pas réservé."],
    ['a German denial', 'Ich habe den Tisch nicht gebucht.'],
    ['a Portuguese denial', 'Não reservei.'],
    ['what a lookup reported', 'Your parcel has been sent.'],
    ['a past fact', 'I see your order was placed yesterday.'],
    ['an offer', 'Shall I book it?'],
    ['a question', 'Have I booked it?'],
    ['a promise', 'I will send it now.'],
    ['an answer', 'It is sunny in Paris.'],
  ])('finds none in %s', (_what, text) => {
    expect(claimedAction(text)).toBeUndefined();
  });
});

describe('actedIn', () => {
  const tools = [
    { name: 'get_weather', method: 'GET' },
    { name: 'send_sms', method: 'POST' },
    { name: 'lookup', method: 'POST', safe: true },
  ] as Tool[];
  const called = (name: string, content: string): ChatMessage[] => [
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name, arguments: '{}' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content },
  ];

  it('is a call of a tool that acts that succeeded, or a call of a client tool', () => {
    expect(actedIn(called('send_sms', 'queued'), tools, [])).toBe(true);
    expect(actedIn(called('open_door', 'ok'), tools, ['open_door'])).toBe(true);
  });

  it('is not a failed call, nor one of a tool that changes nothing', () => {
    expect(actedIn(called('send_sms', 'Error: tool request failed: HTTP 503'), tools, [])).toBe(
      false,
    );
    expect(actedIn(called('get_weather', 'sunny'), tools, [])).toBe(false);
    expect(actedIn(called('lookup', 'found'), tools, [])).toBe(false);
    expect(actedIn([{ role: 'user', content: 'hi' }], tools, [])).toBe(false);
  });
});
