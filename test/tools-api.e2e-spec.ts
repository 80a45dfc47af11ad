import { Logger } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Engine } from './support/engine.js';
import { WsClient } from './support/ws-client.js';
import { writeToolsFile } from './support/tools-file.js';
import { buildOpenApi } from '../src/swagger.js';

const weather = {
  name: 'get_weather',
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  url: 'https://wttr.in/{city}?format=3',
  method: 'GET',
};

async function post(engine: Engine, body: string | Buffer | undefined, contentType?: string) {
  const res = await fetch(`${engine.httpUrl}/api/tools`, {
    method: 'POST',
    body,
    headers: contentType ? { 'Content-Type': contentType } : {},
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function get(engine: Engine) {
  const res = await fetch(`${engine.httpUrl}/api/tools`);
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('/api/tools (seed §2)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_TOOLS_FILE: writeToolsFile([{ name: 'from_file', url: 'http://127.0.0.1:9/x' }]),
    });
  });
  afterAll(() => engine.stop());

  it('GET reports the file definitions and their source', async () => {
    expect(await get(engine)).toEqual({
      status: 200,
      json: {
        ok: true,
        count: 1,
        source: 'file',
        tools: [{ name: 'from_file', url: 'http://127.0.0.1:9/x' }],
      },
    });
  });

  it.each([
    ['an empty body', undefined, 'application/json', /empty/],
    ['whitespace only', '  \n', 'application/json', /empty/],
    [
      'bytes that are not UTF-8',
      Buffer.from([0x5b, 0xff, 0xfe, 0x5d]),
      'application/json',
      /not valid UTF-8/,
    ],
    ['text that is not JSON', '[{"name":', 'text/plain', /not valid JSON/],
    ['a JSON object', JSON.stringify(weather), 'application/json', /expected a JSON array/],
    ['an empty array', '[]', 'application/json', /holds no tool definition/],
    [
      'a definition without url',
      JSON.stringify([{ name: 'x' }]),
      'application/json',
      /request body: tool #0 'x': field 'url' is required/,
    ],
    [
      'a response_query that is not JMESPath',
      JSON.stringify([{ ...weather, response_query: 'current[0' }]),
      'application/json',
      /request body: tool #0 'get_weather': field 'response_query' is not a valid JMESPath expression: Syntax error/,
    ],
    [
      'a duplicate name',
      JSON.stringify([weather, weather]),
      undefined,
      /tool #1 'get_weather': field 'name' duplicates tool #0/,
    ],
  ])('answers 400 for %s and changes nothing', async (_label, body, type, message) => {
    const res = await post(engine, body, type);
    expect(res.status).toBe(400);
    expect(res.json).toMatchObject({
      ok: false,
      statusCode: 400,
      message: expect.stringMatching(message),
    });
    expect((await get(engine)).json).toMatchObject({ source: 'file', count: 1 });
  });

  it('refuses a definition nested too deep to check, naming the field, and changes nothing', async () => {
    const levels = 5000;
    const parameters = `${'{"type":"array","items":'.repeat(levels)}{}${'}'.repeat(levels)}`;
    const body = `[{"name":"deep","url":"http://127.0.0.1:9/x","parameters":${parameters}}]`;
    expect(await post(engine, body, 'application/json')).toEqual({
      status: 400,
      json: {
        ok: false,
        statusCode: 400,
        message:
          "request body: tool #0 'deep': field 'parameters' is nested more than 100 levels deep",
      },
    });
    const openapi = `[{"type":"openapi","spec":"x.yaml","operation":"a","headers":${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}}]`;
    expect((await post(engine, openapi, 'application/json')).json.message).toBe(
      "request body: tool #0: field 'headers' is nested more than 100 levels deep",
    );
    expect((await get(engine)).json).toMatchObject({ source: 'file', count: 1 });
  });

  it('answers 413 for a body over 4 MiB and changes nothing', async () => {
    const res = await post(engine, Buffer.alloc(4 * 1024 * 1024 + 1, 0x20), 'application/json');
    expect(res.status).toBe(413);
    expect(res.json).toMatchObject({ ok: false, statusCode: 413 });
    expect((await get(engine)).json).toMatchObject({ source: 'file', count: 1 });
  });

  it('checks a set without installing it on ?dry_run=true, for POST and PUT', async () => {
    const dry = async (path: string, method: string, body: unknown, flag = 'dry_run=true') => {
      const res = await fetch(`${engine.httpUrl}/api/tools${path}?${flag}`, {
        method,
        body: JSON.stringify(body),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    };
    expect(await dry('', 'POST', [weather])).toEqual({
      status: 200,
      json: { ok: true, count: 1, source: 'request', tools: [weather], dry_run: true },
    });
    expect(await dry('/extra', 'PUT', { url: 'http://h/' })).toMatchObject({
      status: 200,
      json: { count: 2, dry_run: true },
    });
    const bad = await dry('', 'POST', [{ name: 'broken' }]);
    expect(bad.status).toBe(400);
    expect(bad.json.message).toContain("request body: tool #0 'broken': field 'url' is required");
    // `?dry_run` alone and `?dry_run=1` are true too; anything but true or false is refused.
    for (const flag of ['dry_run', 'dry_run=1'])
      expect((await dry('', 'POST', [weather], flag)).json).toMatchObject({ dry_run: true });
    expect(await dry('', 'POST', [weather], 'dry_run=maybe')).toEqual({
      status: 400,
      json: { ok: false, statusCode: 400, message: 'dry_run must be true or false, not "maybe"' },
    });
    // Nothing was installed.
    expect((await get(engine)).json).toMatchObject({ source: 'file', count: 1 });
    // `false` and `0` install (the next test installs an override anyway).
    for (const flag of ['dry_run=false', 'dry_run=0']) {
      const made = await dry('', 'POST', [weather], flag);
      expect(made).toEqual({
        status: 200,
        json: { ok: true, count: 1, source: 'request', tools: [weather] },
      });
    }
  });

  it('installs an override whatever the Content-Type, then GET shows source "request"', async () => {
    const res = await post(engine, JSON.stringify([weather]), 'text/plain');
    expect(res).toEqual({
      status: 200,
      json: { ok: true, count: 1, source: 'request', tools: [weather] },
    });
    expect((await get(engine)).json).toEqual({
      ok: true,
      count: 1,
      source: 'request',
      tools: [weather],
    });
  });

  it('serves Swagger UI at /docs and the document at /docs-json', async () => {
    const ui = await fetch(`${engine.httpUrl}/docs`);
    expect(ui.status).toBe(200);
    expect(await ui.text()).toContain('swagger-ui');
    const doc = (await (await fetch(`${engine.httpUrl}/docs-json`)).json()) as any;
    expect(doc.paths['/api/tools'].get).toMatchObject({ operationId: 'list', tags: ['tools'] });
    expect(doc.paths['/api/tools'].post).toMatchObject({ operationId: 'replace', tags: ['tools'] });
    expect(Object.keys(doc.paths['/api/tools'].post.responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '412',
      '413',
      '503',
    ]);
    expect(doc.paths['/api/tools'].post.parameters).toContainEqual(
      expect.objectContaining({ name: 'If-Match', in: 'header', required: false }),
    );
    expect(doc.paths['/api/tools'].get.responses['200'].headers.ETag).toBeDefined();
    // A change of one tool is made again while others overtake it, and may give up with 409.
    expect(doc.paths['/api/tools/{name}'].put.responses['409']).toBeDefined();
    expect(doc.paths['/api/tools/{name}'].delete.responses['409']).toBeDefined();
    expect(doc.components.schemas.ToolDefinitionDto.required).toEqual(['name', 'url']);
  });

  it('answers the health probe, documented in Swagger', async () => {
    const res = await fetch(`${engine.httpUrl}/health`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({
      status: 'ok',
      sessions: { open: 0, max: null },
      session_store: { kind: 'memory', connected: true },
      tools: { count: expect.any(Number), source: 'request' },
    });
    const doc = (await (await fetch(`${engine.httpUrl}/docs-json`)).json()) as any;
    expect(doc.paths['/health'].get).toMatchObject({ operationId: 'health', tags: ['health'] });
  });

  it('matches the committed openapi.json (set UPDATE_OPENAPI=1 to rewrite it)', () => {
    const current = JSON.stringify(buildOpenApi(engine.app), null, 2) + '\n';
    if (process.env.UPDATE_OPENAPI === '1') writeFileSync('openapi.json', current);
    expect(current).toBe(readFileSync('openapi.json', 'utf8'));
  });
});

describe('/api/tools with the LLM disabled', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_ENABLED: 'false' });
  });
  afterAll(() => engine.stop());

  it('answers a turn with an error event and assistant_end', async () => {
    const ws = await WsClient.connect(engine.wsUrl);
    expect(await ws.turn('hello')).toEqual([
      { type: 'error', code: 'llm_disabled', message: 'the LLM is disabled (LLM_ENABLED=false)' },
      { type: 'assistant_end', text: '' },
    ]);
    ws.close();
  });

  it('answers 503 to GET and POST', async () => {
    expect((await get(engine)).status).toBe(503);
    const res = await post(engine, JSON.stringify([weather]), 'application/json');
    expect(res).toEqual({
      status: 503,
      json: { ok: false, statusCode: 503, message: 'the LLM is disabled (LLM_ENABLED=false)' },
    });
    // So does every route of one tool.
    for (const [method, path] of [
      ['POST', '/get_weather/call'],
      ['GET', '/get_weather'],
      ['GET', '/get_weather/offered'],
      ['PUT', '/get_weather'],
      ['DELETE', '/get_weather'],
    ] as const) {
      const one = await fetch(`${engine.httpUrl}/api/tools${path}`, {
        method,
        ...(method === 'PUT' && { body: JSON.stringify(weather) }),
      });
      expect([method, path, one.status]).toEqual([method, path, 503]);
      expect(await one.json()).toMatchObject({
        message: 'the LLM is disabled (LLM_ENABLED=false)',
      });
    }
  });
});

