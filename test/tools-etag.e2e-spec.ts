import { get as httpGet, type IncomingMessage } from 'node:http';
import { Engine } from './support/engine.js';
import { putAtOnce, putTool, toolSet } from './support/tool-changes.js';
import { postTools, writeToolsFile } from './support/tools-file.js';

/**
 * The admin API's ETag and If-Match: admin tooling reads the tools, changes them, and the change is
 * made only if no one else changed them meanwhile; changes of one tool made at once all stay.
 */
describe('/api/tools: ETag, If-Match, changes made at once', () => {
  let engine: Engine;
  const tool = (name: string) => ({ name, url: `http://127.0.0.1:9/${name}`, method: 'GET' });
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'm',
      LLM_TOOLS_FILE: writeToolsFile([tool('from_file')]),
    });
  });
  afterAll(() => engine?.stop());

  const post = (definitions: unknown, ifMatch?: string, query = '') =>
    fetch(`${engine.httpUrl}/api/tools${query}`, {
      method: 'POST',
      headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch },
      body: JSON.stringify(definitions),
    });
  const remove = (name: string, ifMatch?: string) =>
    fetch(`${engine.httpUrl}/api/tools/${name}`, {
      method: 'DELETE',
      headers: ifMatch === undefined ? {} : { 'If-Match': ifMatch },
    });

  it('tags every view of the set with its version, the same for the same set', async () => {
    const file = await toolSet(engine.httpUrl);
    expect(file.etag).toMatch(/^"file-[0-9a-f]{40}"$/);
    const one = await fetch(`${engine.httpUrl}/api/tools/from_file`);
    expect(one.headers.get('etag')).toBe(file.etag);
    const posted = await post([tool('a')]);
    const etag = posted.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect((await toolSet(engine.httpUrl)).etag).toBe(etag);
    // The same set posted again has the same version; another has another.
    expect((await post([tool('a')])).headers.get('etag')).toBe(etag);
    expect((await post([tool('b')])).headers.get('etag')).not.toBe(etag);
  });

  it('answers 304 to a GET whose If-None-Match names the set in force (an admin UI polling)', async () => {
    await post([tool('a')]);
    const { etag } = await toolSet(engine.httpUrl);
    const get = (path: string, ifNoneMatch: string, more: Record<string, string> = {}) =>
      new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(
          `${engine.httpUrl}${path}`,
          { headers: { 'If-None-Match': ifNoneMatch, ...more } },
          (res) => resolve(res.resume()),
        ).on('error', reject),
      );
    expect((await get('/api/tools', etag)).statusCode).toBe(304);
    expect((await get('/api/tools/a', etag)).statusCode).toBe(304);
    // As a browser's fetch sends a script's own If-None-Match (and Node's fetch any).
    const noCache = { 'Cache-Control': 'no-cache', Pragma: 'no-cache' };
    expect((await get('/api/tools', `W/"x", ${etag}`, noCache)).statusCode).toBe(304);
    expect((await get('/api/tools/a', etag, noCache)).statusCode).toBe(304);
    const changed = await get('/api/tools', '"another"');
    expect(changed.statusCode).toBe(200);
    expect(changed.headers['x-powered-by']).toBeUndefined();
  });

  it('makes a change with If-Match only if the set is still the one read, else 412 and nothing changes', async () => {
    await post([tool('a')]);
    const read = (await toolSet(engine.httpUrl)).etag;
    // Another admin changes the set meanwhile.
    expect((await putTool(engine.httpUrl, 'b', tool('b'))).status).toBe(200);
    const stale = await post([tool('c')], read);
    expect(stale.status).toBe(412);
    expect(((await stale.json()) as any).message).toMatch(
      /^the tools changed since they were read: If-Match "[0-9a-f]{40}", their ETag is now "[0-9a-f]{40}"; read them again/,
    );
    expect((await putTool(engine.httpUrl, 'c', tool('c'), read)).status).toBe(412);
    expect((await remove('a', read)).status).toBe(412);
    const now = await toolSet(engine.httpUrl);
    expect(now.names).toEqual(['a', 'b']);
    // With the ETag of the set in force (a list of them, weak or strong, or *), it is made.
    const put = await putTool(engine.httpUrl, 'c', tool('c'), `"nope", W/${now.etag}`);
    expect(put.status).toBe(200);
    expect((await remove('a', '*')).status).toBe(200);
    const after = await toolSet(engine.httpUrl);
    expect(after.names).toEqual(['b', 'c']);
    expect(after.etag).toBe(
      await (async () => (await post([tool('b'), tool('c')], after.etag)).headers.get('etag'))(),
    );
  });

  it('checks If-Match on a dry run too, and answers no ETag for a set not installed', async () => {
    await post([tool('a')]);
    const { etag } = await toolSet(engine.httpUrl);
    expect((await post([tool('x')], '"stale"', '?dry_run=true')).status).toBe(412);
    const dry = await post([tool('x')], etag, '?dry_run=true');
    expect(dry.status).toBe(200);
    expect(dry.headers.get('etag')).toBeNull();
    expect((await toolSet(engine.httpUrl)).etag).toBe(etag);
  });

  it('keeps every one of many changes of one tool made at once', async () => {
    expect((await postTools(engine.httpUrl, [tool('first')])).status).toBe(200);
    const names = ['t1', 't2', 't3', 't4', 't5', 't6'];
    expect(await putAtOnce([engine.httpUrl], names)).toEqual(names.map(() => 200));
    expect((await toolSet(engine.httpUrl)).names.sort()).toEqual(['first', ...names]);
    const removed = await Promise.all(['t1', 't3', 't5'].map((n) => remove(n)));
    expect(removed.map((r) => r.status)).toEqual([200, 200, 200]);
    expect((await toolSet(engine.httpUrl)).names.sort()).toEqual(['first', 't2', 't4', 't6']);
  });

  it('counts the changes asked for by outcome in /metrics, dry runs apart', async () => {
    const counts = async () => {
      const text = await (await fetch(`${engine.httpUrl}/metrics`)).text();
      const of = (outcome: string) =>
        Number(
          new RegExp(`agent_engine_tool_set_changes_total\\{outcome="${outcome}"\\} (\\d+)`).exec(
            text,
          )?.[1] ?? 0,
        );
      return { made: of('made'), invalid: of('invalid'), failed: of('precondition_failed') };
    };
    const before = await counts();
    const { etag } = await toolSet(engine.httpUrl);
    expect((await putTool(engine.httpUrl, 'm1', tool('m1'), etag)).status).toBe(200);
    expect((await putTool(engine.httpUrl, 'm2', tool('m2'), etag)).status).toBe(412);
    expect((await putTool(engine.httpUrl, 'bad', { url: 'not a url' })).status).toBe(400);
    expect((await post([tool('x')], undefined, '?dry_run=true')).status).toBe(200);
    const after = await counts();
    expect({
      made: after.made - before.made,
      invalid: after.invalid - before.invalid,
      failed: after.failed - before.failed,
    }).toEqual({ made: 1, invalid: 1, failed: 1 });
  });
});

describe('/api/tools ETag while tool calling is disabled (LLM_TOOLS_ENABLED=false)', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({
      LLM_BASE_URL: 'http://127.0.0.1:9/v1',
      LLM_MODEL: 'm',
      LLM_TOOLS_ENABLED: 'false',
    });
  });
  afterAll(() => engine?.stop());

  it('tags the set kept for later, so that a change read from one answer can be made', async () => {
    const put = await putTool(engine.httpUrl, 'kept', { url: 'http://127.0.0.1:9/kept' });
    expect(put.status).toBe(200);
    const etag = put.headers.get('etag')!;
    expect((await toolSet(engine.httpUrl)).etag).toBe(etag);
    const next = await putTool(engine.httpUrl, 'also', { url: 'http://127.0.0.1:9/also' }, etag);
    expect(next.status).toBe(200);
  });
});
