import { checkHandoffs, handOff, handoffTool } from './handoff-tool.js';
import type { Tool } from './tool-definition.js';

const tool = (name: string, extra: Partial<Tool> = {}) => ({ name, ...extra }) as Tool;

describe('handoff tools', () => {
  it('name the assistant by `agent`, else by the tool, with no instructions or tools of their own by default', () => {
    expect(handoffTool({ type: 'handoff', name: 'to_billing', agent: 'billing' }).handoff).toEqual({
      name: 'billing',
      instructions: '',
    });
    expect(
      handoffTool({ type: 'handoff', name: 'to_x', instructions: 'Be X.', tools: ['a'] }).handoff,
    ).toEqual({ name: 'to_x', instructions: 'Be X.', tools: ['a'] });
  });

  it("take the tools of the set, and those an MCP entry's prefix will make", () => {
    const set = [
      tool('a'),
      tool('crm', { mcpGroup: { tools: '*', prefix: 'crm_' } }),
      tool('h', { handoff: { name: 'h', instructions: '', tools: ['a', 'crm_lookup', 'h'] } }),
    ];
    expect(() => checkHandoffs(set, 'tools.json')).not.toThrow();
    set[2]!.handoff!.tools = ['a', 'b', 'crx_lookup'];
    expect(() => checkHandoffs(set, 'tools.json')).toThrow(
      "tools.json: tool #2 'h': field 'tools' names 'b', 'crx_lookup', which the set has no tool of",
    );
  });

  it('say so when called where there is no conversation (an admin trying the tool)', () => {
    const billing = handoffTool({ type: 'handoff', name: 'to_billing' });
    expect(handOff({ id: '1', name: 'to_billing', args: {} } as never, billing)).toEqual({
      ok: false,
      text: 'Error: there is no conversation to hand over here (no session)',
    });
  });
});
