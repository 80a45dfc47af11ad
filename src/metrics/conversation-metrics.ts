import { Counter, type Registry } from 'prom-client';

/** What a caller said to the agent at work that started no turn (`agent_engine_user_asides_total`). */
export type UserAside = 'hold' | 'again' | 'acknowledged' | 'checked' | 'noise';

/**
 * What happens in a conversation besides its turns, in the engine's registry: calls approved and
 * questions answered, what callers said that started no turn, words held for the rest,
 * handoffs, the history shortened or summarised. Pure: no Nest import.
 */
export class ConversationMetrics {
  private readonly approvals: Counter<'outcome'>;
  private readonly questions: Counter<'outcome'>;
  private readonly asides: Counter<'kind'>;
  private readonly unfinishedWords: Counter<'outcome'>;
  private readonly handoffs: Counter<'agent'>;
  private readonly summaries: Counter<'outcome'>;
  private readonly historyShed: Counter;

  constructor(registry: Registry) {
    const counter = <L extends string = never>(name: string, help: string, labelNames: L[] = []) =>
      new Counter<L>({ name, help, labelNames, registers: [registry] });
    this.approvals = counter(
      'agent_engine_tool_approvals_total',
      'Calls of "confirm": true tools, and code tools\' and MCP servers\' yes-or-no questions, by what the user did: approved, declined, expired (no answer in time), cancelled (the turn was)',
      ['outcome'],
    );
    this.questions = counter(
      'agent_engine_tool_questions_total',
      "Code tools' and MCP servers' questions wanting a value (tool_question), by outcome: answered, declined (a no), unclear (asked three times, no answer fitting), expired (no answer in time), cancelled (the turn was)",
      ['outcome'],
    );
    this.asides = counter(
      'agent_engine_user_asides_total',
      'What callers said to the agent at work that started no turn, by kind: hold (asked a waiting call\'s question or approval to wait), again (asked to hear it again, or pressed TOOL_CONFIRM_KEY_REPEAT), acknowledged (an okay heard out while the turn\'s calls ran), checked (asked whether the agent was there while they ran), noise (a sound that cut the agent held no words, or only "mm-hmm": the answer went on)',
      ['kind'],
    );
    this.unfinishedWords = counter(
      'agent_engine_unfinished_utterances_total',
      'Utterances whose words sounded unfinished, held for the user to go on (VAD_UNFINISHED_WAIT_MS), by outcome: continued (the user went on: speech, keys or text), answered (they said no more, or their next words were none: answered as they were)',
      ['outcome'],
    );
    this.handoffs = counter(
      'agent_engine_handoffs_total',
      'Conversations handed to another assistant by a handoff tool, by the assistant that took them',
      ['agent'],
    );
    this.summaries = counter(
      'agent_engine_history_summaries_total',
      'Summaries of the turns a bounded history dropped (LLM_HISTORY_SUMMARY), by outcome: made, failed (the model failed or answered nothing: those turns are asked again with the next ones dropped)',
      ['outcome'],
    );
    this.historyShed = counter(
      'agent_engine_history_shortened_total',
      "Times a conversation longer than the model's context was shortened (older turns dropped) and asked again",
    );
  }

  approval(outcome: 'approved' | 'declined' | 'expired' | 'cancelled'): void {
    this.approvals.inc({ outcome });
  }

  question(outcome: 'answered' | 'declined' | 'unclear' | 'expired' | 'cancelled'): void {
    this.questions.inc({ outcome });
  }

  aside(kind: UserAside): void {
    this.asides.inc({ kind });
  }

  unfinished(outcome: 'continued' | 'answered'): void {
    this.unfinishedWords.inc({ outcome });
  }

  handedOff(agent: string): void {
    this.handoffs.inc({ agent });
  }

  summarized(outcome: 'made' | 'failed'): void {
    this.summaries.inc({ outcome });
  }

  historyShortened(): void {
    this.historyShed.inc();
  }
}
