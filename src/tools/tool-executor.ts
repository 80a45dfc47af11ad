import type { ToolSnapshot } from './tool-definition.js';

/** What a tool call gives back: always text for the model, never an exception (seed §6). */
export interface ToolOutcome {
  ok: boolean;
  text: string;
}

export interface ToolInvocation {
  id: string;
  name: string;
  args: Record<string, unknown>;
  /** The arguments as the model wrote them, when they could not be parsed as a JSON object. */
  rawArguments?: string;
  snapshot: ToolSnapshot;
  signal: AbortSignal;
}

/** Port: runs one tool call. Implementations never throw. */
export abstract class ToolExecutor {
  abstract execute(invocation: ToolInvocation): Promise<ToolOutcome>;
}
