import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * A model that writes a nested list or object as its JSON text, encoded once more
 * (`"items": "[{\"name\": \"milk\"}]"`), as models often do: the backend gets the list itself.
 * The list so written went to the tool as a list of one item, the text; an object was refused
 * and the model sent back to call again, a round more.
 */
describe('a list or an object written as its text', () => {
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_FILE: writeToolsFile([
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
  const order = (args: Record<string, unknown>) =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'place_order', arguments: args }]),
      sseText(['Ordered.']),
    );

  it('reaches the backend as the list and the object, in the same round', async () => {
    order({
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
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe('ok');
  });

  it('is refused, naming the argument, when the text is not the value asked for', async () => {
    order({ items: '[{"qty": 2}]' });
    await client.ws.turn('Two of something.');
    expect(rig.tools.requests).toEqual([]);
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      "Error: tool request failed: invalid arguments: arguments/items/0 must have required property 'name'",
    );
  });
});
