import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ToolDefinitionError } from '../definition-error.js';
import { expandOpenApi } from './openapi-expand.js';
import { fetchSpec } from './spec-source.js';

/** Documents served on loopback by path, with every request seen. */
class DocServer {
  readonly requests: { path: string; headers: IncomingHttpHeaders }[] = [];
  readonly docs = new Map<string, { body: string | Buffer; headers?: Record<string, string> }>();
  private server?: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      this.requests.push({ path: req.url ?? '', headers: req.headers });
      const doc = this.docs.get(req.url ?? '');
      if (!doc) return res.writeHead(404).end('not found');
      const modified = doc.headers?.['Last-Modified'];
      if (modified && req.headers['if-modified-since'] === modified)
        return res.writeHead(304).end();
      res.writeHead(200, doc.headers).end(doc.body);
    });
    await new Promise<void>((r) => this.server!.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  paths(): string[] {
    return this.requests.map((r) => r.path);
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise((r) => this.server?.close(r));
  }
}

/** An OpenAPI document with one operation, `getOrder`, whose path parameter's schema is `schema`. */
const orders = (schema: unknown, server = 'http://api.invalid') => ({
  openapi: '3.0.3',
  info: { title: 'Orders', version: '1' },
  servers: [{ url: server }],
  paths: {
    '/orders/{id}': {
      get: {
        operationId: 'getOrder',
        parameters: [{ name: 'id', in: 'path', required: true, schema }],
        responses: { 200: { description: 'ok' } },
      },
    },
  },
});

const options = { baseDir: '.', timeoutMs: 2000 };
const expand = (defs: unknown[]) => expandOpenApi(defs, 'tools.json', options);
const refusal = (defs: unknown[]) =>
  expand(defs).then(
    () => new Error('no error'),
    (e: unknown) => e as Error,
  );

