/** A tool as written in the tools file or `POST /api/tools` (seed §3). Plain types, no Nest. */
export interface HttpToolDefinition {
  name: string;
  description?: string;
  parameters?: JsonSchema;
  url: string;
  method?: string;
  headers?: Record<string, string>;
}

export type JsonSchema = Record<string, unknown>;

export type ToolSource = 'file' | 'request' | 'none';

/** A validated definition with its defaults applied. `raw` is the definition as given. */
export interface Tool {
  name: string;
  description: string;
  parameters: JsonSchema;
  url: string;
  method: string;
  headers: Record<string, string>;
  raw: HttpToolDefinition;
}

/** One immutable view of the active tools; a turn keeps the one it started with. */
export interface ToolSnapshot {
  source: ToolSource;
  tools: readonly Tool[];
  byName: ReadonlyMap<string, Tool>;
}

export const DEFAULT_PARAMETERS: JsonSchema = { type: 'object', properties: {} };

/** RFC 9110 token: what an HTTP method (and a header name) may be made of. */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

export function snapshotOf(source: ToolSource, tools: readonly Tool[]): ToolSnapshot {
  return { source, tools, byName: new Map(tools.map((t) => [t.name, t])) };
}

/** The OpenAI `tools` array entry: never the url or the headers. */
export function toOpenAiTool(tool: Tool): {
  type: 'function';
  function: { name: string; description: string; parameters: JsonSchema };
} {
  return {
    type: 'function',
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  };
}
