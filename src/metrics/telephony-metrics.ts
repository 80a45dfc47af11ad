import { Counter, type Registry } from 'prom-client';
import type { MachineVerdict } from '../orchestrator/twilio-voice.js';

/**
 * Phone calls through Twilio, in the engine's registry: the calls the agent places and who
 * answers them, how the calls it hands to a person end, and the calls carried over a stop. Pure:
 * no Nest import.
 */
export class TelephonyMetrics {
  private readonly placed: Counter<'outcome'>;
  private readonly transfers: Counter<'outcome'>;
  private readonly answeredBy: Counter<'by'>;
  private readonly carried: Counter<'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.placed = new Counter({
      name: 'agent_engine_calls_placed_total',
      help: 'Calls the agent was asked to place (POST /api/calls): placed (Twilio took it), refused (Twilio refused it, or could not be reached)',
      labelNames: ['outcome'],
      registers,
    });
    this.transfers = new Counter({
      name: 'agent_engine_transfers_ended_total',
      help: 'Calls handed to a person on /twilio whose dial ended: answered (someone took it), unanswered (busy, no answer, failed: back to the agent). Answered over all: the share of transfers that reached a person',
      labelNames: ['outcome'],
      registers,
    });
    this.answeredBy = new Counter({
      name: 'agent_engine_calls_answered_total',
      help: 'Placed calls with answering-machine detection (voicemail, hang_up_on_machine), by who answered as Twilio tells: human, machine (a message was left, or the call ended), fax, unknown. Human over all: the share of calls that reached a person',
      labelNames: ['by'],
      registers,
    });
    this.carried = new Counter({
      name: 'agent_engine_calls_carried_over_total',
      help: 'Phone calls on /twilio given a stream again as the engine stopped (a rolling update), for another replica to take: carried (Twilio took the new stream), failed (Twilio refused it, or could not be reached: the call ended)',
      labelNames: ['outcome'],
      registers,
    });
  }

  callCarriedOver(outcome: 'carried' | 'failed'): void {
    this.carried.inc({ outcome });
  }

  callPlaced(outcome: 'placed' | 'refused'): void {
    this.placed.inc({ outcome });
  }

  transferEnded(outcome: 'answered' | 'unanswered'): void {
    this.transfers.inc({ outcome });
  }

  callAnswered(by: MachineVerdict): void {
    this.answeredBy.inc({ by });
  }
}
