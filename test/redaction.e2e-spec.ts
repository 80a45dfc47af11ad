import { useBuiltEngine } from './support/built-engine.js';
import { FakeLlm, sseStructuredCalls, sseText } from './support/fake-llm.js';
import { RecordingServer } from './support/recording-server.js';
import { writeToolsFile } from './support/tools-file.js';
import { until } from './support/waiting.js';
import { WsClient } from './support/ws-client.js';

const SAID =
  'My card is 4111 1111 1111 1111, mail ada@example.com, call +39 06 1234 5678, account ACC-123456';
const REDACTED = 'My card is [card], mail [email], call [phone], account [redacted]';

/**
 * REDACT_KINDS: what operators read of users' words (the end-of-session report, `/api/sessions`, debug
 * logs) is redacted; the model and the tools get the words as said.
 */
describe('REDACT_KINDS', () => {
  const llm = new FakeLlm();
  const tools = new RecordingServer();
  const engine = useBuiltEngine(async () => {
    const base = await tools.start();
    tools.respond((_req, res) => res.end('Ada Lovelace, card 4111111111111111 on file'));
    return {
      LLM_BASE_URL: await llm.start(),
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          name: 'find_customer',
          description: 'Finds a customer by e-mail',
          parameters: {
            type: 'object',
            properties: { email: { type: 'string' } },
            required: ['email'],
          },
          url: `${base}/customers?email={email}`,
        },
      ]),
      SESSION_WEBHOOK_URL: `${base}/reports`,
      ADMIN_API_KEY: 'admin',
      LOG_LEVEL: 'debug',
      REDACT_KINDS: 'card,iban,email,phone',
      REDACT_PATTERNS: '["ACC-\\\\d{6}"]',
    };
  });
  afterAll(() => Promise.all([llm.stop(), tools.stop()]));

  it('redacts the report, the session as /api/sessions reads it and the debug logs; not what the model and tools get', async () => {
    llm.enqueue(
      sseStructuredCalls([
        { id: 'c1', name: 'find_customer', arguments: { email: 'ada@example.com' } },
      ]),
      sseText(['Found you, ada@example.com.']),
    );
    const ws = await WsClient.connect(engine().wsUrl);
    const id = ws.messages[0]!.session_id as string;
    await ws.turn(SAID);

    // The model read the words as said, the tool got the address.
    expect(llm.requests[0]!.body.messages.at(-1).content).toBe(SAID);
    expect(tools.requests[0]!.query).toEqual({ email: 'ada@example.com' });

    const read = await fetch(`${engine().url}/api/sessions/${id}`, {
      headers: { Authorization: 'Bearer admin' },
    });
    const expected = [
      { role: 'user', content: REDACTED },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          expect.objectContaining({
            function: { name: 'find_customer', arguments: '{"email":"[email]"}' },
          }),
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'Ada Lovelace, card [card] on file' },
      { role: 'assistant', content: 'Found you, [email].' },
    ];
    expect(((await read.json()) as { history: unknown }).history).toEqual(expected);

    ws.close();
    await until(() => tools.requests.some((r) => r.path === '/reports'), 'the report');
    const report = JSON.parse(tools.requests.find((r) => r.path === '/reports')!.body);
    expect(report.history).toEqual(expected);

    const output = engine().output;
    expect(output).toContain(`user text (session_id=${id}`);
    expect(output).toContain(REDACTED);
    // JSON log lines: the line's quotes escaped.
    expect(output).toContain(
      JSON.stringify('tool call find_customer {"email":"[email]"}').slice(1, -1),
    );
    for (const secret of ['4111', 'ada@example.com', '1234 5678', 'ACC-123456'])
      expect({ secret, logged: output.includes(secret) }).toEqual({ secret, logged: false });
  });
});
