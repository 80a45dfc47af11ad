import { parseRedaction } from './redaction-env.js';

describe('parseRedaction', () => {
  it('takes the kinds, the patterns and the phone country', () => {
    expect(parseRedaction({})).toEqual({ kinds: [], patterns: [] });
    const parsed = parseRedaction({
      REDACT_KINDS: ' Card, email,card ',
      REDACT_PATTERNS: '["ACC-\\\\d{6}"]',
      REDACT_PHONE_COUNTRY: 'it',
    });
    expect(parsed).toEqual({
      kinds: ['card', 'email'],
      patterns: [/ACC-\d{6}/gu],
      phoneCountry: 'IT',
    });
  });

  it('stops start-up naming the variable and what it takes', () => {
    expect(() => parseRedaction({ REDACT_KINDS: 'card,ssn' })).toThrow(
      'REDACT_KINDS="card,ssn" is invalid: "ssn" is none of card, iban, email, phone (comma-separated)',
    );
    expect(() => parseRedaction({ REDACT_PATTERNS: 'ACC-1' })).toThrow(
      'REDACT_PATTERNS is invalid: expected a JSON array of regular expressions as strings',
    );
    expect(() => parseRedaction({ REDACT_PATTERNS: '["ok", "("]' })).toThrow(
      /^REDACT_PATTERNS is invalid: its pattern #1 "\(" is not a regular expression: /,
    );
    expect(() => parseRedaction({ REDACT_PHONE_COUNTRY: 'XX' })).toThrow(
      'REDACT_PHONE_COUNTRY="XX" is invalid: expected a two-letter country code (ISO 3166-1: US, IT, DE…)',
    );
  });
});
