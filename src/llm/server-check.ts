/**
 * What the engine checks of its LLM server once at start-up (`GET {LLM_BASE_URL}/models`), so
 * that a wrong key, model or address is in the log before the first caller meets it. Only
 * warnings: a server that is down now may be up by the first turn. Pure: no Nest import.
 */

/** How long the start-up check waits for `GET /models`. */
const CHECK_TIMEOUT_MS = 10_000;

/**
 * Asks `GET {baseUrl}/models` once: whether the server answers, takes the engine's credentials
 * and knows `model` (see modelsProblem). The warning to log, or undefined. Never throws.
 */
export async function checkServer(
  baseUrl: string,
  model: string,
  headers: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<string | undefined> {
  let status: number;
  let body: unknown;
  try {
    const res = await fetch(`${baseUrl}/models`, {
      headers,
      signal: AbortSignal.any([signal, AbortSignal.timeout(CHECK_TIMEOUT_MS)]),
    });
    status = res.status;
    body = await res.json().catch(() => undefined);
  } catch (error) {
    if (signal.aborted) return undefined;
    return `the LLM server at ${baseUrl} cannot be reached (${unreachableReason(error)}): turns fail until it answers`;
  }
  return modelsProblem(status, body, model, baseUrl);
}

/** What is wrong with the server's answer to `GET /models`, or undefined when nothing is. */
export function modelsProblem(
  status: number,
  body: unknown,
  model: string,
  baseUrl: string,
): string | undefined {
  const at = `the LLM server at ${baseUrl}`;
  if (status === 401 || status === 403)
    return `${at} refused the engine's credentials (HTTP ${status} to GET /models): check LLM_API_KEY or LLM_EXTRA_HEADERS`;
  if (status < 200 || status > 299)
    // Servers and gateways without the endpoint are fine as long as the model is named.
    return model
      ? undefined
      : `${at} answered HTTP ${status} to GET /models and LLM_MODEL is empty: set LLM_MODEL`;
  const data = (body as { data?: unknown } | undefined)?.data;
  const ids = (Array.isArray(data) ? data : [])
    .map((m) => (m as { id?: unknown } | null)?.id)
    .filter((id): id is string => typeof id === 'string');
  if (!model)
    return ids.length === 0
      ? `${at} lists no model and LLM_MODEL is empty: set LLM_MODEL`
      : undefined;
  if (ids.length === 0 || ids.includes(model)) return undefined;
  const listed =
    ids.slice(0, 10).join(', ') + (ids.length > 10 ? `, … (${ids.length} in all)` : '');
  return `LLM_MODEL "${model}" is not among the models ${at} lists (${listed}): it will likely refuse every request`;
}

/** Why a request did not reach the server, in a few words (`ECONNREFUSED`, `timed out`). */
export function unreachableReason(error: unknown): string {
  const err = error as {
    name?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (err?.name === 'TimeoutError') return 'timed out';
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(error);
}
