import { uniqueName } from './tool-names.js';

describe('uniqueName', () => {
  it('makes a tool name of any text, each once', () => {
    const made = new Set<string>();
    const names = ['orders.cancel', 'get weather', '', '', 'x'.repeat(70), 'x'.repeat(70)].map(
      (wanted) => uniqueName(wanted, made),
    );
    expect(names).toEqual([
      'orders_cancel',
      'get_weather',
      // A server's tool named "" (MCP's schema allows it): a name the model can call.
      'tool',
      'tool_2',
      'x'.repeat(64),
      `${'x'.repeat(62)}_2`,
    ]);
    for (const name of names) expect(name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});
