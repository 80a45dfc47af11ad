import { redactedHistory, redactor } from './redaction.js';

const all = redactor({
  kinds: ['card', 'iban', 'email', 'phone'],
  patterns: [/ACC-\d{6}/gu],
  phoneCountry: 'US',
})!;

describe('redactor', () => {
  it('redacts card numbers that pass the Luhn check, however grouped; not other numbers', () => {
    expect(all('card 4111 1111 1111 1111, or 4111-1111-1111-1111 or 378282246310005')).toBe(
      'card [card], or [card] or [card]',
    );
    // 16 digits failing the check (an order number): left as it is.
    expect(all('order 1234 5678 9012 3456')).toBe('order 1234 5678 9012 3456');
  });

  it("redacts valid IBANs, e-mail addresses, phone numbers and the administrator's patterns", () => {
    expect(all('IBAN DE89 3704 0044 0532 0130 00; bad DE89 3704 0044 0532 0130 01')).toBe(
      'IBAN [iban]; bad DE89 3704 0044 0532 0130 01',
    );
    // Words after it, which the pattern runs on into, are kept.
    expect(all('to DE89 3704 0044 0532 0130 00 please, or GB82WEST12345698765432 today')).toBe(
      'to [iban] please, or [iban] today',
    );
    expect(all('write to ada.l+x@example.co.uk or zoë@exämple.de')).toBe(
      'write to [email] or [email]',
    );
    expect(all('call +39 06 1234 5678 or (213) 373-4253; room 12')).toBe(
      'call [phone] or [phone]; room 12',
    );
    expect(all('account ACC-123456, not ACC-12')).toBe('account [redacted], not ACC-12');
  });

  it('redacts only the kinds asked for, and is none when none is', () => {
    const cards = redactor({ kinds: ['card'], patterns: [] })!;
    expect(cards('4111111111111111 ada@example.com +39 06 1234 5678')).toBe(
      '[card] ada@example.com +39 06 1234 5678',
    );
    // Without a country, a number written without its code is not taken for a phone's.
    const phones = redactor({ kinds: ['phone'], patterns: [] })!;
    expect(phones('+39 06 1234 5678 or (213) 373-4253')).toBe('[phone] or (213) 373-4253');
    expect(redactor({ kinds: [], patterns: [] })).toBeUndefined();
  });
});

describe('redactedHistory', () => {
  it("redacts messages' text and calls' arguments in a copy, the model's history untouched", () => {
    const history = [
      { role: 'user', content: 'I am ada@example.com' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'find', arguments: '{"email":"ada@example.com"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Ada, card 4111111111111111' },
    ];
    const before = JSON.stringify(history);
    expect(redactedHistory(history, all)).toEqual([
      { role: 'user', content: 'I am [email]' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'c1',
            type: 'function',
            function: { name: 'find', arguments: '{"email":"[email]"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Ada, card [card]' },
    ]);
    expect(JSON.stringify(history)).toBe(before);
    expect(redactedHistory(history, undefined)).toEqual(history);
  });
});