describe('OpenAPI documents, read from a file or a URL', () => {
  let docs: DocServer;
  beforeEach(() => (docs = new DocServer()).start());
  afterEach(() => docs.stop());

  it('reads a document at a URL once for all the tools of one load', async () => {
    docs.docs.set('/openapi.json', { body: JSON.stringify(orders({ type: 'string' })) });
    const entry = { type: 'openapi', spec: `${docs.url}/openapi.json`, operation: 'getOrder' };
    const out = await expand([entry, { ...entry, name: 'order_again' }]);
    expect((out.definitions as { name: string }[]).map((d) => d.name)).toEqual([
      'getOrder',
      'order_again',
    ]);
    expect(docs.paths()).toEqual(['/openapi.json']);
  });

  it("never follows a file document's reference to the network", async () => {
    docs.docs.set('/id.json', { body: JSON.stringify({ type: 'string' }) });
    const path = join(mkdtempSync(join(tmpdir(), 'engine-spec-')), 'orders.json');
    writeFileSync(path, JSON.stringify(orders({ $ref: `${docs.url}/id.json` })));
    const error = await refusal([{ type: 'openapi', spec: path, operation: 'getOrder' }]);
    expect(error).toBeInstanceOf(ToolDefinitionError);
    expect(error.message).toContain(`field 'spec' cannot be read as an OpenAPI document (${path})`);
    expect(docs.requests).toHaveLength(0);
  });

  it("follows only a URL document's own references (#/…), never another document's", async () => {
    docs.docs.set('/id.json', { body: JSON.stringify({ type: 'string' }) });
    docs.docs.set('/openapi.json', { body: JSON.stringify(orders({ $ref: 'id.json' })) });
    const spec = `${docs.url}/openapi.json`;
    const error = await refusal([{ type: 'openapi', spec, operation: 'getOrder' }]);
    expect(error.message).toBe(
      `tools.json: tool #0 'getOrder': field 'parameters' is required: the operation's arguments refer to another document ("id.json"), which is not read for a document at a URL (only its own #/… references are followed)`,
    );
    expect(docs.paths()).toEqual(['/openapi.json']);
    // Given its parameters, the tool is made.
    const parameters = { type: 'object', properties: { id: { type: 'string' } } };
    const out = await expand([{ type: 'openapi', spec, operation: 'getOrder', parameters }]);
    expect(out.definitions).toEqual([expect.objectContaining({ name: 'getOrder', parameters })]);
  });

  it('refuses a URL that serves no document: a bare value, or more than 16 MiB', async () => {
    docs.docs.set('/hello', { body: 'hello' });
    const bare = await refusal([
      { type: 'openapi', spec: `${docs.url}/hello`, operation: 'getOrder' },
    ]);
    expect(bare.message).toMatch(
      /field 'spec' cannot be read as an OpenAPI document \(.*\/hello\): not a JSON or YAML object$/,
    );
    const doc = orders({ type: 'string' });
    const padding = 'x'.repeat(16 * 1024 * 1024);
    docs.docs.set('/big.json', {
      body: JSON.stringify({ ...doc, info: { ...doc.info, padding } }),
    });
    // Time enough to send 16 MiB on a machine the suite's other worker keeps busy: the size, not
    // the time-out, must refuse it.
    const big = await expandOpenApi(
      [{ type: 'openapi', spec: `${docs.url}/big.json`, operation: 'getOrder' }],
      'tools.json',
      { ...options, timeoutMs: 15_000 },
    ).then(
      () => new Error('no error'),
      (e: unknown) => e as Error,
    );
    expect(big.message).toMatch(/cannot be read as an OpenAPI document .*maxContentLength/);
  });

  it('names what a URL or file holds instead of an OpenAPI 3 document, never quoting a file', async () => {
    const cases: [string, string, RegExp][] = [
      [
        '/login',
        '<!DOCTYPE html>\n<html><title>Sign in</title></html>',
        /: an HTML page, not a JSON or YAML document: <!DOCTYPE html> <html><title>Sign in<\/title><\/html>$/,
      ],
      ['/status', '{"status": "ok"}', /: not an OpenAPI 3 document: it has no "openapi" field$/],
      [
        '/v1.json',
        JSON.stringify({ swagger: '1.2', apis: [] }),
        /: a Swagger 1\.2 document: convert it to OpenAPI 3 \(swagger2openapi takes Swagger 2\.0/,
      ],
      ['/future.json', JSON.stringify({ openapi: '4.0.0' }), /its "openapi" is "4\.0\.0"$/],
    ];
    for (const [path, body, message] of cases) {
      docs.docs.set(path, { body });
      const url = (await refusal([{ type: 'openapi', spec: `${docs.url}${path}`, operation: 'x' }]))
        .message;
      expect(url).toMatch(message);
    }
    const file = join(mkdtempSync(join(tmpdir(), 'engine-spec-')), 'secrets.json');
    writeFileSync(file, '{"db_password": "hunter2"}');
    const refused = (await refusal([{ type: 'openapi', spec: file, operation: 'x' }])).message;
    expect(refused).toMatch(/: not an OpenAPI 3 document: it has no "openapi" field$/);
    expect(refused).not.toContain('hunter2');
  });

  it('asks again only if the document changed: If-Modified-Since from Last-Modified, no empty ETag', async () => {
    const lastModified = 'Tue, 01 Dec 2026 10:00:00 GMT';
    docs.docs.set('/openapi.json', {
      body: '{}',
      headers: { 'Last-Modified': lastModified, ETag: '' },
    });
    const first = await fetchSpec(`${docs.url}/openapi.json`, 2000);
    expect(first).toEqual({ text: '{}', validators: { lastModified } });
    const again = await fetchSpec(`${docs.url}/openapi.json`, 2000, { lastModified });
    expect(again).toEqual({ unchanged: true });
    expect(docs.requests[1]!.headers['if-modified-since']).toBe(lastModified);
    expect(docs.requests[1]!.headers['if-none-match']).toBeUndefined();
  });
});
