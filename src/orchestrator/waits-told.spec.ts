import type { TurnEvent } from './protocol/server-events.js';
import { waitsTold } from './waits-told.js';

describe('waitsTold', () => {
  const call = { name: 'book', arguments: {} };
  const question: TurnEvent = {
    type: 'tool_question',
    id: 'q1',
    ...call,
    prompt: 'How many guests?',
    answer: { type: 'integer' },
  };
  const confirm: TurnEvent = { type: 'tool_confirm', id: 'c1', ...call, prompt: 'Book it?' };

  it('asks each call its latest question again, as first asked, until its result', () => {
    const sent: TurnEvent[] = [];
    const waits = waitsTold((event) => sent.push(event));
    waits.see(question);
    waits.see({ ...question, unclear: 'no number in "lots"' });
    waits.see(confirm);
    waits.again(['c1', 'q1', 'nope']);
    expect(sent).toEqual([confirm, question]);
    waits.see({ type: 'tool_result', id: 'q1', name: 'book', ok: true, ms: 3 });
    waits.again(['q1']);
    expect(sent).toHaveLength(2);
  });

  it('knows while calls run: from their tool_call to their tool_result', () => {
    const waits = waitsTold(() => {});
    expect(waits.calling).toBe(false);
    waits.see({ type: 'tool_call', id: 'c1', ...call });
    waits.see({ type: 'tool_call', id: 'c2', ...call });
    waits.see({ type: 'tool_result', id: 'c1', name: 'book', ok: true, ms: 3 });
    expect(waits.calling).toBe(true);
    waits.see({ type: 'tool_result', id: 'c2', name: 'book', ok: false, ms: 9 });
    expect(waits.calling).toBe(false);
  });

  it('counts no calls running once the turn has asked the user something: words may answer it', () => {
    const waits = waitsTold(() => {});
    waits.see({ type: 'assistant_delta', text: 'Booking it. ' });
    waits.see({ type: 'tool_call', id: 'c1', ...call });
    expect(waits.calling).toBe(true);
    waits.see({ type: 'assistant_delta', text: 'Breakfast too?' });
    expect(waits.calling).toBe(false);
  });

  it('says the calls still run when the user asks whether the agent is there', () => {
    const sent: TurnEvent[] = [];
    const waits = waitsTold((event) => sent.push(event));
    expect(waits.stillRunning()).toBe(false);
    waits.see({ type: 'tool_call', id: 'c1', ...call });
    expect(waits.stillRunning()).toBe(true);
    expect(sent).toEqual([{ type: 'tool_still_running', ids: ['c1'] }]);
  });

  it('tells of a hold', () => {
    const sent: TurnEvent[] = [];
    waitsTold((event) => sent.push(event)).hold(['c1', 'q1']);
    expect(sent).toEqual([{ type: 'tool_held', ids: ['c1', 'q1'] }]);
  });
});
