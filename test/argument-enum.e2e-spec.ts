import { sseStructuredCalls, sseText } from './support/fake-llm.js';
import { writeToolsFile } from './support/tools-file.js';
import { useClientPerTest, useEngineRig } from './support/turn-harness.js';

/**
 * A value of an `enum` the model wrote in another case, or with a space for `_` ("Dinner",
 * "dine in"): the backend gets the enum's own value at once, where the model was sent back to
 * call again, a round more (a second or more of a voice turn).
 */
describe('a value of an enum written another way', () => {
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
    ]),
  }));
  const client = useClientPerTest(rig);
  const book = (args: Record<string, unknown>) =>
    rig.llm.enqueue(
      sseStructuredCalls([{ id: 'call_1', name: 'book_table', arguments: args }]),
      sseText(['Done.']),
    );

  it("reaches the backend as the enum's own value, in the same round", async () => {
    book({ meal: 'Dinner', seating: 'Dine In' });
    await client.ws.turn('Dinner, inside.');
    expect(rig.tools.requests.map((r) => r.url)).toEqual(['/book?meal=dinner&seating=dine_in']);
    expect(rig.llm.requests).toHaveLength(2);
  });

  it('is refused, naming the argument, when it is no value of the enum', async () => {
    book({ meal: 'Brunch', seating: 'terrace' });
    await client.ws.turn('Brunch outside.');
    expect(rig.tools.requests).toEqual([]);
    expect(rig.llm.requests[1]!.body.messages.at(-1).content).toBe(
      'Error: tool request failed: invalid arguments: arguments/meal must be equal to one of the allowed values',
    );
  });
});
