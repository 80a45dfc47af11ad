/**
 * `"type": "transfer_call"`: a tool the engine runs itself, with which the model hands the caller
 * over to a person (a phone number, a SIP address): the session ends once the turn's answer has
 * been given, with a `transfer` event that the client (`/twilio` itself) acts on. Pure: no Nest
 * import.
 */
import { ownTool } from './definition-fields.js';
import { ToolDefinitionError, where } from './definition-error.js';
import type { Tool, ToolDefinitionInput } from './tool-definition.js';
import type { ToolInvocation, ToolOutcome } from './tool-executor.js';

export const TRANSFER_DESCRIPTION =
  'Transfers the call to a person once your reply has been said. Call it when the caller asks for a person, or when you cannot help; tell the caller in the same reply that you are transferring them.';

export const TRANSFER_RESULT =
  'The call is transferred once this reply has been given: tell the caller now if you have not.';

/** The tool, its destinations checked (exactly one of `to` and `destinations`). */
export function transferCallTool(def: ToolDefinitionInput, index: number, source: string): Tool {
  const { to, destinations } = def;
  if ((to === undefined) === (destinations === undefined))
    throw new ToolDefinitionError(
      `${where(source, index, def.name)}: field 'to' is required: give exactly one of 'to' (where every call goes) or 'destinations' (names the model chooses from)`,
    );
  const names = Object.keys(destinations ?? {});
  const parameters = destinations
    ? {
        type: 'object',
        properties: {
          destination: {
            type: 'string',
            enum: names,
            description: 'Who to transfer the caller to',
          },
        },
        required: ['destination'],
      }
    : undefined;
  return {
    ...ownTool('transfer_call', def, TRANSFER_DESCRIPTION, parameters),
    transfer: to !== undefined ? { to } : { destinations: destinations! },
  };
}

/** A call of the tool: the session (if the call has one) is transferred after its turn. */
export function transferCall(call: ToolInvocation, tool: Tool): ToolOutcome {
  const transfer = tool.transfer!;
  let to = transfer.to;
  if (to === undefined) {
    const name = call.args.destination;
    to = typeof name === 'string' ? transfer.destinations?.[name] : undefined;
    if (to === undefined)
      return {
        ok: false,
        text: `Error: no destination ${JSON.stringify(name ?? null)}: choose one of ${Object.keys(transfer.destinations ?? {}).join(', ')}`,
      };
  }
  const transferTo = call.context?.transferCall;
  if (!transferTo)
    return { ok: false, text: 'Error: there is no call to transfer here (no session)' };
  transferTo(to);
  return { ok: true, text: TRANSFER_RESULT };
}
