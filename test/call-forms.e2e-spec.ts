import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * A call the model wrote another way than its tool's definition: a value of an `enum` in another
 * case ("Dinner", "dine in" for `dine_in`), a nested list or object encoded once more as its
 * JSON text, the tool's name or an argument's joined another way (`bookTable`, `Meal`), a call in
 * gpt-oss's Harmony markup or as Gemma's `tool_code`; and a placeholder for a value
 * (`"<city>"`) or a date written otherwise (`"tomorrow"`), which are refused where they were
 * sent. The backend gets what the model
 * meant in the same round, where the call was refused (or, for a list, sent as one item, the
 * text) and the model sent back to call again, a round more: a second or more of a voice turn.
 */
describe('a call written another way', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
      {
        name: 'book_table',
        url: `${base}/book?meal={meal}&seating={seating}`,
        method: 'GET',
        parameters: {
          type: 'object',
          properties: {
            meal: { type: 'string', enum: ['lunch', 'dinner'] },
            seating: { type: 'string', enum: ['dine_in', 'terrace'] },
          },
          required: ['meal', 'seating'],
        },
      },
      {
        name: 'free_tables',
        url: `${base}/tables?day={day}`,
        method: 'GET',
        parameters: {
          type: 'object',
          properties: { day: { type: 'string', format: 'date' } },
          required: ['day'],
        },
      },
      {
        name: 'add_extras',
        url: `${base}/extras`,
        method: 'POST',
        parameters: {
          type: 'object',
          properties: {
            extras: {
              type: 'array',
              items: { type: 'string', enum: ['wifi', 'meal', 'extra_bag'] },
            },
            seats: { type: 'array', items: { type: 'integer' } },
          },
          required: ['extras'],
        },
      },
      {
        name: 'place_order',
        url: `${base}/orders`,
        method: 'POST',
        parameters: {
          type: 'object',
          properties: {
            items: {
              type: 'array',
              items: {
                type: 'object',
                properties: { name: { type: 'string' }, qty: { type: 'integer' } },
                required: ['name'],
              },
            },
            delivery: {
              type: 'object',
              properties: { city: { type: 'string' }, express: { type: 'boolean' } },
            },
            note: { type: 'string' },
          },
          required: ['items'],
        },
      },
    ]),
  }));
  const client = useClientPerTest(rig);
  const call = (name: string, args: Record<string, unknown>) =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name, arguments: args }]),
      sseText(['Done.']),
    );
  const modelRead = () => rig.llm.requests[1]!.body.messages.at(-1).content as string;

  it("reaches the backend with the enum's own value", async () => {
    call('book_table', { meal: 'Dinner', seating: 'Dine In' });
    await client.ws.turn('Dinner, inside.');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/book?meal=dinner&seating=dine_in']);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it("reaches the backend with an argument's name written another way", async () => {
    call('book_table', { Meal: 'dinner', SEATING: 'terrace' });
    await client.ws.turn('Dinner outside.');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/book?meal=dinner&seating=terrace']);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('is refused, naming the argument, when a value is none of its enum', async () => {
    call('book_table', { meal: 'Brunch', seating: 'terrace' });
    await client.ws.turn('Brunch outside.');
    expect(rig.tools.requests).toEqual([]);
    expect(modelRead()).toBe(
      'Error: tool request failed: invalid arguments: arguments/meal must be equal to one of the allowed values',
    );
  });

  it('reaches the backend with the list and the object written as their text', async () => {
    call('place_order', {
      items: '[{"name": "milk", "qty": 2}, {"name": "bread"}]',
      delivery: "{'city': 'Rome', 'express': 'True'}",
      note: '{"leave": "at the door"}',
    });
    await client.ws.turn('Two milks and a bread, express to Rome.');
    expect(rig.tools.requests.map((r) => JSON.parse(r.body))).toEqual([
      {
        items: [{ name: 'milk', qty: 2 }, { name: 'bread' }],
        delivery: { city: 'Rome', express: true },
        note: '{"leave": "at the door"}',
      },
    ]);
    expect(rig.llm.requests).toHaveLength(2);
    expect(modelRead()).toBe('ok');
  });

  it('reaches the backend with the list written as its items joined by commas', async () => {
    call('add_extras', { extras: 'WiFi, extra bag', seats: '12, 14' });
    await client.ws.turn('Wi-Fi and a bag for seats 12 and 14.');
    expect(rig.tools.requests.map((r) => JSON.parse(r.body))).toEqual([
      { extras: ['wifi', 'extra_bag'], seats: [12, 14] },
    ]);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('leaves out an optional argument given as "None", where it takes no string', async () => {
    call('place_order', { items: [{ name: 'milk' }], delivery: 'None' });
    await client.ws.turn('Milk, I will collect it.');
    expect(rig.tools.requests.map((r) => JSON.parse(r.body))).toEqual([
      { items: [{ name: 'milk' }] },
    ]);
  });

  it('is refused, naming the argument, when the text is not the value asked for', async () => {
    call('place_order', { items: '[{"qty": 2}]' });
    await client.ws.turn('Two of something.');
    expect(rig.tools.requests).toEqual([]);
    expect(modelRead()).toBe(
      "Error: tool request failed: invalid arguments: arguments/items/0 must have required property 'name'",
    );
  });

  it("is refused when an argument is a placeholder, the parameter's name in brackets", async () => {
    call('place_order', { items: [{ name: 'milk' }], delivery: { city: '<city>' } });
    await client.ws.turn('Milk, delivered.');
    expect(rig.tools.requests).toEqual([]);
    expect(modelRead()).toBe(
      'Error: tool request failed: invalid arguments: arguments/delivery/city is "<city>", a placeholder, not a value (ask the user for it if you do not know it)',
    );
  });

  it('is refused, telling the form, when a date is written otherwise', async () => {
    call('free_tables', { day: 'tomorrow' });
    await client.ws.turn('Any table tomorrow?');
    expect(rig.tools.requests).toEqual([]);
    expect(modelRead()).toBe(
      'Error: tool request failed: invalid arguments: arguments/day must match format "date" (a day of the calendar, YYYY-MM-DD)',
    );
  });

  it("runs the tool a name joined another way means, under the tool's own name", async () => {
    call('functions.bookTable', { meal: 'lunch', seating: 'terrace' });
    const events = await client.ws.turn('Lunch on the terrace.');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/book?meal=lunch&seating=terrace']);
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({ name: 'book_table' });
    const [assistant, result] = rig.llm.requests[1]!.body.messages.slice(-2);
    expect(assistant.tool_calls[0].function.name).toBe('book_table');
    expect(result).toMatchObject({ role: 'tool', content: 'ok' });
  });

  it("runs gpt-oss's call written in Harmony markup (a server without its parser), speaking none of it", async () => {
    rig.llm.enqueue(
      sseText([
        '<|channel|>analysis<|message|>Tomorrow is 2026-12-06.<|end|><|start|>assistant',
        '<|channel|>commentary to=functions.free_tables <|constrain|>json<|message|>{"day":',
        ' "2026-12-06"}<|call|>',
      ]),
      sseText(['<|channel|>final<|message|>Two tables', ' are free.<|return|>']),
    );
    const events = await client.ws.turn('Any table tomorrow?');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/tables?day=2026-12-06']);
    const spoken = events.flatMap((e) => (e.type === 'assistant_delta' ? [e.text] : []));
    expect(spoken.join('')).toBe('Two tables are free.');
    const [assistant, result] = rig.llm.requests[1]!.body.messages.slice(-2);
    expect(assistant.tool_calls[0].function).toEqual({
      name: 'free_tables',
      arguments: '{"day":"2026-12-06"}',
    });
    expect(JSON.stringify(assistant)).not.toContain('<|');
    expect(result).toMatchObject({ role: 'tool', content: 'ok' });
  });

  it("runs Gemma's call written as code in a tool_code fence, speaking none of it", async () => {
    rig.llm.enqueue(
      sseText(['```tool', '_code\nprint(default_api.free_tables(day="2026-', '12-06"))\n``', '`']),
      sseText(['Two tables are free.']),
    );
    const events = await client.ws.turn('Any table tomorrow?');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/tables?day=2026-12-06']);
    const spoken = events.flatMap((e) => (e.type === 'assistant_delta' ? [e.text] : []));
    expect(spoken.join('')).toBe('Two tables are free.');
    expect(rig.llm.requests[1]!.body.messages.at(-2).tool_calls[0].function.name).toBe(
      'free_tables',
    );
  });

  it("keeps the id Kimi K2 writes for its call, the only place its template shows the call's name", async () => {
    const kimi = (index: number) =>
      sseText([
        '<|tool_calls_section_begin|><|tool_call_begin|>functions.free_tables:',
        `${index}<|tool_call_argument_begin|>{"day": "2026-12-06"}<|tool_call_end|>`,
        '<|tool_calls_section_end|>',
      ]);
    rig.llm.enqueue(kimi(0), sseText(['Two tables are free.']));
    const events = await client.ws.turn('Any table tomorrow?');
    expect(events.find((e) => e.type === 'tool_call')).toMatchObject({
      id: 'functions.free_tables:0',
      name: 'free_tables',
    });
    const [assistant, result] = rig.llm.requests[1]!.body.messages.slice(-2);
    expect(assistant.tool_calls[0].id).toBe('functions.free_tables:0');
    expect(result.tool_call_id).toBe('functions.free_tables:0');
    // The same id written again in a later turn is another call's: it gets an id of its own.
    rig.llm.enqueue(kimi(0), sseText(['Still free.']));
    const again = await client.ws.turn('And now?');
    expect(again.find((e) => e.type === 'tool_call')!.id).not.toBe('functions.free_tables:0');
  });

  it('answers "unknown tool" for a name that means no tool', async () => {
    call('reserve', { meal: 'lunch', seating: 'terrace' });
    await client.ws.turn('Lunch on the terrace.');
    expect(rig.tools.requests).toEqual([]);
    expect(modelRead()).toBe("Error: unknown tool 'reserve'");
  });
});
