/**
 * A server's `tools/list` page read loosely: each tool checked against MCP's schema alone, so
 * that one listed wrong (a `description` of `null`) does not take the server's others with it.
 * No Nest import.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { ShapeError, whileRunning, wrongPart } from './mcp-faults.js';
import type { McpSdk } from './mcp-sdk.js';
import type { McpListedTool } from './mcp-target.js';

type Schemas = Pick<McpSdk, 'ListToolsResultSchema' | 'ToolSchema'>;

/** The most tools read of one server (its pages followed until then). */
const MAX_LISTED_TOOLS = 10_000;

/**
 * Every tool `client`'s server lists, following its pages, each read by readListing; the sound
 * ones cached by the SDK as its own listTools caches them (output schemas, task support), for
 * its calls.
 */
export async function listAll(
  client: Client,
  sdk: Schemas & Pick<McpSdk, 'ResultSchema'>,
  options: { timeout: number; signal?: AbortSignal },
): Promise<McpListedTool[]> {
  const tools: McpListedTool[] = [];
  let cursor: string | undefined;
  do {
    const params = cursor === undefined ? {} : { cursor };
    // Each page with a signal of its own (see whileRunning): the SDK never stops listening to a
    // request's, and a server of a thousand pages would gather a thousand listeners on one.
    const page = await whileRunning(options.signal, (signal) =>
      client.request({ method: 'tools/list', params }, sdk.ResultSchema, { ...options, signal }),
    );
    const listed = readListing(page, sdk);
    tools.push(...listed.tools);
    cursor = listed.nextCursor;
  } while (cursor !== undefined && tools.length < MAX_LISTED_TOOLS);
  // A private method of the SDK's: a release without it only skips the checks it feeds.
  const sdkClient = client as unknown as { cacheToolMetadata?: (t: unknown[]) => void };
  if (typeof sdkClient.cacheToolMetadata === 'function')
    sdkClient.cacheToolMetadata(tools.filter((t) => t.flaw === undefined));
  return tools;
}

/**
 * The page's tools, each as MCP's schema reads it, or with its `flaw` (its name kept when it has
 * one); throws ShapeError when the page itself is of the wrong shape (no list of tools, a cursor
 * that is no string).
 */
export function readListing(
  page: Record<string, unknown>,
  { ListToolsResultSchema, ToolSchema }: Schemas,
): { tools: McpListedTool[]; nextCursor?: string } {
  const { tools, nextCursor } = page;
  if (!Array.isArray(tools) || (nextCursor !== undefined && typeof nextCursor !== 'string')) {
    const checked = ListToolsResultSchema.safeParse(page);
    throw new ShapeError(checked.success ? [] : checked.error.issues);
  }
  return {
    tools: tools.map((tool: unknown) => {
      const checked = ToolSchema.safeParse(tool);
      if (checked.success) return checked.data;
      const name = (tool as { name?: unknown } | null)?.name;
      return {
        name: typeof name === 'string' ? name : '',
        inputSchema: {},
        flaw: wrongPart(checked.error.issues),
      };
    }),
    ...(typeof nextCursor === 'string' && { nextCursor }),
  };
}
