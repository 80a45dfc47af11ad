import { withoutUnusedDefs } from './unused-defs.js';

const text = { type: 'object', properties: { content: { type: 'string' } } };

describe('withoutUnusedDefs', () => {
  it('leaves out the shared schemas nothing refers to, keeping those reached through others', () => {
    // As Notion's MCP server lists `API-get-self`: every shared schema of its API, for a tool of none.
    const schema = {
      type: 'object',
      properties: { title: { type: 'array', items: { $ref: '#/$defs/richText' } } },
      $defs: {
        richText: { type: 'object', properties: { text: { $ref: '#/$defs/text' } } },
        text,
        parent: { type: 'object', properties: { page_id: { type: 'string' } } },
      },
    };
    const pruned = withoutUnusedDefs(schema);
    expect(pruned).toEqual({
      type: 'object',
      properties: schema.properties,
      $defs: { richText: schema.$defs.richText, text },
    });
    expect(Object.keys(schema.$defs)).toEqual(['richText', 'text', 'parent']);
  });

  it('drops the keyword when nothing is used, for `definitions` too', () => {
    const schema = { type: 'object', properties: {}, definitions: { text }, $defs: { text } };
    expect(withoutUnusedDefs(schema)).toEqual({ type: 'object', properties: {} });
  });

  it('follows pointers into an entry, escaped names and recursion', () => {
    const schema = {
      type: 'object',
      properties: {
        a: { $ref: '#/definitions/a~1b/properties/content' },
        b: { $ref: '#/$defs/with%20space' },
        node: { $ref: '#/$defs/Node' },
      },
      definitions: { 'a/b': text, unused: text },
      $defs: {
        'with space': text,
        Node: { type: 'object', properties: { children: { items: { $ref: '#/$defs/Node' } } } },
      },
    };
    const pruned = withoutUnusedDefs(schema);
    expect(Object.keys(pruned.definitions as object)).toEqual(['a/b']);
    expect(Object.keys(pruned.$defs as object)).toEqual(['with space', 'Node']);
  });

  it('is the very schema when every entry is used, or when it cannot tell', () => {
    const used = { properties: { t: { $ref: '#/$defs/text' } }, $defs: { text } };
    expect(withoutUnusedDefs(used)).toBe(used);
    const none = { type: 'object', properties: { t: { type: 'string' } } };
    expect(withoutUnusedDefs(none)).toBe(none);
    const cannot = [
      { properties: { t: { $ref: 'common.json#/$defs/text' } }, $defs: { text } },
      { properties: { t: { $ref: '#/$defs' } }, $defs: { text } },
      { properties: { t: { $ref: '#/$defs/bad%' } }, $defs: { text } },
      { properties: { t: { $ref: '#text' } }, $defs: { text: { ...text, $anchor: 'text' } } },
      { $id: 'https://example.com/s', properties: {}, $defs: { text } },
      { properties: { t: { $dynamicRef: '#node' } }, $defs: { text } },
    ];
    for (const schema of cannot) expect(withoutUnusedDefs(schema)).toBe(schema);
  });
});
