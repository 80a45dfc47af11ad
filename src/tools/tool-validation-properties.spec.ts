import fc from 'fast-check';
import { ToolDefinitionError } from './definition-error.js';
import { validateToolDefinitions } from './tool-validation.js';
import { definition } from '../../test/support/tool-definition-arbitrary.js';

describe('validateToolDefinitions over any definitions', () => {
  it('takes a set, or refuses it naming the file and the tool, never fails otherwise', () => {
    const outcomes = new Set<string>();
    fc.assert(
      fc.property(fc.array(definition, { minLength: 1, maxLength: 3 }), (definitions) => {
        try {
          validateToolDefinitions(definitions, 'tools.json');
          outcomes.add('taken');
        } catch (error) {
          expect(error).toBeInstanceOf(ToolDefinitionError);
          expect((error as Error).message).toMatch(/^tools\.json: (tool #\d|duplicate)/);
          outcomes.add('refused');
        }
      }),
      { numRuns: 2000 },
    );
    expect([...outcomes].sort()).toEqual(['refused', 'taken']);
  });
});
