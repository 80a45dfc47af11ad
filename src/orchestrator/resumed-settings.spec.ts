import { settingsKept } from './resumed-settings.js';
import { Session } from './session.js';
import type { SettingsLimits } from './settings-update.js';

const limits: SettingsLimits = {
  instructionsMaxChars: 100,
  toolNames: () => ['get_weather', 'book'],
  toolsOff: false,
  models: ['qwen3-8b'],
  maxSecs: 600,
  agents: () => [],
};
const defaults = new Session('en').settings;
const clientTool = {
  name: 'show_map',
  description: 'Shows a map.',
  parameters: { type: 'object', properties: {} },
};

describe('settingsKept: a resumed session under the configuration of now', () => {
  it('keeps settings this engine still takes as they were saved', () => {
    const saved = {
      ...defaults,
      model: 'qwen3-8b',
      max_secs: 300,
      tools: ['book'],
      instructions: 'Be brief.',
      language: 'it',
    };
    expect(settingsKept(saved, defaults, limits)).toEqual({ settings: saved, dropped: [] });
  });

  it('puts back a model no longer offered, a time over SESSION_MAX_SECS and instructions over their bound, saying why', () => {
    const saved = {
      ...defaults,
      model: 'llama-2',
      max_secs: 3600,
      instructions: 'x'.repeat(101),
      voice: 'alloy',
    };
    const { settings, dropped } = settingsKept(saved, defaults, limits);
    expect(settings).toEqual({ ...defaults, voice: 'alloy' });
    expect(dropped).toEqual([
      expect.stringMatching(
        /^instructions: "instructions" is longer than SESSION_INSTRUCTIONS_MAX_CHARS \(100\)/,
      ),
      expect.stringMatching(
        /^model: unknown model "llama-2" in "model": the models offered are qwen3-8b/,
      ),
      expect.stringMatching(/^max_secs: "max_secs" is over SESSION_MAX_SECS \(600\)/),
    ]);
  });

  it('keeps the session to the tools it chose that are still active', () => {
    const saved = { ...defaults, tools: ['get_weather', 'send_fax'] };
    const { settings, dropped } = settingsKept(saved, defaults, limits);
    expect(settings.tools).toEqual(['get_weather']);
    expect(dropped).toEqual(['tools send_fax: no longer active']);
  });

  it("drops the client's own tools once one is named as an active tool, or tools are off", () => {
    const own = { ...defaults, client_tools: [{ ...clientTool, name: 'book' }] };
    const { settings, dropped } = settingsKept(own, defaults, limits);
    expect(settings.client_tools).toEqual([]);
    expect(dropped).toEqual([expect.stringMatching(/^client_tools: .*book/)]);

    const off = { ...limits, toolsOff: true };
    const fine = { ...defaults, client_tools: [clientTool] };
    expect(settingsKept(fine as never, defaults, limits).dropped).toEqual([]);
    expect(settingsKept(fine as never, defaults, off).settings.client_tools).toEqual([]);
  });
});
