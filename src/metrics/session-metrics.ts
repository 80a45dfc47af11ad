import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * WebSocket sessions, in the engine's registry: how many are open, how they began and how they
 * ended (a voice agent's calls handed to a person among them). Pure: no Nest import.
 */
export class SessionMetrics {
  private readonly startedTotal: Counter<'resumed'>;
  private readonly endedTotal: Counter<'reason'>;
  private readonly readsPausedTotal: Counter;

  /** `open`: the sessions open now, read at each scrape. */
  constructor(registry: Registry, open: () => number) {
    const registers = [registry];
    new Gauge({
      name: 'agent_engine_ws_sessions',
      help: 'WebSocket sessions open now',
      registers,
      collect() {
        this.set(open());
      },
    });
    this.startedTotal = new Counter({
      name: 'agent_engine_sessions_total',
      help: 'WebSocket sessions started; resumed="true" for those that resumed an earlier one',
      labelNames: ['resumed'],
      registers,
    });
    this.endedTotal = new Counter({
      name: 'agent_engine_sessions_ended_total',
      help: 'WebSocket sessions ended, by why: client (the client closed it), dropped (no close frame: a lost connection, a missed ping), agent (an end_session tool), transferred (a transfer_call tool), answering_machine (a placed call a machine took: the message left), user_idle (USER_IDLE_SECS), admin (DELETE /api/sessions), resumed_elsewhere, server_shutdown. Transferred over all ended: the share of calls handed to a person',
      labelNames: ['reason'],
      registers,
    });
    this.readsPausedTotal = new Counter({
      name: 'agent_engine_ws_reads_paused_total',
      help: 'Times a connection stopped being read because too many of its messages waited to be handled (a client sending faster than the engine answers it)',
      registers,
    });
  }

  started(resumed: boolean): void {
    this.startedTotal.inc({ resumed: String(resumed) });
  }

  /** A session ended, for `reason` (see close-codes.ts, `endReason`). */
  ended(reason: string): void {
    this.endedTotal.inc({ reason });
  }

  readsPaused(): void {
    this.readsPausedTotal.inc();
  }
}
