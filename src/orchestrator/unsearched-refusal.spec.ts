import type { ChatMessage } from '../llm/llm.types.js';
import { snapshotOf } from '../tools/tool-definition.js';
import { validateToolDefinitions } from '../tools/tool-validation.js';
import { refusal, unsearchedRefusal } from './unsearched-refusal.js';

const { tools } = validateToolDefinitions(
  [
    { name: 'get_weather', url: 'http://127.0.0.1:9/w' },
    { type: 'tool_search', name: 'find_tools' },
    { name: 'refund_invoice', url: 'http://127.0.0.1:9/r', deferred: true },
  ],
  'tools.json',
);
const offered = (...names: string[]) =>
  snapshotOf(
    'file',
    tools.filter((t) => names.includes(t.name)),
  );
const said: ChatMessage[] = [{ role: 'user', content: 'Refund invoice INV-7, please.' }];

describe('refusals with tools left to search', () => {
  it('finds the sentence that refuses a task, in the six languages', () => {
    expect(refusal("I'm sorry, I can't refund invoices. Anything else?")).toBe(
      "I'm sorry, I can't refund invoices.",
    );
    expect(refusal('Unfortunately I am unable to do that for you.')).toBe(
      'Unfortunately I am unable to do that for you.',
    );
    expect(refusal("I don't have a tool for refunds.")).toBe("I don't have a tool for refunds.");
    expect(refusal('Mi dispiace, non posso rimborsare le fatture.')).toBe(
      'Mi dispiace, non posso rimborsare le fatture.',
    );
    expect(refusal('Lo siento, no puedo hacer reembolsos.')).toBe(
      'Lo siento, no puedo hacer reembolsos.',
    );
    expect(refusal('Désolé, je ne peux pas rembourser cette facture.')).toBe(
      'Désolé, je ne peux pas rembourser cette facture.',
    );
    expect(refusal('Das kann ich leider nicht. Ich kann das nicht erstatten.')).toBe(
      'Ich kann das nicht erstatten.',
    );
    expect(refusal('Desculpe, não consigo reembolsar a fatura.')).toBe(
      'Desculpe, não consigo reembolsar a fatura.',
    );
  });

  it('leaves alone what the assistant cannot hear or understand, and answers that refuse nothing', () => {
    expect(refusal("Sorry, I can't hear you very well.")).toBeUndefined();
    expect(refusal("I couldn't quite catch that; I can't understand the number.")).toBeUndefined();
    expect(refusal('Scusi, non riesco a sentirla.')).toBeUndefined();
    expect(refusal('Perdone, no le entiendo.')).toBeUndefined();
    expect(refusal('Your invoice INV-7 is refunded.')).toBeUndefined();
  });

  it('names the search only when it is offered, deferred tools are not, and the turn called nothing', () => {
    const text = "Sorry, I can't refund invoices.";
    const findable = { tools };
    expect(unsearchedRefusal(text, offered('get_weather', 'find_tools'), findable, said)).toEqual({
      sentence: text,
      search: 'find_tools',
    });
    // No search offered; every deferred tool offered already; none the session may use.
    expect(unsearchedRefusal(text, offered('get_weather'), findable, said)).toBeUndefined();
    const all = offered('get_weather', 'find_tools', 'refund_invoice');
    expect(unsearchedRefusal(text, all, findable, said)).toBeUndefined();
    const none = { tools, only: new Set<string>() };
    expect(
      unsearchedRefusal(text, offered('get_weather', 'find_tools'), none, said),
    ).toBeUndefined();
    // A turn that called a tool (the weather, a search) did look.
    const called: ChatMessage[] = [
      ...said,
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c', type: 'function', function: { name: 'find_tools', arguments: '{}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c', content: 'No tool found for "refund".' },
      { role: 'assistant', content: text },
    ];
    expect(
      unsearchedRefusal(text, offered('get_weather', 'find_tools'), findable, called),
    ).toBeUndefined();
  });
});
