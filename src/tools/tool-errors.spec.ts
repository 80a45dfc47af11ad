import { toolErrors, truncateResult } from './tool-errors.js';

describe('error texts (seed §6)', () => {
  it('are exact', () => {
    expect(toolErrors.unknownTool('x')).toBe("Error: unknown tool 'x'");
    expect(toolErrors.invalidMethod('GE T', 'x')).toBe(
      "Error: invalid HTTP method 'GE T' for tool 'x'",
    );
    expect(toolErrors.httpStatus('404 Not Found', 'nope')).toBe('Error: HTTP 404 Not Found — nope');
    expect(toolErrors.requestFailed('boom')).toBe('Error: tool request failed: boom');
  });

  it("say whose rate a call was not sent for: the tool's, or its group's", () => {
    expect(toolErrors.rateLimited({ calls: 1, perMs: 60_000 }, 15)).toBe(
      'Error: tool request failed: not sent: this tool makes at most 1 call in 60s, and this one could not begin within 15s',
    );
    expect(toolErrors.rateLimited({ calls: 100, perMs: 60_000, group: 'crm' }, 2.5)).toBe(
      "Error: tool request failed: not sent: the tools of 'crm' make at most 100 calls in 60s, and this one could not begin within 2.5s",
    );
  });
});

describe('truncateResult', () => {
  it('keeps text within the limit unchanged', () => {
    expect(truncateResult('abcd', 4)).toBe('abcd');
  });
  it('cuts to the limit and adds the suffix', () => {
    expect(truncateResult('abcdef', 4)).toBe('abcd… [truncated]');
  });
  it('counts astral characters as one and never splits a surrogate pair', () => {
    expect(truncateResult('😀😀😀', 2)).toBe('😀😀… [truncated]');
    expect(truncateResult('a😀b', 2)).toBe('a😀… [truncated]');
    expect(truncateResult('😀😀', 2)).toBe('😀😀');
  });
});
