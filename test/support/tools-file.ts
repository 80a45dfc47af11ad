import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Installs tool definitions with POST /api/tools on the engine at `httpUrl` (`key`: ADMIN_API_KEY). */
export function postTools(httpUrl: string, definitions: unknown, key?: string): Promise<Response> {
  return fetch(`${httpUrl}/api/tools`, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      ...(key !== undefined && { Authorization: `Bearer ${key}` }),
    },
    body: JSON.stringify(definitions),
  });
}

/** `POST /api/tools` of a set it must refuse: asserts the 400, and gives its message. */
export async function refusedTools(
  httpUrl: string,
  definitions: unknown,
  key?: string,
): Promise<string> {
  const res = await postTools(httpUrl, definitions, key);
  expect(res.status).toBe(400);
  return ((await res.json()) as { message: string }).message;
}

/** Writes a tools file to a fresh temporary directory and returns its path. */
export function writeToolsFile(tools: unknown): string {
  const path = join(mkdtempSync(join(tmpdir(), 'engine-tools-')), 'tools.json');
  writeFileSync(path, JSON.stringify(tools, null, 2));
  return path;
}

/** The seed's weather tool (§8): GET `{base}/{city}?format=3`. */
/** A tool that acts: `send_sms`, a POST of `to` and `text` (both required) to `base`/sms. */
export function smsTool(
  base: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    name: 'send_sms',
    url: `${base}/sms`,
    method: 'POST',
    parameters: {
      type: 'object',
      properties: { to: { type: 'string' }, text: { type: 'string' } },
      required: ['to', 'text'],
    },
    ...extra,
  };
}

export function weatherTool(base: string): Record<string, unknown> {
  return {
    name: 'get_weather',
    description: 'Weather of a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' } },
      required: ['city'],
    },
    url: `${base}/{city}?format=3`,
    method: 'GET',
  };
}

/** A `"background": true` tool: POST `{base}/report/{id}`, given a minute. */
export function reportTool(base: string): Record<string, unknown> {
  return {
    name: 'make_report',
    description: 'Makes a report; takes a while',
    parameters: { type: 'object', properties: { id: { type: 'string' } } },
    url: `${base}/report/{id}`,
    method: 'POST',
    background: true,
    timeout_secs: 60,
  };
}

/** The first of the requests a tool server holds, once one has come (within 5 s). */
export async function firstHeld<T>(held: T[]): Promise<T> {
  for (let i = 0; held.length === 0; i++) {
    if (i > 250) throw new Error('the tool server never got the request');
    await new Promise((r) => setTimeout(r, 20));
  }
  return held[0]!;
}

/** The seed's full REST surface (§4) pointed at `base`, plus custom verbs. */
export function restTools(base: string): unknown[] {
  const id = { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] };
  return [
    {
      name: 'list_items',
      parameters: {
        type: 'object',
        properties: { limit: { type: 'integer' }, search: { type: 'string' } },
      },
      url: `${base}/api/items`,
      method: 'GET',
    },
    { name: 'get_item', parameters: id, url: `${base}/api/items/{id}`, method: 'GET' },
    { name: 'add_item', url: `${base}/api/items`, method: 'POST' },
    { name: 'update_item', url: `${base}/api/items/{id}`, method: 'PATCH' },
    { name: 'replace_item', url: `${base}/api/items/{id}`, method: 'PUT' },
    { name: 'delete_item', url: `${base}/api/items/{id}`, method: 'DELETE' },
    { name: 'item_exists', url: `${base}/api/items/{id}`, method: 'HEAD' },
    { name: 'purge_item', url: `${base}/api/items/{id}`, method: 'purge' },
    { name: 'item_options', url: `${base}/api/items/{id}`, method: 'OPTIONS' },
    { name: 'trace_item', url: `${base}/api/items/{id}`, method: 'TRACE' },
    {
      name: 'create_note',
      url: `${base}/api/notes`,
      method: 'POST',
      headers: { Authorization: 'Bearer {token}', 'X-Tool': 'audio-agent-engine' },
    },
    { name: 'get_weather', url: `${base}/{city}?format=3`, method: 'GET' },
    { name: 'bad_verb', url: `${base}/x`, method: 'GE T' },
  ];
}
