import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';
import { until } from './support/waiting.js';

/** `POST /api/tools/{name}/call`: an admin tries a tool and sees what the model would read. */
describe('trying a tool over the admin API', () => {
  const rig = useEngineRig(
    (base) => ({
      LLM_MODEL: 'm',
      ADMIN_API_KEY: 'admin-key',
      TOOL_SECRET_CRM: 's3cret',
      LLM_TOOLS_FILE: writeToolsFile([
        weatherTool(base),
        {
          name: 'crm',
          url: `${base}/crm/\${session.customer_id}`,
          method: 'GET',
          headers: { Authorization: 'Bearer ${TOOL_SECRET_CRM}' },
          response_query: 'name',
          confirm: true,
        },
      ]),
    }),
    (req, res) => {
      if (req.path.startsWith('/crm/'))
        return void res.end(
          JSON.stringify({ name: `Ada (${String(req.headers.authorization)})`, id: 1 }),
        );
      // A service that never answers: the call ends with the admin's request.
      if (req.path === '/Nowhere') return void res.on('close', () => (hungUp = true));
      res.end(`${decodeURIComponent(req.path.slice(1))}: +21°C`);
    },
  );
  let hungUp = false;
  const tryTool = (name: string, body?: unknown, key = 'admin-key', signal?: AbortSignal) =>
    fetch(`${rig.engine.httpUrl}/api/tools/${name}/call`, {
      method: 'POST',
      signal,
      headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });

  it('runs the call and answers what the model would read', async () => {
    const res = await tryTool('get_weather', { arguments: { city: 'Rome' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, result: 'Rome: +21°C', ms: expect.any(Number) });
    expect(rig.tools.requests.at(-1)!.path).toBe('/Rome');
  });

  it('applies session variables, secrets (masked), response_query, and asks no approval', async () => {
    const res = await tryTool('crm', { variables: { customer_id: 'C-42' } });
    expect(await res.json()).toMatchObject({ ok: true, result: 'Ada (Bearer [secret])' });
    expect(rig.tools.requests.at(-1)!.path).toBe('/crm/C-42');
  });

  it('answers the error text the model would read, with ok false', async () => {
    const res = await tryTool('get_weather', { arguments: { town: 'Rome' } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { ok: boolean; result: string };
    expect(body.ok).toBe(false);
    expect(body.result).toMatch(/^Error: tool request failed: invalid arguments/);
    const missing = (await (await tryTool('crm')).json()) as { result: string };
    expect(missing.result).toMatch(/the session has no variable 'customer_id'/);
  });

  it('refuses an unknown tool, a body that is not a call, and a request without the key', async () => {
    expect((await tryTool('nope', {})).status).toBe(404);
    for (const body of [
      '[]',
      '{"arguments": 3}',
      '{"args": {}}',
      '{"variables": {"a b": "x"}}',
      '{',
    ])
      expect((await tryTool('get_weather', body)).status).toBe(400);
    const deep = await tryTool(
      'get_weather',
      `{"arguments": {"city": ${'['.repeat(20_000)}${']'.repeat(20_000)}}}`,
    );
    expect(await deep.json()).toMatchObject({
      statusCode: 400,
      message: '"arguments" are nested more than 100 levels deep',
    });
    expect((await tryTool('get_weather', {}, 'wrong')).status).toBe(401);
  });

  it('gives up the call when the admin goes away', async () => {
    const admin = new AbortController();
    const pending = tryTool(
      'get_weather',
      { arguments: { city: 'Nowhere' } },
      'admin-key',
      admin.signal,
    );
    await until(() => rig.tools.requests.at(-1)?.path === '/Nowhere', 'the tool request');
    admin.abort();
    await expect(pending).rejects.toThrow();
    await until(() => hungUp, "the tool's request closed");
  });
});
