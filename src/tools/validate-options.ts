/** How a set of tool definitions is read (ToolLoader.validate), and a refusal at start-up. */
import { ToolDefinitionError } from './definition-error.js';
import type { ToolDefinitionInput } from './tool-definition.js';

/**
 * A tools file refused at start-up: its message names the setting that points at it too, for the
 * operator who reads only the engine's last line (`… failed to start: LLM_TOOLS_FILE: …`).
 */
export function namingTheSetting(error: unknown): never {
  if (error instanceof ToolDefinitionError && !error.message.includes('LLM_TOOLS_FILE'))
    throw new ToolDefinitionError(`LLM_TOOLS_FILE: ${error.message}`);
  throw error;
}

export interface ValidateOptions {
  /** A server or document that cannot be reached leaves its tools pending (not an error). */
  deferUnreachable?: boolean;
  /** Tools in use are being read again: a document served but unusable is an error all the same. */
  reloading?: boolean;
  /** The one definition given has that place in a larger set: messages say so. */
  index?: number;
  /** MCP servers may be run as commands: any (the tools file's definitions), or those named. */
  commands?: boolean | ReadonlySet<string>;
  /**
   * The places of definitions kept as they are from the set in use (a `PUT` or `DELETE` of
   * another tool): a server or document of theirs that cannot be used now leaves them pending.
   */
  kept?: ReadonlySet<number>;
  /** Rewrites what messages say of the set (the files of a directory: see tools-dir.ts). */
  relabel?: (message: string) => string;
  /** The rest of the set the definitions are part of: tools an entry for several leaves to it. */
  others?: readonly ToolDefinitionInput[];
  /** Gets what the loading warns of (as logged), but the pending tools' waits (see /health). */
  warnings?: string[];
}
