import { useEngineRig } from './support/turn-harness.js';
import { weatherTool, writeToolsFile } from './support/tools-file.js';

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
      res.end(`${decodeURIComponent(req.path.slice(1))}: +21°C`);
    },
  );
  const tryTool = (name: string, body?: unknown, key = 'admin-key') =>
    fetch(`${rig.engine.httpUrl}/api/tools/${name}/call`, {
      method: 'POST',
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
    expect((await tryTool('get_weather', {}, 'wrong')).status).toBe(401);
  });
});
