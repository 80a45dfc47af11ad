import { callOnce, useEngineRig } from './support/turn-harness.js';
import { postTools, refusedTools, writeToolsFile } from './support/tools-file.js';
import { WsClient } from './support/ws-client.js';

/**
 * An HTTP tool whose `body` template writes the request as the backend wants it: the model's
 * arguments in their places, typed, beside constants and secrets; installed from the file or
 * over /api/tools alike.
 */
describe('an HTTP tool with a body template', () => {
  const bookTable = (base: string) => ({
    name: 'book_table',
    description: 'Books a table.',
    parameters: {
      type: 'object',
      properties: {
        guests: { type: 'integer' },
        time: { type: 'string' },
        note: { type: 'string' },
      },
      required: ['guests', 'time'],
    },
    url: `${base}/bookings`,
    method: 'POST',
    body: {
      restaurant: { id: 'r-17' },
      party: { size: '{guests}', at: '{time}', note: '{note}' },
      source: 'voice agent of ${TOOL_SECRET_BRAND}',
    },
  });
  const rig = useEngineRig(
    (toolsUrl) => ({
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([bookTable(toolsUrl)]),
      TOOL_SECRET_BRAND: 'Chez Nous',
    }),
    (req, res) => res.end(`${req.method} ${String(req.headers['content-type'])} ${req.body}`),
  );

  it('sends the body the template makes', async () => {
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const { read } = await callOnce(rig, ws, 'book_table', { guests: 4, time: '20:00' });
    expect(JSON.parse(rig.tools.requests.at(-1)!.body)).toEqual({
      restaurant: { id: 'r-17' },
      party: { size: 4, at: '20:00' },
      source: 'voice agent of Chez Nous',
    });
    // What the model reads of the echo never holds the secret.
    expect(read).toBe(
      'POST application/json {"restaurant":{"id":"r-17"},"party":{"size":4,"at":"20:00"},"source":"voice agent of [secret]"}',
    );
    ws.close();
  }, 30_000);

  it('is taken over /api/tools, and refused there on a GET', async () => {
    expect(
      await refusedTools(rig.engine.httpUrl, [{ ...bookTable(rig.toolsUrl), method: 'GET' }]),
    ).toContain("field 'body': a GET request carries no body");
    const tool = { ...bookTable(rig.toolsUrl), body: { size: '{guests}', when: '{time}' } };
    expect((await postTools(rig.engine.httpUrl, [tool])).status).toBe(200);
    const ws = await WsClient.connect(rig.engine.wsUrl);
    const { read } = await callOnce(rig, ws, 'book_table', {
      guests: 2,
      time: '19:30',
      note: 'window',
    });
    expect(read).toBe('POST application/json {"size":2,"when":"19:30"}');
    ws.close();
  }, 30_000);

  it('sends a multipart form of text fields when the Content-Type says so, as a form parser reads it', async () => {
    const tool = {
      name: 'send_message',
      url: `${rig.toolsUrl}/messages`,
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data' },
    };
    expect((await postTools(rig.engine.httpUrl, [tool])).status).toBe(200);
    const ws = await WsClient.connect(rig.engine.wsUrl);
    await callOnce(rig, ws, 'send_message', {
      to: ['ann@example.com', 'bo@example.com'],
      text: 'Table for 2 at 19:30 — "window"\r\nThanks',
      meta: { source: 'voice' },
    });
    const sent = rig.tools.requests.at(-1)!;
    const type = String(sent.headers['content-type']);
    expect(type).toMatch(/^multipart\/form-data; boundary=/);
    const form = await new Response(sent.body, { headers: { 'content-type': type } }).formData();
    expect([...form.entries()]).toEqual([
      ['to', 'ann@example.com'],
      ['to', 'bo@example.com'],
      ['text', 'Table for 2 at 19:30 — "window"\r\nThanks'],
      ['meta', '{"source":"voice"}'],
    ]);
    ws.close();
  }, 30_000);
});
