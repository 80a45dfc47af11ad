import { offeredSizeWarning } from './offered-size.js';
import { validateToolDefinitions } from './tool-validation.js';

/** `n` HTTP tools, each `description` long, deferred or not. */
function set(n: number, description: string, deferred = false) {
  const tools = Array.from({ length: n }, (_, i) => ({
    name: `tool_${i}`,
    description,
    url: `http://127.0.0.1:9/${i}`,
    ...(deferred && { deferred: true }),
  }));
  const search = deferred ? [{ type: 'tool_search', name: 'find' }] : [];
  return validateToolDefinitions([...search, ...tools], 't.json').tools;
}

describe('offeredSizeWarning', () => {
  it('warns of a set that offers more tools than a request takes, naming how many and how large', () => {
    expect(offeredSizeWarning(set(128, 'A tool.'), 't.json')).toBeUndefined();
    expect(offeredSizeWarning(set(129, 'A tool.'), 't.json')).toMatch(
      /^t\.json: the set offers 129 tools in every request, \d+ KiB of names, descriptions and schemas \(~\d+k tokens\): OpenAI's API takes at most 128 in a request, and each request costs the model their reading/,
    );
  });

  it('warns of a few tools whose descriptions and schemas fill a request', () => {
    const warning = offeredSizeWarning(set(10, 'Long. '.repeat(2000)), 't.json');
    expect(warning).toMatch(
      /^t\.json: the set offers 10 tools in every request, 118 KiB .*\(~30k tokens\): each request/,
    );
    expect(warning).toContain('mark those the model seldom needs "deferred": true');
  });

  it('counts only what every request offers: not the deferred tools', () => {
    expect(offeredSizeWarning(set(300, 'A tool.', true), 't.json')).toBeUndefined();
  });
});
