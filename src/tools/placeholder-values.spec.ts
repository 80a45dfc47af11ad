import { isPlaceholder, placeholderIn } from './placeholder-values.js';
import { argumentProblem } from './argument-check.js';

describe('placeholders for values', () => {
  it("are a template's brackets around the parameter's name, a part of it, or words naming it", () => {
    for (const [value, name] of [
      ['<city>', 'city'],
      ['{customer_name}', 'customerName'],
      ['{{ phone }}', 'phone_number'],
      ['${date}', 'date'],
      ['[phone number]', 'to'],
      ['{{first_name}}', 'message'],
      ['[[Name]]', 'name'],
      ["<the user's name>", 'name'],
      ['<your email>', 'recipient'],
      ['[INSERT DATE]', 'when'],
      ['<value>', 'x'],
      [' <city> ', 'city'],
    ])
      expect([value, name, isPlaceholder(value!, name!)]).toEqual([value, name, true]);
  });

  it('are not values that merely have brackets, nor brackets around other words', () => {
    for (const [value, name] of [
      ['Rome', 'city'],
      ['<b>Rome</b>', 'city'],
      ['[laughs]', 'message'],
      ['{{first_name}}, your table is ready', 'message'],
      ['<Rome>', 'city'],
      ['[]', 'items'],
      ['{}', 'filter'],
      ['(city)', 'city'],
      ['<to>', 'phone'],
      // JSON written as text: data, whatever words it holds.
      ['[["get_weather", {"city": "Rome"}]]', 'calls'],
      ['["phone number"]', 'fields'],
      ['{"name": "Ada"}', 'filter'],
    ])
      expect([value, name, isPlaceholder(value!, name!)]).toEqual([value, name, false]);
  });

  it('are found at any depth, an item of a list taken for its list', () => {
    expect(placeholderIn({ city: 'Rome', guest: { name: '<name>' } })).toEqual({
      path: 'arguments/guest/name',
      value: '<name>',
    });
    expect(placeholderIn({ emails: ['a@b.c', '[email]'] })).toEqual({
      path: 'arguments/emails/1',
      value: '[email]',
    });
    expect(placeholderIn({ city: 'Rome', days: 3, emails: ['a@b.c'] })).toBeUndefined();
  });

  it('refuse the call, telling the model what to do', () => {
    expect(argumentProblem({ type: 'object' }, { to: '+3912345', body: 'Hi {{ body }}' })).toBe(
      undefined,
    );
    expect(argumentProblem(undefined, { to: '[phone number]', body: 'Hi' })).toBe(
      'invalid arguments: arguments/to is "[phone number]", a placeholder, not a value (ask the user for it if you do not know it)',
    );
  });
});