describe('/api/tools without a tools file', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({});
  });
  afterAll(() => engine.stop());

  it('reports source "none" until an override is installed', async () => {
    expect((await get(engine)).json).toEqual({ ok: true, count: 0, source: 'none', tools: [] });
    await post(engine, JSON.stringify([weather]), 'application/json');
    expect((await get(engine)).json).toMatchObject({ source: 'request', count: 1 });
  });

  it("reads a code tool's relative `file` from the engine's working directory", async () => {
    // A directory under the working directory: the path names it from there.
    const dir = mkdtempSync(join(process.cwd(), '.code-tool-'));
    try {
      writeFileSync(
        join(dir, 'greet.py'),
        'def greet() -> str:\n    """Hello."""\n    return "hi"\n',
      );
      const file = relative(process.cwd(), join(dir, 'greet.py'));
      const { status, json } = await post(engine, JSON.stringify([{ type: 'python', file }]));
      expect({ status, message: json.message }).toEqual({ status: 200, message: undefined });
      expect(json).toMatchObject({ count: 1, tools: [{ type: 'python', file }] });
    } finally {
      rmSync(dir, { recursive: true });
    }
  });

  it('logs what a set it installs will do wrong: a method that is not one', async () => {
    const warn = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => {});
    try {
      const bad = { ...weather, name: 'bad_verb', method: 'GE T' };
      expect((await post(engine, JSON.stringify([bad]))).status).toBe(200);
      expect(warn.mock.calls.map((c) => String(c[0]))).toContain(
        `request body: tool #0 'bad_verb': method "GE T" is not a valid HTTP method; calls to this tool will fail`,
      );
    } finally {
      warn.mockRestore();
    }
  });
});

describe('/api/tools with ADMIN_API_KEY', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ ADMIN_API_KEY: 's3cret-admin' });
  });
  afterAll(() => engine.stop());

  it('answers 401 without the key or with a wrong one, and serves it with the key', async () => {
    const url = `${engine.httpUrl}/api/tools`;
    expect((await fetch(url)).status).toBe(401);
    expect((await fetch(url, { headers: { Authorization: 'Bearer nope' } })).status).toBe(401);
    // A key of the right length, one character off.
    const near = { Authorization: 'Bearer s3cret-admiN' };
    expect((await fetch(url, { headers: near })).status).toBe(401);
    const denied = await fetch(url, { method: 'POST', body: JSON.stringify([weather]) });
    expect(denied.status).toBe(401);
    expect(await denied.json()).toMatchObject({ ok: false, statusCode: 401 });
    expect((await fetch(url, { headers: { Authorization: 'Bearer s3cret-admin' } })).status).toBe(
      200,
    );
    expect((await fetch(`${engine.httpUrl}/health`)).status).toBe(200);
  });
});
