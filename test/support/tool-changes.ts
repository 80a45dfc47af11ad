/** Changes of the tool set over the admin API, as admin tooling makes them, for tests. */

/** PUT /api/tools/{name} on the engine at `httpUrl`, with `If-Match` when given. */
export function putTool(
  httpUrl: string,
  name: string,
  definition: unknown,
  ifMatch?: string,
): Promise<Response> {
  return fetch(`${httpUrl}/api/tools/${name}`, {
    method: 'PUT',
    // A connection each: with ENGINE_PROCESSES, node:cluster hands them to its processes in turn.
    headers: { Connection: 'close', ...(ifMatch !== undefined && { 'If-Match': ifMatch }) },
    body: JSON.stringify(definition),
  });
}

/** The names of the set GET /api/tools shows, and its ETag. */
export async function toolSet(httpUrl: string): Promise<{ names: string[]; etag: string }> {
  const res = await fetch(`${httpUrl}/api/tools`, { headers: { Connection: 'close' } });
  const body = (await res.json()) as { tools: { name: string }[] };
  return { names: body.tools.map((t) => t.name), etag: res.headers.get('etag') ?? '' };
}

/**
 * Adds tools `names` with one PUT each, all at once, spread over `httpUrls` in turn: the status
 * of each answer.
 */
export function putAtOnce(httpUrls: string[], names: string[]): Promise<number[]> {
  return Promise.all(
    names.map(async (name, i) => {
      const url = `http://127.0.0.1:9/${name}`;
      return (await putTool(httpUrls[i % httpUrls.length]!, name, { url, method: 'GET' })).status;
    }),
  );
}

/**
 * From an engine's JSON log: by process (pid), the sizes of the sets it installed, in order (the
 * log's `installed N definition(s)` lines).
 */
export function installedSizes(output: string): Map<number, number[]> {
  const sizes = new Map<number, number[]>();
  for (const line of output.split('\n')) {
    const m = /"pid":(\d+).*"msg":"installed (\d+) definition/.exec(line);
    if (m) sizes.set(Number(m[1]), [...(sizes.get(Number(m[1])) ?? []), Number(m[2])]);
  }
  return sizes;
}
