/**
 * Where a change of the tool set is claimed before it is made (see ToolRegistry): the record of
 * the override in force across the engine, which takes a change only if it was based on the
 * override the record holds. With Redis, Redis's (every replica); without, the cluster's primary
 * (every engine process); in a process of its own, the process's set. Pure but for the record's
 * holders it is given: no Nest import.
 */
import type { ClusterLink } from '../cluster/cluster-link.js';
import type { ReplicaTools } from './replica-tools.js';
import { overrideVersion, type Claim } from './tool-set-version.js';

export class OverrideRecord {
  constructor(
    private readonly replicas: Pick<ReplicaTools, 'publish' | 'shared' | 'stored'>,
    private readonly processes: Pick<ClusterLink, 'publish' | 'current'>,
  ) {}

  /**
   * Makes `definitions` the override in force across the engine, installed in the other processes
   * and replicas; with `basedOn` (the version of the override the change was based on, '' for
   * none), only if that is still the one in force. Once the record took them, this process
   * installs, in its turn among the sets others made (`local.inTurn`), the override the record
   * holds then: these (`local.commit`), or one made after them (`local.adopt`), never an earlier
   * one. `local.based` tells whether this process's set is still the one the change was based on:
   * what is checked, in the same turn, where there is no other record (a process of its own;
   * while Redis is away, each replica's processes).
   */
  async claim(
    definitions: unknown,
    basedOn: string | undefined,
    local: {
      based: () => boolean;
      commit: () => void;
      adopt: (later: unknown) => Promise<void>;
      inTurn: <T>(step: () => T | PromiseLike<T>) => Promise<T>;
    },
  ): Promise<Claim> {
    const claimed: Claim = { outcome: 'claimed' };
    const version = overrideVersion(definitions);
    /** Installs what `record` holds now: these definitions, or a later override. */
    const settle = (record: () => Promise<unknown>) =>
      local.inTurn(async () => {
        const held: unknown = await record().catch(() => undefined);
        if (held === undefined || held === null || overrideVersion(held) === version)
          local.commit();
        else await local.adopt(held);
        return claimed;
      });
    /** Checked and made here, in one turn: no other change can come between. */
    const here = () =>
      local.inTurn((): Claim => {
        if (basedOn !== undefined && !local.based())
          return { outcome: 'conflict', definitions: null };
        local.commit();
        return claimed;
      });
    let replicas = await this.replicas.publish(definitions, basedOn);
    // A record with no override at all, where the change was based on one: Redis lost it (a
    // restart, an eviction), not another change: the change is the override from now on.
    if (replicas?.outcome === 'conflict' && replicas.definitions === null && basedOn)
      replicas = await this.replicas.publish(definitions, '');
    if (replicas?.outcome === 'conflict') return replicas;
    if (replicas || this.replicas.shared) {
      // Redis took it, or is away (each replica for itself meanwhile): the primary passes the
      // change on to this replica's other processes, whose overrides came from Redis, not it.
      const made = replicas ? await settle(() => this.replicas.stored()) : await here();
      if (made.outcome === 'claimed') await this.processes.publish(definitions);
      return made;
    }
    const processes = await this.processes.publish(definitions, basedOn);
    if (!processes) return here();
    if (processes.outcome === 'conflict') return processes;
    return settle(() => this.processes.current());
  }
}
