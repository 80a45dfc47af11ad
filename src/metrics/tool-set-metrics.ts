import { Counter, Gauge, type Registry } from 'prom-client';

/**
 * The tool set's upkeep, in the engine's registry: tools whose service is down, the tokens their
 * OAuth 2.0 endpoints give, reloads of the tools file, MCP servers' lists read again and changes
 * over /api/tools. Pure: no Nest import.
 */
export class ToolSetMetrics {
  private readonly circuitsOpen: Gauge<'tool'>;
  private readonly oauth2Tokens: Counter<'outcome'>;
  private readonly fileReloads: Counter<'outcome'>;
  private readonly changes: Counter<'outcome'>;
  private readonly mcpListReads: Counter<'outcome'>;

  constructor(registry: Registry) {
    const registers = [registry];
    this.circuitsOpen = new Gauge({
      name: 'agent_engine_tool_circuit_open',
      help: 'HTTP tools whose calls are not sent now, their backend having failed LLM_TOOL_BREAKER_FAILURES calls in a row (1 open, 0 closed), by tool',
      labelNames: ['tool'],
      registers,
      // Summed over processes, it would count them: 1 is "open in some process".
      aggregator: 'max',
    });
    this.oauth2Tokens = new Counter({
      name: 'agent_engine_oauth2_token_requests_total',
      help: "Access tokens asked of tools' OAuth 2.0 token endpoints (oauth2), by outcome: ok, failed (no token: the calls that needed it failed)",
      labelNames: ['outcome'],
      registers,
    });
    this.fileReloads = new Counter({
      name: 'agent_engine_tools_file_reloads_total',
      help: 'Reloads of the tools file after a change of it (LLM_TOOLS_FILE_WATCH_SECS) or of an OpenAPI document at a URL it names (LLM_TOOLS_SPEC_URL_WATCH_SECS), by outcome: installed, invalid (the tools in use kept), kept_override (an override from /api/tools in force)',
      labelNames: ['outcome'],
      registers,
    });
    this.changes = new Counter({
      name: 'agent_engine_tool_set_changes_total',
      help: 'Changes of the tool set asked for over /api/tools (POST, PUT, DELETE; not dry runs), by outcome: made, invalid (400), precondition_failed (If-Match no longer held, 412), overtaken (other changes kept coming for 30 s, 409)',
      labelNames: ['outcome'],
      registers,
    });
    this.mcpListReads = new Counter({
      name: 'agent_engine_mcp_list_reads_total',
      help: "MCP servers' lists of tools read by LLM_TOOLS_MCP_LIST_WATCH_SECS, by outcome: same, changed (the tools made from it again), failed (the server could not be listed; its tools kept)",
      labelNames: ['outcome'],
      registers,
    });
  }

  /** A tool's circuit opened (its calls are not sent) or closed. */
  circuit(tool: string, open: boolean): void {
    this.circuitsOpen.set({ tool }, open ? 1 : 0);
  }

  oauth2TokenRequest(outcome: 'ok' | 'failed'): void {
    this.oauth2Tokens.inc({ outcome });
  }

  /** The tools file changed and was read. */
  fileReload(outcome: 'installed' | 'invalid' | 'kept_override'): void {
    this.fileReloads.inc({ outcome });
  }

  /** A change of the tool set asked for over /api/tools ended so. */
  change(outcome: 'made' | 'invalid' | 'precondition_failed' | 'overtaken'): void {
    this.changes.inc({ outcome });
  }

  /** The MCP list watch read a server's list: as before, otherwise, or not at all. */
  mcpListRead(outcome: 'same' | 'changed' | 'failed'): void {
    this.mcpListReads.inc({ outcome });
  }
}
