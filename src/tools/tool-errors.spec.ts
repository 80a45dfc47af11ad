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
