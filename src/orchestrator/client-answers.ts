/** The client's answers to the calls that wait for it. Pure: no Nest import. */
import { settleWaiting } from './awaiting.js';
import { replyOf } from './client-tools.js';
import type {
  ClientToolResultMessage,
  ToolAnswerMessage,
  ToolConfirmMessage,
} from './protocol/client-messages.js';
import { settleQuestion } from './questions.js';
import type { Session } from './session.js';

/**
 * Settles the call a client's answer is for (an approval, a question's answer, the result of one
 * of the session's own tools); the error to send when no call waits for it.
 */
export function settleAnswer(
  session: Session,
  message: ToolConfirmMessage | ToolAnswerMessage | ClientToolResultMessage,
): string | undefined {
  switch (message.type) {
    case 'tool_confirm':
      return settleWaiting(session.approvals, message.id, message.approved, 'approval');
    case 'tool_answer':
      return settleQuestion(session, message.id, message.value);
    case 'client_tool_result':
      return settleWaiting(session.clientCalls, message.id, replyOf(message), 'a result');
  }
}
