import { Engine } from './support/engine.js';
import { writeToolsFile } from './support/tools-file.js';

const fromFile = { name: 'from_file', url: 'http://127.0.0.1:9/x' };
const weather = {
  description: 'Weather of a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  url: 'https://wttr.in/{city}?format=3',
  method: 'GET',
};

describe('/api/tools/{name}: one tool at a time', () => {
  let engine: Engine;
  beforeAll(async () => {
    engine = await Engine.start({ LLM_TOOLS_FILE: writeToolsFile([fromFile]) });
  });
  afterAll(() => engine.stop());

  async function call(method: string, path: string, body?: string) {
    const res = await fetch(`${engine.httpUrl}/api/tools${path}`, { method, body });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  }
  const names = async () =>
    ((await call('GET', '')).json.tools as { name: string }[]).map((t) => t.name);

  it('GET gives one definition as it was given, 404 for an unknown name', async () => {
    expect(await call('GET', '/from_file')).toEqual({ status: 200, json: fromFile });
    expect(await call('GET', '/nope')).toEqual({
      status: 404,
      json: { ok: false, statusCode: 404, message: "no tool named 'nope'" },
    });
  });

  it('PUT adds a tool (its name taken from the path) or replaces one in its place; DELETE removes one', async () => {
    const added = await call('PUT', '/get_weather', JSON.stringify(weather));
    expect(added.status).toBe(200);
    expect(added.json).toMatchObject({ ok: true, count: 2, source: 'request' });
    expect(await names()).toEqual(['from_file', 'get_weather']);
    expect((await call('GET', '/get_weather')).json).toEqual({ ...weather, name: 'get_weather' });

    const moved = { ...fromFile, url: 'http://127.0.0.1:9/moved' };
    expect((await call('PUT', '/from_file', JSON.stringify(moved))).status).toBe(200);
    expect(await names()).toEqual(['from_file', 'get_weather']);
    expect((await call('GET', '/from_file')).json).toEqual(moved);

    expect(await call('DELETE', '/get_weather')).toMatchObject({
      status: 200,
      json: { count: 1, tools: [moved] },
    });
    expect((await call('DELETE', '/get_weather')).status).toBe(404);
  });

  it.each([
    ['an array', JSON.stringify([weather]), /must be one tool definition \(a JSON object\)/],
    [
      'another name',
      JSON.stringify({ ...weather, name: 'other' }),
      /name "other" differs from the path's 'get_weather'/,
    ],
    [
      'no url',
      JSON.stringify({ description: 'x' }),
      /PUT \/api\/tools\/get_weather: tool #\d+ 'get_weather': field 'url' is required/,
    ],
    ['not JSON', '{"url":', /not valid JSON/],
  ])('PUT answers 400 for %s and changes nothing', async (_label, body, message) => {
    const before = await call('GET', '');
    const res = await call('PUT', '/get_weather', body);
    expect(res).toMatchObject({
      status: 400,
      json: { ok: false, message: expect.stringMatching(message) },
    });
    expect(await call('GET', '')).toEqual(before);
  });
});
