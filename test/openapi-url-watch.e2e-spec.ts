import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { postTools, writeToolsFile } from './support/tools-file.js';
import { useEngineRig } from './support/turn-harness.js';
import { untilAsync } from './support/waiting.js';

const SPEC = readFileSync(resolve('test/fixtures/openapi/orders.yaml'), 'utf8');
/** The document as the service publishes it after a release: getOrder described anew. */
const released = (summary: string) =>
  SPEC.replace('summary: Status of an order', `summary: ${summary}`);

/**
 * OpenAPI documents at a URL, read again every LLM_TOOLS_SPEC_URL_WATCH_SECS: a new release of
 * the service's document is offered from the next turn, without a reload.
 */
describe('OpenAPI documents at a URL, watched', () => {
  let document = SPEC;
  let down = false;
  let reads = 0;
  /** Answers with the whole document, and 304s to a request naming its current version. */
  let whole = 0;
  let notModified = 0;
  const publisher = createServer((req, res) => {
    reads++;
    if (down) return void res.writeHead(503).end('restarting');
    const etag = `"${createHash('sha256').update(document).digest('hex').slice(0, 16)}"`;
    if (req.headers['if-none-match'] === etag)
      return void (notModified++, res.writeHead(304).end());
    whole++;
    res.writeHead(200, { etag }).end(document);
  });
  let specUrl = '';
  beforeAll(async () => {
    await new Promise<void>((r) => publisher.listen(0, '127.0.0.1', r));
    specUrl = `http://127.0.0.1:${(publisher.address() as AddressInfo).port}/openapi.yaml`;
  });
  afterAll(() => new Promise((r) => publisher.close(r)));
  const entry = (base: string) => ({
    type: 'openapi',
    spec: specUrl,
    operation: 'getOrder',
    base_url: base,
  });
  const rig = useEngineRig((base) => ({
    LLM_MODEL: 'm',
    LLM_TOOLS_SPEC_URL_WATCH_SECS: '0.1',
    LLM_TOOLS_FILE: writeToolsFile([entry(base)]),
  }));
  const described = async () =>
    (
      (await (await fetch(`${rig.engine.httpUrl}/api/tools/getOrder/offered`)).json()) as {
        description?: string;
      }
    ).description ?? '';
  /** Waits for `n` more reads of the document: a check has come and gone. */
  const readsMore = async (n: number) => {
    const from = reads;
    await untilAsync(() => Promise.resolve(reads >= from + n), 'the document read again');
  };

  it("offers a released document's operation from the next turn; a document that cannot be read changes nothing", async () => {
    expect(await described()).toMatch(/^Status of an order/);
    // Read again and again, an unchanged document costs a 304 each time, not its body.
    const [wholeBefore, notModifiedBefore] = [whole, notModified];
    await readsMore(3);
    expect(whole).toBe(wholeBefore);
    expect(notModified).toBeGreaterThanOrEqual(notModifiedBefore + 3);
    down = true;
    await readsMore(3);
    expect(await described()).toMatch(/^Status of an order/);
    down = false;
    document = released('Where an order is');
    await untilAsync(async () => (await described()).startsWith('Where'), 'the new release');
    expect(await described()).toMatch(/^Where an order is\n/);
  });

  it('reads an override from /api/tools again too', async () => {
    const override = [{ ...entry(rig.toolsUrl), name: 'order_status' }];
    expect((await postTools(rig.engine.httpUrl, override)).status).toBe(200);
    document = released('Order status, by number');
    await untilAsync(
      async () =>
        (
          (await (await fetch(`${rig.engine.httpUrl}/api/tools/order_status/offered`)).json()) as {
            description?: string;
          }
        ).description?.startsWith('Order status') === true,
      'the override read again',
    );
  });
});
