import { buildHttpRequest, type BuiltRequest } from './http-request-builder.js';
import {
  fillBytes,
  fillSecrets,
  maskSecrets,
  resolveSecrets,
  secretsNamedIn,
} from './tool-secrets.js';
import { validateToolDefinitions } from './tool-validation.js';

const env = {
  TOOL_SECRET_CRM: 'crm-token-123',
  TOOL_SECRET_KEY: 'k/y+1',
  TOOL_SECRET_EMPTY: '',
  LLM_API_KEY: 'sk-llm',
};

function built(def: Record<string, unknown>, args: Record<string, unknown>): BuiltRequest {
  const [tool] = validateToolDefinitions([{ name: 'crm', ...def }], 'tools.json', { env }).tools;
  const result = buildHttpRequest(tool!, args);
  if ('error' in result) throw new Error(result.error);
  return result;
}

describe('${TOOL_SECRET_*} references in HTTP tools', () => {
  it('puts the secret in headers as it is, and in the url percent-encoded', () => {
    const req = built(
      {
        url: 'https://crm.example/{id}?key=${TOOL_SECRET_KEY}',
        method: 'GET',
        headers: { Authorization: 'Bearer ${TOOL_SECRET_CRM}' },
      },
      { id: '7' },
    );
    expect(req.url).toBe('https://crm.example/7?key=k%2Fy%2B1');
    expect(req.headers).toEqual({ Authorization: 'Bearer crm-token-123' });
  });

  it('never reads a reference out of an argument, nor a placeholder out of a secret', () => {
    const req = built(
      {
        url: 'https://h/{q}',
        method: 'POST',
        headers: { 'X-Q': '{q}', 'X-K': '${TOOL_SECRET_CRM}' },
      },
      { q: '${TOOL_SECRET_CRM}', note: '${TOOL_SECRET_CRM}' },
    );
    expect(req.url).toBe('https://h/%24%7BTOOL_SECRET_CRM%7D');
    expect(req.headers['X-Q']).toBe('${TOOL_SECRET_CRM}');
    expect(req.body).toBe('{"note":"${TOOL_SECRET_CRM}"}');
    const [tool] = validateToolDefinitions(
      [{ name: 'b', url: 'https://h/', headers: { 'X-B': '${TOOL_SECRET_B}' } }],
      'tools.json',
      { env: { TOOL_SECRET_B: 'x{q}y' } },
    ).tools;
    expect(buildHttpRequest(tool!, { q: 'arg' })).toMatchObject({ headers: { 'X-B': 'x{q}y' } });
  });

  it.each([
    [
      { url: 'https://h/${LLM_API_KEY}' },
      "field 'url' refers to ${LLM_API_KEY}: only TOOL_SECRET_* environment variables and ${session.NAME} variables can be used",
    ],
    [
      { url: 'https://h/', headers: { 'X-Key': '${TOOL_SECRET_NOPE}' } },
      "field 'headers.X-Key' refers to ${TOOL_SECRET_NOPE}, which is not set in the environment",
    ],
    [
      { url: 'https://{host}/x', headers: { 'X-Key': '${TOOL_SECRET_CRM}' } },
      "field 'url' has a placeholder in its host: a tool that sends secrets must name its host",
    ],
    [
      { url: 'https://h/${session.bad-name}' },
      "field 'url' refers to ${session.bad-name}: only TOOL_SECRET_* environment variables and ${session.NAME} variables can be used",
    ],
    [
      { url: 'https://h/', headers: { 'X-Key': '${TOOL_SECRET_EMPTY}' } },
      "field 'headers.X-Key' refers to ${TOOL_SECRET_EMPTY}, which is not set in the environment",
    ],
    [
      { url: 'https://h/${}' },
      "field 'url' refers to ${}: only TOOL_SECRET_* environment variables and ${session.NAME} variables can be used",
    ],
  ])('refuses %j naming the file, the tool and the field', (def, message) => {
    expect(() => validateToolDefinitions([{ name: 'crm', ...def }], 'tools.json', { env })).toThrow(
      `tools.json: tool #0 'crm': ${message}`,
    );
  });

  it('refuses a secret whose value holds a line break, without showing it', () => {
    expect(() =>
      resolveSecrets({ url: '${TOOL_SECRET_X}' }, { TOOL_SECRET_X: 'a\r\nb: c' }),
    ).toThrow("field 'url' refers to ${TOOL_SECRET_X}, whose value holds a line break");
  });

  it('takes any character in a secret the url holds, only what a header can carry in a header', () => {
    const env = { TOOL_SECRET_X: 'clé–₂' };
    expect(resolveSecrets({ url: 'https://h/${TOOL_SECRET_X}' }, env)).toEqual(env);
    expect(() => resolveSecrets({ 'headers.Key': '${TOOL_SECRET_X}' }, env)).toThrow(
      "field 'headers.Key' refers to ${TOOL_SECRET_X}, whose value holds a character beyond Latin-1, which an HTTP header cannot carry",
    );
  });

  it("fills in a code tool's request only the secrets its own source names", () => {
    const code = 'def f(u):\n    return ces_requests.get(u, headers={"X": "${TOOL_SECRET_CRM}"})';
    const available = { env, named: secretsNamedIn(code) };
    expect([...available.named]).toEqual(['TOOL_SECRET_CRM']);
    const used: Record<string, string> = {};
    const request = {
      headers: { X: '${TOOL_SECRET_CRM}' },
      json: { list: ['${TOOL_SECRET_CRM}'] },
    };
    expect(fillSecrets(request, available, used)).toEqual({
      headers: { X: 'crm-token-123' },
      json: { list: ['crm-token-123'] },
    });
    expect(used).toEqual({ TOOL_SECRET_CRM: 'crm-token-123' });
    expect(
      fillSecrets(
        'https://h/?k=${TOOL_SECRET_KEY}',
        { env, named: new Set(['TOOL_SECRET_KEY']) },
        used,
        encodeURIComponent,
      ),
    ).toBe('https://h/?k=k%2Fy%2B1');
    // A URL the model chose, naming a secret the code does not use: refused, nothing sent.
    expect(() => fillSecrets('https://evil/?k=${TOOL_SECRET_KEY}', available, {})).toThrow(
      "${TOOL_SECRET_KEY} is not named in this tool's code, so it is not filled in",
    );
    // Named, but set to nothing: refused rather than sent empty.
    const empty = { env: { TOOL_SECRET_EMPTY: '' }, named: new Set(['TOOL_SECRET_EMPTY']) };
    expect(() => fillSecrets('${TOOL_SECRET_EMPTY}', empty, {})).toThrow(
      '${TOOL_SECRET_EMPTY} is not set in the environment',
    );
  });

  it("fills references in a body of bytes with the secret's UTF-8, the other bytes as they were", () => {
    const available = { env: { TOOL_SECRET_K: 'clé-1' }, named: new Set(['TOOL_SECRET_K']) };
    const used: Record<string, string> = {};
    const body = Buffer.concat([
      Buffer.from([0xff, 0]),
      Buffer.from('key=${TOOL_SECRET_K};'),
      Buffer.from([0xc3]),
    ]);
    const filled = Buffer.from(fillBytes(body.toString('base64'), available, used), 'base64');
    expect(filled).toEqual(
      Buffer.concat([Buffer.from([0xff, 0]), Buffer.from('key=clé-1;'), Buffer.from([0xc3])]),
    );
    expect(used).toEqual({ TOOL_SECRET_K: 'clé-1' });
    expect(() =>
      fillBytes(Buffer.from('${TOOL_SECRET_X}').toString('base64'), available, {}),
    ).toThrow("${TOOL_SECRET_X} is not named in this tool's code");
  });

  it('masks secret values, as sent or percent-encoded, in what a tool returns', () => {
    const secrets = {
      TOOL_SECRET_CRM: 'crm-token-123',
      TOOL_SECRET_KEY: 'k/y+1',
      TOOL_SECRET_S: 'ab',
    };
    expect(
      maskSecrets(
        '{"auth":"Bearer crm-token-123","url":"/7?key=k%2Fy%2B1","raw":"k/y+1","ab":1}',
        secrets,
      ),
    ).toBe('{"auth":"Bearer [secret]","url":"/7?key=[secret]","raw":"[secret]","ab":1}');
  });

  it('masks a secret a backend echoes inside a JSON string, escaped as JSON writes it', () => {
    const secrets = {
      TOOL_SECRET_KEY: 'k/y+1',
      TOOL_SECRET_Q: 'pa"ss\\word',
      TOOL_SECRET_R: 'r/"s',
    };
    // PHP's json_encode escapes "/"; any JSON writer escapes quotes and backslashes.
    expect(
      maskSecrets('{"key":"k\\/y+1","q":"pa\\"ss\\\\word","r":"r/\\"s","r2":"r\\/\\"s"}', secrets),
    ).toBe('{"key":"[secret]","q":"[secret]","r":"[secret]","r2":"[secret]"}');
  });
});
