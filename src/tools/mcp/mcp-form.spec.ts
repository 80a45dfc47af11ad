import { wantedAnswer } from '../user-question.js';
import { formQuestions, type FormField } from './mcp-form.js';

describe('formQuestions', () => {
  /** The one field's question. */
  const field = (props: Record<string, unknown>) =>
    formQuestions({ properties: props as Record<string, FormField> })?.[0];

  it('asks a field a question: nothing for a confirmation, a yes or no for a boolean', () => {
    expect(formQuestions(undefined)).toEqual([]);
    expect(formQuestions({ properties: {} })).toEqual([]);
    expect(field({ ok: { type: 'boolean' } })).toEqual({
      name: 'ok',
      label: 'ok?',
      required: false,
    });
  });

  it("asks a form's fields in its order, each by its description, title or name", () => {
    const questions = formQuestions({
      properties: {
        full_name: { type: 'string' },
        email: { type: 'string', title: 'Email', description: 'Email address', format: 'email' },
        news: { type: 'boolean', description: 'Send you our news?' },
        phone: { type: 'string' },
      },
      required: ['full_name', 'email'],
    });
    expect(questions?.map(({ name, label, required }) => [name, label, required])).toEqual([
      ['full_name', 'full name?', true],
      ['email', 'Email address?', true],
      ['news', 'Send you our news?', false],
      ['phone', 'phone?', false],
    ]);
    expect(questions?.[1]?.wanted).toMatchObject({ type: 'text', format: 'email' });
    expect(questions?.[1]?.wanted?.optional).toBeUndefined();
    expect(questions?.[3]?.wanted?.optional).toBe(true);
    expect(questions?.[2]?.wanted).toBeUndefined();
  });

  it('asks for choices to tick, titled by anyOf or their values, within minItems and maxItems', () => {
    const tick = (items: unknown) =>
      field({ tags: { type: 'array', items, minItems: 1, maxItems: 2 } })?.wanted;
    expect(tick({ type: 'string', enum: ['news', 'offers'] })).toMatchObject({
      type: 'choices',
      choices: [
        { value: 'news', title: 'news' },
        { value: 'offers', title: 'offers' },
      ],
      minItems: 1,
      maxItems: 2,
    });
    expect(tick({ anyOf: [{ const: 'n', title: 'News' }] })).toMatchObject({
      choices: [{ value: 'n', title: 'News' }],
    });
    expect(tick({ type: 'string' })).toBeUndefined();
  });

  it('asks nothing of a field of another kind, or of a form of more than 20 fields', () => {
    expect(formQuestions({ properties: { tags: { type: 'array' } } })).toBeUndefined();
    expect(formQuestions({ properties: { at: { type: 'object' } } })).toBeUndefined();
    const many = Object.fromEntries(
      Array.from({ length: 21 }, (_, i) => [`f${i}`, { type: 'string' }]),
    );
    expect(formQuestions({ properties: many })).toBeUndefined();
  });

  it('wants a text, a number or a choice (titled by oneOf, enumNames, or its values)', () => {
    expect(field({ name: { type: 'string', maxLength: 40 } })?.wanted).toMatchObject({
      type: 'text',
      maxLength: 40,
    });
    expect(field({ n: { type: 'integer', minimum: 1, maximum: 8 } })?.wanted).toMatchObject({
      type: 'integer',
      minimum: 1,
      maximum: 8,
    });
    const choices = (props: Record<string, unknown>) =>
      (field(props)?.wanted as { choices?: unknown }).choices;
    expect(
      choices({
        size: {
          type: 'string',
          oneOf: [
            { const: 's', title: 'Small' },
            { const: 'l', title: 'Large' },
          ],
        },
      }),
    ).toEqual([
      { value: 's', title: 'Small' },
      { value: 'l', title: 'Large' },
    ]);
    expect(
      choices({ size: { type: 'string', enum: ['s', 'l'], enumNames: ['Small', 'Large'] } }),
    ).toEqual([
      { value: 's', title: 'Small' },
      { value: 'l', title: 'Large' },
    ]);
    expect(choices({ size: { type: 'string', enum: ['small'] } })).toEqual([
      { value: 'small', title: 'small' },
    ]);
  });

  it("offers a field's default, a choice's by its title", () => {
    const size = field({
      size: { type: 'string', oneOf: [{ const: 'l', title: 'Large' }], default: 'l' },
    })!.wanted!;
    expect(size.default).toBe('l');
    expect(wantedAnswer(size)).toMatchObject({ default: 'Large' });
  });

  it("checks an answer as the server will (the SDK's formats)", () => {
    const email = field({ to: { type: 'string', format: 'email' } })!.wanted!;
    expect(email.optional).toBeUndefined();
    expect(email.check!('ada@example.com')).toBeUndefined();
    expect(email.check!('ada at example')).toMatch(/must match format "email"/);
    const date = field({ on: { type: 'string', format: 'date' } })!.wanted!;
    expect(date.check!('2026-12-24')).toBeUndefined();
    expect(date.check!('Christmas Eve')).toMatch(/format "date"/);
  });
});
