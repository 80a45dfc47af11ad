import { agentNameOf, checkHandoffs, handOff, handoffTool } from './handoff-tool.js';
import type { Tool } from './tool-definition.js';
import { validateToolDefinitions } from './tool-validation.js';

const tool = (name: string, extra: Partial<Tool> = {}) => ({ name, ...extra }) as Tool;

describe('handoff tools', () => {
  it('name the assistant by `agent`, else after the tool, with no instructions or tools of their own by default', () => {
    expect(
      handoffTool({ type: 'handoff', name: 'to_billing', agent: 'billing' }, 0, 'tools.json')
        .handoff,
    ).toEqual({
      via: 'to_billing',
      name: 'billing',
      instructions: '',
    });
    expect(
      handoffTool(
        { type: 'handoff', name: 'to_x', instructions: 'Be X.', tools: ['a'] },
        0,
        'tools.json',
      ).handoff,
    ).toEqual({ via: 'to_x', name: 'x', instructions: 'Be X.', tools: ['a'] });
    expect(
      ['to_front_desk', 'transfer_to_sales', 'handoff_to_billing', 'billing', 'to_', '_'].map(
        agentNameOf,
      ),
    ).toEqual(['front desk', 'sales', 'billing', 'billing', 'to', '_']);
  });

  it("take the tools of the set, and those an MCP entry's prefix will make", () => {
    const set = [
      tool('a'),
      tool('crm', { mcpGroup: { tools: '*', prefix: 'crm_' } }),
      tool('h', {
        handoff: { via: 'h', name: 'h', instructions: '', tools: ['a', 'crm_lookup', 'h'] },
      }),
    ];
    expect(() => checkHandoffs(set, 'tools.json')).not.toThrow();
    set[2]!.handoff!.tools = ['a', 'b', 'crx_lookup'];
    expect(() => checkHandoffs(set, 'tools.json')).toThrow(
      "tools.json: tool #2 'h': field 'tools' names 'b', 'crx_lookup', which the set has no tool of",
    );
    // An entry for all of a server's tools with no prefix may make any name.
    set[1]!.mcpGroup = { tools: '*', prefix: '' };
    expect(() => checkHandoffs(set, 'tools.json')).not.toThrow();
  });

  it("say what their tools must be, not what an MCP entry's are", () => {
    const set = [{ type: 'handoff', name: 'to_x', tools: 'all' }];
    expect(() => validateToolDefinitions(set, 'tools.json')).toThrow(
      "tools.json: tool #0 'to_x': field 'tools' is invalid: expected an array of the names of the set's tools the assistant may use, each once",
    );
  });

  it("keep the assistant's own phrases, and say which of them is wrong", () => {
    const phrases = { wait: ['Let me check your account.', 'One moment, please.'], idle: '' };
    const def = { type: 'handoff', name: 'to_billing', phrases };
    expect(validateToolDefinitions([def], 'tools.json').tools[0]!.handoff!.phrases).toEqual({
      wait: { '*': ['Let me check your account.', 'One moment, please.'] },
      idle: { '*': '' },
    });
    expect(() =>
      validateToolDefinitions([{ ...def, phrases: { wait: [] } }], 'tools.json'),
    ).toThrow(
      /^tools.json: tool #0 'to_billing': field 'phrases' is invalid: "phrases.wait" must be a phrase/,
    );
    expect(() =>
      validateToolDefinitions([{ ...def, phrases: 'One moment.' }], 'tools.json'),
    ).toThrow(/^tools.json: tool #0 'to_billing': field 'phrases' is invalid/);
  });

  it('say so when called where there is no conversation (an admin trying the tool)', () => {
    const billing = handoffTool({ type: 'handoff', name: 'to_billing' }, 0, 'tools.json');
    expect(handOff({ id: '1', name: 'to_billing', args: {} } as never, billing)).toEqual({
      ok: false,
      text: 'Error: there is no conversation to hand over here (no session)',
    });
  });
});
