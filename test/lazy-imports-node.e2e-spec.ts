import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ENGINE_NODE } from './support/built-engine.js';

/**
 * The packages the engine imports only when a feature first needs them, used as the built engine
 * uses them, in plain Node (`node`, no jest): Node's loader and jest's name a CommonJS package's
 * exports differently (jest names every property of `module.exports`, Node only those it can
 * find in the source), so a feature can pass every in-process suite and fail in production. One
 * did: every phone call's audio (the resampler).
 */
const SCRIPT = `
const out = {};
const { inbound, outbound } = await import('./dist/speech/audio-formats.js');
out.alawIn = (await inbound('g711_alaw')).convert(Buffer.alloc(1600, 0xd5)).length;
out.ulawOut = (await outbound('g711_ulaw', 24000)).convert(Buffer.alloc(9600)).length;
const { webRtcVad } = await import('./dist/speech/webrtc-vad.js');
const vad = await webRtcVad(2);
out.vad = vad.voiced(new Int16Array(320));
vad.close();
const { answerCall } = await import('./dist/orchestrator/twilio-voice.js');
out.twiml = await answerCall({ url: 'wss://engine.example.com/twilio', token: 'k', call: {} }, 'Hello.');
const { dialTwiml } = await import('./dist/orchestrator/twilio-rest.js');
out.dial = await dialTwiml('+15550100', { timeoutSecs: 30, action: 'https://engine.example.com/twilio/voice' });
const { checkTwilioSignature } = await import('./dist/orchestrator/twilio-signature.js');
out.signature = await checkTwilioSignature(
  { headers: { host: 'engine.example.com', 'x-twilio-signature': 'forged' }, url: '/twilio' },
  { authToken: 'token', sharedKey: '' },
  '',
);
const { parseToolsFile } = await import('./dist/tools/tools-file-text.js');
out.yaml = await parseToolsFile('- name: get_weather\\n  method: GET\\n', 'tools.yaml');
const { readSpec } = await import('./dist/tools/openapi/spec-source.js');
out.spec = (await readSpec(process.argv[1], 2000)).document.paths['/orders/{id}'].get.parameters[0].schema;
const { mcpSdk } = await import('./dist/tools/mcp/mcp-sdk.js');
out.mcp = Object.entries(await mcpSdk()).map(([name, value]) => name + ':' + typeof value);
const { htmlText } = await import('./dist/tools/html-text.js');
out.html = await htmlText('<title>Hours</title><p>Open <b>7&ndash;19</b></p>', 65536);
const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
out.stdio = typeof StdioClientTransport;
console.log(JSON.stringify(out));
`;

describe('lazily imported packages, in plain Node as the built engine runs', () => {
  it('each gives the engine what it takes of it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'lazy-'));
    const spec = join(dir, 'orders.yaml');
    writeFileSync(
      spec,
      [
        'openapi: 3.0.3',
        'info: {title: Orders, version: "1"}',
        'paths:',
        '  /orders/{id}:',
        '    get:',
        '      operationId: getOrder',
        '      parameters: [{name: id, in: path, required: true, schema: {$ref: "#/components/schemas/Id"}}]',
        '      responses: {"200": {description: ok}}',
        'components: {schemas: {Id: {type: string, pattern: "^O-[0-9]+$"}}}',
      ].join('\n'),
    );
    const { stdout } = await promisify(execFile)(
      ENGINE_NODE,
      ['--input-type=module', '-e', SCRIPT, spec],
      { encoding: 'utf8', timeout: 30_000 },
    );
    const out = JSON.parse(stdout) as Record<string, unknown>;
    // 0.1 s of a telephone line is 0.1 s of 16 kHz PCM (less the filter's delay), and back.
    expect(out.alawIn).toBeGreaterThan(2800);
    expect(out.ulawOut).toBeGreaterThan(700);
    expect(out.vad).toBe(false);
    expect(out.twiml).toContain('<Stream url="wss://engine.example.com/twilio">');
    expect(out.dial).toContain('<Dial');
    expect(out.signature).toMatchObject({ ok: false });
    expect(out.yaml).toEqual([{ name: 'get_weather', method: 'GET' }]);
    expect(out.spec).toEqual({ type: 'string', pattern: '^O-[0-9]+$' });
    expect(out.mcp).toEqual([
      'Client:function',
      'SSEClientTransport:function',
      'StreamableHTTPClientTransport:function',
      'StreamableHTTPError:function',
      'McpError:function',
      'CreateTaskResultSchema:object',
      'CallToolResultSchema:object',
      'ResultSchema:object',
      'ListToolsResultSchema:object',
      'ToolSchema:object',
      'LoggingMessageNotificationSchema:object',
      'ElicitRequestSchema:object',
      'CreateMessageRequestSchema:object',
    ]);
    expect(out.stdio).toBe('function');
    expect(out.html).toBe('Hours\n\nOpen 7–19');
  });
});
