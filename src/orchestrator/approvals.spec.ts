import { confirmPrompt } from './approvals.js';

describe('confirmPrompt', () => {
  it('fills each {param} with the argument: text as it is, other values as JSON', () => {
    expect(
      confirmPrompt('Pay {amount} {currency} to {to}, tags {tags}?', {
        amount: 40.5,
        currency: 'EUR',
        to: 'Ada Lovelace',
        tags: ['rent'],
      }),
    ).toBe('Pay 40.5 EUR to Ada Lovelace, tags ["rent"]?');
  });

  it('leaves out a placeholder without an argument, and the space before it', () => {
    expect(confirmPrompt('Delete item {id} {note}?', { id: '5', note: null })).toBe(
      'Delete item 5?',
    );
    expect(confirmPrompt('Send it to {to}.', {})).toBe('Send it to.');
    expect(confirmPrompt('{who} approves the refund of order {id}', { id: 7 })).toBe(
      'approves the refund of order 7',
    );
    expect(confirmPrompt('Refund order {id} {why}', { id: 7 })).toBe('Refund order 7');
  });

  it('never reads an inherited property as an argument', () => {
    expect(confirmPrompt('Call {constructor} now', {})).toBe('Call now');
  });
});
