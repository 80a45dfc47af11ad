import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Logger } from '@nestjs/common';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { useEngineRig } from './support/turn-harness.js';
import { until, untilAsync } from './support/waiting.js';

const SPEC = readFileSync(resolve('test/fixtures/openapi/orders.yaml'), 'utf8');
/** The document as the service publishes it after a release: getOrder described anew. */
const released = (summary: string) =>
  SPEC.replace('summary: Status of an order', `summary: ${summary}`);

/**
 * A service publishing its OpenAPI document (`state.document`; 503 while `state.down`): the whole
 * document with an ETag, a 304 to a request naming its current version. `afterRead` runs after
 * each read.
 */
function usePublisher(afterRead: () => void = () => {}) {
  const state = { document: SPEC, down: false, reads: 0, whole: 0, notModified: 0, url: '' };
  const server = createServer((req, res) => {
    state.reads++;
    if (state.down) return void res.writeHead(503).end('restarting');
    const etag = `"${createHash('sha256').update(state.document).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag)
      return void (state.notModified++, res.writeHead(304).end());
    state.whole++;
    res.writeHead(200, { etag }).end(state.document, afterRead);
  });
  beforeAll(async () => {
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/openapi.yaml`;
  });
  afterAll(() => new Promise((r) => server.close(r)));
  return state;
}

/** The getOrder operation of the document at `url`, as an entry of the tools file. */
const entry = (url: string, base: string) => ({
  type: 'openapi',
  spec: url,
  operation: 'getOrder',
  base_url: base,
});

/** The engine's description of `tool` as offered to the model. */
async function described(httpUrl: string, tool = 'getOrder'): Promise<string> {
  const response = await fetch(`${httpUrl}/api/tools/${tool}/offered`);
  return ((await response.json()) as { description?: string }).description ?? '';
}

/**
 * OpenAPI documents at a URL, read again every LLM_TOOLS_SPEC_URL_WATCH_SECS: a new release of
 * the service's document is offered from the next turn, without a reload.
 */
describe('OpenAPI documents at a URL, watched', () => {
  const published = usePublisher();
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_SPEC_URL_WATCH_SECS: '0.1',
    LLM_TOOLS_FILE: writeToolsFile([entry(published.url, base)]),
  }));
  const offered = () => described(rig.engine.httpUrl);
  /** Waits for `n` more reads of the document: a check has come and gone. */
  const readsMore = async (n: number) => {
    const from = published.reads;
    await untilAsync(() => Promise.resolve(published.reads >= from + n), 'the document read again');
  };

  it("offers a released document's operation from the next turn; a document that cannot be read changes nothing", async () => {
    expect(await offered()).toMatch(/^Status of an order/);
    // Read once at start-up, by the loading; read again and again, an unchanged document costs
    // a 304 each time, not its body.
    expect(published.whole).toBe(1);
    const [wholeBefore, notModifiedBefore] = [published.whole, published.notModified];
    await readsMore(3);
    expect(published.whole).toBe(wholeBefore);
    expect(published.notModified).toBeGreaterThanOrEqual(notModifiedBefore + 3);
    published.down = true;
    await readsMore(3);
    expect(await offered()).toMatch(/^Status of an order/);
    published.down = false;
    published.document = released('Where an order is');
    await untilAsync(async () => (await offered()).startsWith('Where'), 'the new release');
    expect(await offered()).toMatch(/^Where an order is\n/);
  });

  it('reads an override from /api/tools again too, and keeps it when a release is broken', async () => {
    const override = [{ ...entry(published.url, rig.toolsUrl), name: 'order_status' }];
    expect((await postTools(rig.engine.httpUrl, override)).status).toBe(200);
    published.document = released('Order status, by number');
    await untilAsync(
      async () => (await described(rig.engine.httpUrl, 'order_status')).startsWith('Order status'),
      'the override read again',
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    try {
      published.document = '<html>502 Bad Gateway</html>';
      await until(() => errors.mock.calls.length > 0, 'the broken release tried');
      expect(String(errors.mock.calls[0]![0])).toMatch(
        /an OpenAPI document changed, but the tools cannot be used; the tools in use are kept: .*order_status.*field 'spec'/,
      );
      await readsMore(3);
      expect(errors).toHaveBeenCalledTimes(1);
    } finally {
      errors.mockRestore();
    }
    expect(await described(rig.engine.httpUrl, 'order_status')).toMatch(/^Order status, by number/);
  });
});

