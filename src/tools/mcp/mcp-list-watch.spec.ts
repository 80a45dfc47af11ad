import { McpListWatch } from './mcp-list-watch.js';

describe('McpListWatch', () => {
  /** A watch over servers whose lists are `lists` (an Error: cannot be listed), checked by hand. */
  const watchOver = (lists: Map<string, string | Error>) => {
    const changed: string[] = [];
    const reads: string[] = [];
    const warnings: string[] = [];
    const outcomes: string[] = [];
    const watch = new McpListWatch(
      () =>
        new Map(
          [...lists.keys()].map((key) => [
            key,
            () => {
              reads.push(key);
              const list = lists.get(key)!;
              return list instanceof Error ? Promise.reject(list) : Promise.resolve(list);
            },
          ]),
        ),
      3_600_000,
      {
        changed: (key) => {
          changed.push(key);
          return Promise.resolve();
        },
        warn: (message) => warnings.push(message),
        read: (outcome) => outcomes.push(outcome),
      },
    );
    return { watch, changed, reads, warnings, outcomes };
  };

  it('reports a server whose list reads otherwise, and not one whose list reads the same', async () => {
    const lists = new Map<string, string | Error>([
      ['crm', '[lookup]'],
      ['maps', '[route]'],
    ]);
    const { watch, changed, reads } = watchOver(lists);
    await watch.start();
    expect(reads).toEqual([]); // nothing read at start: the tools were just listed
    // First read of each: compared with the tools themselves (the one who is told).
    await watch.check();
    expect(changed.sort()).toEqual(['crm', 'maps']);
    changed.length = 0;
    await watch.check();
    expect(changed).toEqual([]);
    lists.set('crm', '[lookup, refund]');
    await watch.check();
    expect(changed).toEqual(['crm']);
    expect(reads.filter((k) => k === 'maps')).toHaveLength(3);
    watch.stop();
  });

  it('changes nothing while a server cannot be listed, saying so once, and reports its new list once it can', async () => {
    const lists = new Map<string, string | Error>([['crm', '[lookup]']]);
    const { watch, changed, warnings, outcomes } = watchOver(lists);
    await watch.start();
    await watch.check();
    changed.length = 0;
    lists.set('crm', new Error('ECONNREFUSED'));
    await watch.check();
    await watch.check();
    expect(changed).toEqual([]);
    lists.set('crm', '[lookup]');
    await watch.check();
    expect(changed).toEqual([]); // back as it was
    lists.set('crm', new Error('ECONNREFUSED'));
    await watch.check();
    lists.set('crm', '[refund]');
    await watch.check();
    expect(changed).toEqual(['crm']);
    expect(outcomes).toEqual(['changed', 'failed', 'failed', 'same', 'failed', 'changed']);
    // Once a spell: two spells, two warnings.
    expect(warnings).toEqual([
      'ECONNREFUSED; its tools stay offered as it listed them',
      'ECONNREFUSED; its tools stay offered as it listed them',
    ]);
    watch.stop();
  });

  it('forgets a server no longer in use: back in use, its list is compared with its tools again', async () => {
    const lists = new Map<string, string | Error>([['crm', '[lookup]']]);
    const { watch, changed } = watchOver(lists);
    await watch.start();
    await watch.check();
    lists.delete('crm');
    await watch.check();
    lists.set('crm', '[lookup]');
    await watch.check();
    expect(changed).toEqual(['crm', 'crm']);
    watch.stop();
  });

  it('reads nothing once stopped', async () => {
    const { watch, reads } = watchOver(new Map([['crm', '[lookup]']]));
    await watch.start();
    watch.stop();
    await watch.check();
    expect(reads).toEqual([]);
  });
});
