import { mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A directory of secret files, and its writer: `secret(name, content)` writes a file as
 * Kubernetes updates a mounted Secret's (a new file renamed over the old one), and gives its path.
 */
export function secretFiles(prefix: string): (name: string, content: string) => string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return (name, content) => {
    const path = join(dir, name);
    writeFileSync(`${path}.new`, content);
    renameSync(`${path}.new`, path);
    return path;
  };
}
