import { mcpResultText } from './mcp-result.js';

describe('mcpResultText', () => {
  it('joins text items, notes binary content, and links by URI', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'text', text: 'Order 42: shipped' },
          { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
          { type: 'resource', resource: { uri: 'file:///a.txt', text: 'inline text' } },
          {
            type: 'resource',
            resource: { uri: 'file:///b', blob: 'AAAA', mimeType: 'application/pdf' },
          },
          { type: 'resource_link', uri: 'https://crm/orders/42', name: 'order' },
        ],
      }),
    ).toEqual({
      ok: true,
      text: 'Order 42: shipped\n(image/png, 8 bytes, not text)\ninline text\n(application/pdf, 3 bytes, not text)\norder: https://crm/orders/42',
    });
  });

  it('reads a resource blob of a text type as its text, in the charset the type names', () => {
    const blob = (text: string, encoding: BufferEncoding = 'utf8') =>
      Buffer.from(text, encoding).toString('base64');
    expect(
      mcpResultText({
        content: [
          { type: 'resource', resource: { blob: blob('id,total\n42,€9'), mimeType: 'text/csv' } },
          {
            type: 'resource',
            resource: { blob: blob('Café', 'latin1'), mimeType: 'text/plain; charset=iso-8859-1' },
          },
          { type: 'resource', resource: { blob: blob('{"a":1}'), mimeType: 'application/json' } },
          { type: 'resource', resource: { blob: blob('text?') } },
        ],
      }).text,
    ).toBe('id,total\n42,€9\nCafé\n{"a":1}\n(application/octet-stream, 5 bytes, not text)');
  });

  it('notes content of no stated type, of a type it does not know, and links without a name', () => {
    expect(
      mcpResultText({
        content: [
          { type: 'audio', data: 'AA==' },
          { type: 'widget' },
          { type: 'resource_link', uri: 'https://crm/orders/7' },
        ],
      }).text,
    ).toBe('(application/octet-stream, 1 bytes, not text)\n(widget content)\nhttps://crm/orders/7');
  });

  it('reads structuredContent as JSON when there is no content, and says when there is nothing', () => {
    expect(mcpResultText({ content: [], structuredContent: { temp: 21 } })).toEqual({
      ok: true,
      text: '{"temp":21}',
    });
    expect(mcpResultText({ content: [] })).toEqual({ ok: true, text: '(empty result)' });
    const deep = JSON.parse('['.repeat(50_000) + ']'.repeat(50_000)) as unknown;
    expect(mcpResultText({ content: [], structuredContent: { rows: deep } })).toEqual({
      ok: false,
      text: "Error: the tool's structured result is nested more than 100 levels deep",
    });
    // With content too (MCP asks servers to send both), the model reads the content.
    expect(
      mcpResultText({
        content: [{ type: 'text', text: 'It is 21 degrees.' }],
        structuredContent: { temp: 21 },
      }),
    ).toEqual({ ok: true, text: 'It is 21 degrees.' });
  });

  it('hands errors the tool reported to the model as Error text', () => {
    expect(
      mcpResultText({ content: [{ type: 'text', text: 'no such order' }], isError: true }),
    ).toEqual({
      ok: false,
      text: 'Error: no such order',
    });
    expect(mcpResultText({ isError: true })).toEqual({ ok: false, text: 'Error: the tool failed' });
  });
});
