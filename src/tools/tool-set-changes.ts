/**
 * Changes of the tool set over the admin API, made without undoing another change unseen: a change
 * is made from the set in force, and only if that set is still the one in force across the engine
 * when it is made (see OverrideRecord). A change of one tool (`PUT`, `DELETE /api/tools/{name}`)
 * that another change overtook is made again from the set that change made; a change with
 * `If-Match` is refused (412); a whole set posted without it replaces whatever is in force. Pure
 * but for the host and record it is given: no Nest import.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { snapshotOf, type Tool, type ToolSnapshot } from './tool-definition.js';
import type { OverrideRecord } from './override-record.js';
import { ToolDefinitionError } from './definition-error.js';
import {
  etagOf,
  ifMatchAllows,
  overrideBase,
  setVersion,
  ToolSetChanged,
} from './tool-set-version.js';

export interface ChangeOptions {
  /** Check the change and answer the set it would make, changing nothing. */
  dryRun?: boolean;
  /** An If-Match header: the change is made only if the set in force still has that ETag. */
  ifMatch?: string;
}

/** A change: the definitions to install made from the set in force (undefined: nothing to do). */
export type Edit = (
  set: ToolSnapshot,
) => { definitions: unknown; kept?: ReadonlySet<number> } | undefined;

/** What the registry does for a change. */
export interface ChangeHost {
  /** The set in force here (kept while tools are disabled). */
  current(): ToolSnapshot;
  /** The set the API shows (none while tools are disabled). */
  active(): ToolSnapshot;
  /**
   * Validates `definitions` (`kept`: places of definitions kept from the set in force), what it
   * warns of pushed to `warnings`.
   */
  validate(
    definitions: unknown,
    source: string,
    kept: ReadonlySet<number> | undefined,
    warnings: string[],
  ): Promise<Tool[]>;
  /** Stops what a change that was not made started (MCP servers the set in force does not run). */
  drop(): void;
  /** Installs `tools` here, at once: the set in force from the next turn. */
  commit(tools: Tool[], source: string, warnings: readonly string[]): ToolSnapshot;
  /**
   * Installs, at once, an override another change made (called in its turn), unless it is the
   * set in force already.
   */
  adopt(later: unknown): Promise<void>;
  /**
   * Runs `step` in its turn among the installs of the sets others made, in the order they came
   * (and were made), so that an earlier set never replaces a later one.
   */
  inTurn<T>(step: () => T | PromiseLike<T>): Promise<T>;
  /** Counts a change asked for (not a dry run) by its outcome. */
  counted(outcome: ChangeOutcome): void;
}

/**
 * How a change ended: made; `invalid` (400); `precondition_failed` (If-Match, 412); `overtaken`
 * (other changes for OVERTAKEN_MS, 409).
 */
export type ChangeOutcome = 'made' | 'invalid' | 'precondition_failed' | 'overtaken';

/** How long a change of one tool is made again while other changes keep overtaking it. */
const OVERTAKEN_MS = 30_000;
/** How long a change overtaken waits for the set that overtook it to come from the record. */
const CATCH_UP_MS = 2000;

export class ToolSetChanges {
  constructor(
    private readonly host: ChangeHost,
    private readonly record: OverrideRecord,
  ) {}

  /**
   * Makes `edit` (`based`: from the set in force, made again if another change overtook it);
   * throws ToolDefinitionError, or ToolSetChanged, and changes nothing.
   */
  async make(
    edit: Edit,
    source: string,
    opts: ChangeOptions & { based?: boolean },
  ): Promise<ToolSnapshot | undefined> {
    const count = (outcome: ChangeOutcome) => !opts.dryRun && this.host.counted(outcome);
    try {
      const made = await this.attempts(edit, source, opts);
      if (made) count('made');
      return made;
    } catch (error) {
      if (error instanceof ToolDefinitionError) count('invalid');
      if (error instanceof ToolSetChanged)
        count(error.status === 412 ? 'precondition_failed' : 'overtaken');
      throw error;
    }
  }

  private async attempts(
    edit: Edit,
    source: string,
    opts: ChangeOptions & { based?: boolean },
  ): Promise<ToolSnapshot | undefined> {
    const giveUp = performance.now() + OVERTAKEN_MS;
    for (let attempt = 1; ; attempt++) {
      const base = this.host.current();
      const version = setVersion(base);
      if (opts.ifMatch !== undefined && !ifMatchAllows(opts.ifMatch, version))
        throw new ToolSetChanged(
          412,
          `the tools changed since they were read: If-Match ${opts.ifMatch}, their ETag is now ${etagOf(version)}; read them again (GET /api/tools) and make the change on what they are now`,
        );
      const edited = edit(base);
      if (!edited) return undefined;
      const warnings: string[] = [];
      const tools = await this.host.validate(edited.definitions, source, edited.kept, warnings);
      if (opts.dryRun) return (this.host.drop(), snapshotOf('request', tools, warnings));
      const conditional = opts.based || opts.ifMatch !== undefined;
      let made: ToolSnapshot | undefined;
      const claim = await this.record.claim(
        edited.definitions,
        conditional ? overrideBase(base) : undefined,
        {
          based: () => setVersion(this.host.current()) === version,
          commit: () => (made = this.host.commit(tools, source, warnings)),
          adopt: (later) => this.host.adopt(later),
          inTurn: this.host.inTurn,
        },
      );
      if (claim.outcome === 'claimed') return made ?? this.host.active();
      this.host.drop();
      if (opts.ifMatch !== undefined)
        throw new ToolSetChanged(
          412,
          `the tools were changed by another request while this one was checked: If-Match ${opts.ifMatch} no longer holds; read them again (GET /api/tools) and make the change on what they are now`,
        );
      if (performance.now() > giveUp)
        throw new ToolSetChanged(
          409,
          `the tools were changed by other requests ${attempt} times in ${OVERTAKEN_MS / 1000}s while this change was made; nothing was changed: try again`,
        );
      await this.caughtUp(base, claim.definitions);
      // Changes made at once spread out, so that each soon finds the set unchanged.
      await sleep(Math.random() * 10 * Math.min(attempt, 10));
    }
  }

  /**
   * Once another change overtook one based on `base`: waits until the set it made is installed
   * here, as it comes in its turn from the record (the primary, Redis's pub/sub); one that has not
   * come within CATCH_UP_MS is installed from the record's answer, `other`.
   */
  private async caughtUp(base: ToolSnapshot, other: unknown): Promise<void> {
    const until = performance.now() + CATCH_UP_MS;
    while (this.host.current() === base && performance.now() < until) await sleep(10);
    if (this.host.current() !== base || other === null) return;
    await this.host
      .inTurn(() => this.host.adopt(other))
      .catch((error: Error) => {
        throw new ToolSetChanged(
          409,
          `the tools were changed by another request, and the set it made cannot be used here, so this change was not made: ${error.message}`,
        );
      });
  }
}
