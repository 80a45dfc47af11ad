import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileWatch } from './file-watch.js';

describe('FileWatch', () => {
  let dir: string;
  let changes: number;
  let watch: FileWatch;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'file-watch-'));
    changes = 0;
  });
  afterEach(() => {
    watch.stop();
    rmSync(dir, { recursive: true, force: true });
  });
  const start = async (paths: () => string[]) => {
    // A long interval: the test calls check() itself.
    watch = new FileWatch(paths, 60_000, () => Promise.resolve(void changes++));
    await watch.start();
  };

  it('sees a file written, removed and created again, and nothing when nothing changed', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, '[]');
    await start(() => [file]);
    await watch.check();
    expect(changes).toBe(0);
    writeFileSync(file, '[{"name":"a"}]');
    await watch.check();
    expect(changes).toBe(1);
    await watch.check();
    expect(changes).toBe(1);
    rmSync(file);
    await watch.check();
    writeFileSync(file, '[]');
    await watch.check();
    expect(changes).toBe(3);
  });

  it('misses no file removed just as a change has been read', async () => {
    const [a, b] = [join(dir, 'a.json'), join(dir, 'b.json')];
    writeFileSync(a, '[]');
    writeFileSync(b, '[]');
    let calls = 0;
    let removeAt = -1;
    // A directory's files, as the tools loader lists them; `a` goes when the check asks the
    // second time, as it takes what the next checks compare with.
    await start(() => {
      if (++calls === removeAt) rmSync(a);
      return [dir, ...readdirSync(dir).map((name) => join(dir, name))];
    });
    writeFileSync(b, '[{"name":"b"}]');
    removeAt = calls + 2;
    await watch.check();
    expect(changes).toBe(1);
    await watch.check();
    expect(changes).toBe(2);
    await watch.check();
    expect(changes).toBe(2);
  });

  it('sees a Kubernetes ConfigMap update: the data directory swapped under a symlink', async () => {
    // The kubelet's layout: tools.json -> ..data/tools.json, ..data -> ..<timestamp>/
    mkdirSync(join(dir, '..v1'));
    writeFileSync(join(dir, '..v1', 'tools.json'), '[]');
    symlinkSync('..v1', join(dir, '..data'));
    symlinkSync(join('..data', 'tools.json'), join(dir, 'tools.json'));
    utimesSync(join(dir, '..v1', 'tools.json'), 1e9, 1e9);
    await start(() => [join(dir, 'tools.json')]);
    mkdirSync(join(dir, '..v2'));
    writeFileSync(join(dir, '..v2', 'tools.json'), '[]'); // same size, another file
    utimesSync(join(dir, '..v2', 'tools.json'), 1e9, 1e9); // and the same time
    symlinkSync('..v2', join(dir, '..data_tmp'));
    renameSync(join(dir, '..data_tmp'), join(dir, '..data'));
    await watch.check();
    expect(changes).toBe(1);
  });

  it('watches the files the last change names', async () => {
    const file = join(dir, 'tools.json');
    const code = join(dir, 'tool.py');
    writeFileSync(file, '[]');
    writeFileSync(code, 'def f(): pass');
    let paths = [file];
    await start(() => paths);
    writeFileSync(file, '[{"file":"tool.py"}]');
    paths = [file, code];
    await watch.check();
    await watch.check();
    expect(changes).toBe(1); // the new list is the baseline: nothing changed since
    writeFileSync(code, 'def f():\n    return 1');
    await watch.check();
    expect(changes).toBe(2);
  });

  it('reads a file again when it was written while the change was read, and runs one check at a time', async () => {
    const file = join(dir, 'tools.json');
    writeFileSync(file, '[]');
    let edits = 0;
    watch = new FileWatch(
      () => [file],
      60_000,
      async () => {
        changes++;
        await new Promise((r) => setTimeout(r, 20));
        if (edits++ === 0) writeFileSync(file, '[{"name":"edited meanwhile"}]');
      },
    );
    await watch.start();
    writeFileSync(file, '[{"name":"a"}]');
    await Promise.all([watch.check(), watch.check()]);
    expect(changes).toBe(1);
    await watch.check();
    expect(changes).toBe(2);
    await watch.check();
    expect(changes).toBe(2);
  });
});