describe('OpenAPI documents at a URL, released while the engine starts, or released broken', () => {
  /** The service releases a new document right after the engine's first read of it. */
  const published = usePublisher(() => {
    if (published.whole === 1) published.document = released('Where an order is');
  });
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_SPEC_URL_WATCH_SECS: '0.1',
    LLM_TOOLS_FILE: writeToolsFile([entry(published.url, base)]),
  }));
  const offered = () => described(rig.engine.httpUrl);
  const invalidReloads = async () => {
    const text = await (await fetch(`${rig.engine.httpUrl}/metrics`)).text();
    return Number(
      text.match(/agent_engine_tools_file_reloads_total\{outcome="invalid"\} (\d+)/)?.[1] ?? 0,
    );
  };

  it('offers the release that came out while the tools were loaded; tries a broken release once, until the next', async () => {
    // The tools were made from the first document: the watch compares with it, not with its own first read.
    await untilAsync(
      async () => (await offered()).startsWith('Where'),
      'the release made during start-up',
    );
    const errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => {});
    try {
      published.document = 'openapi: [3.0.0';
      await untilAsync(async () => (await invalidReloads()) === 1, 'the broken release tried');
      const reads = published.reads;
      await untilAsync(() => Promise.resolve(published.reads >= reads + 5), 'more checks');
      expect(await invalidReloads()).toBe(1);
      expect(await offered()).toMatch(/^Where an order is\n/);
      published.document = released('Order status, fixed');
      await untilAsync(
        async () => (await offered()).startsWith('Order status, fixed'),
        'the fixed release',
      );
      expect(await invalidReloads()).toBe(1);
    } finally {
      errors.mockRestore();
    }
  });
});

describe('OpenAPI documents at a URL, down when the engine starts', () => {
  const published = usePublisher();
  published.down = true;
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.3',
    LLM_TOOLS_SPEC_URL_WATCH_SECS: '1',
    LLM_TOOLS_FILE: writeToolsFile([entry(published.url, base)]),
  }));
  const offered = () => described(rig.engine.httpUrl);

  it('offers the operation once the document can be read, then its next release', async () => {
    expect(await offered()).toBe('');
    published.down = false;
    await untilAsync(async () => (await offered()).startsWith('Status'), 'the document read');
    published.document = released('Where an order is');
    await untilAsync(async () => (await offered()).startsWith('Where'), 'the next release', 8000);
  });
});

describe('OpenAPI documents at URLs, one down when the engine starts', () => {
  const up = usePublisher();
  const down = usePublisher();
  down.down = true;
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOL_BREAKER_COOLDOWN_SECS: '0.2',
    LLM_TOOLS_FILE: writeToolsFile([
      { ...entry(up.url, base), name: 'order_status' },
      { ...entry(down.url, base), name: 'order_later' },
    ]),
  }));

  it('tries again only the document that was down', async () => {
    expect(await described(rig.engine.httpUrl, 'order_status')).toMatch(/^Status/);
    await untilAsync(() => Promise.resolve(down.reads >= 4), 'tries at the document down');
    down.down = false;
    await untilAsync(
      async () => (await described(rig.engine.httpUrl, 'order_later')).startsWith('Status'),
      'the document read',
    );
    expect(up.reads).toBe(1);
  });
});

describe("an entry for a watched document's operations", () => {
  const published = usePublisher();
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_SPEC_URL_WATCH_SECS: '0.1',
    LLM_TOOLS_FILE: writeToolsFile([
      { type: 'openapi', spec: published.url, operations: '*', prefix: 'o_', base_url: base },
    ]),
  }));

  it('offers an operation a release of the document adds from the next turn', async () => {
    expect(await described(rig.engine.httpUrl, 'o_getOrder')).toMatch(/^Status of an order/);
    expect(await described(rig.engine.httpUrl, 'o_ping')).toBe('');
    published.document = SPEC.replace(
      'paths:\n',
      "paths:\n  /ping:\n    get:\n      operationId: ping\n      summary: Whether the service answers\n      responses: { '200': { description: ok } }\n",
    );
    await untilAsync(
      async () => (await described(rig.engine.httpUrl, 'o_ping')) !== '',
      'the release read',
    );
    expect(await described(rig.engine.httpUrl, 'o_ping')).toBe('Whether the service answers');
  });
});
