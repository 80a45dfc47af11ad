// The README is the reference for operators and client authors: every setting the engine reads,
// every message a client may send and every error code it may receive must be documented there.
import { readdirSync, readFileSync } from 'node:fs';
import { ERROR_CODES } from '../src/orchestrator/protocol/error-codes.js';
import { CLIENT_MESSAGE_TYPES } from '../src/orchestrator/protocol/client-messages.js';
import { SERVER_EVENT_TYPES } from '../src/orchestrator/protocol/server-events.js';
import { parseEnv } from '../src/config/env.js';
import { ENGINE_VARIABLES } from './support/engine-variables.js';

const readme = readFileSync('README.md', 'utf8');
const section = (title: string) => {
  const start = readme.indexOf(`\n## ${title}`);
  expect(start).toBeGreaterThan(-1);
  const end = readme.indexOf('\n## ', start + 1);
  return readme.slice(start, end === -1 ? undefined : end);
};
/** First-column names of a Markdown table's rows. */
const tableKeys = (text: string) => [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);

describe('README', () => {
  it('has a configuration row for every variable the engine reads, and no other', () => {
    const read = new Set(ENGINE_VARIABLES);
    const keys = tableKeys(section('Configuration'));
    const documented = new Set(keys.filter((k) => !k.endsWith('*')));
    expect([...read].filter((v) => !documented.has(v))).toEqual([]);
    expect([...documented].filter((v) => !read.has(v))).toEqual([]);
    // A family of variables (`TOOL_SECRET_*`) is read by name prefix somewhere in the engine.
    const sources = readdirSync('src', { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'))
      .map((f) => readFileSync(`src/${f}`, 'utf8'))
      .join('\n');
    for (const family of keys.filter((k) => k.endsWith('*')))
      expect({ family, read: sources.includes(family.slice(0, -1)) }).toEqual({
        family,
        read: true,
      });
  });

  it('gives each variable the default its row says (a default written as one value)', () => {
    const rows = [...section('Configuration').matchAll(/^\| `([A-Z0-9_]+)` \| `([^`|]*)` \|/gm)];
    expect(rows.length).toBeGreaterThan(50);
    const defaults = JSON.stringify(parseEnv({}));
    const differing = rows
      .filter(([, name, value]) => JSON.stringify(parseEnv({ [name!]: value })) !== defaults)
      .map(([, name, value]) => `${name}=${value}`);
    expect(differing).toEqual([]);
  });

  it('.env.example names every variable the engine reads', () => {
    const example = readFileSync('.env.example', 'utf8');
    expect(ENGINE_VARIABLES.filter((v) => !new RegExp(`^#? ?${v}=`, 'm').test(example))).toEqual(
      [],
    );
  });

  it('documents every client message type of the WebSocket protocol', () => {
    const protocol = section('WebSocket protocol');
    for (const type of CLIENT_MESSAGE_TYPES) expect(protocol).toContain(`{"type":"${type}"`);
  });

  it('documents every message the engine sends on the WebSocket', () => {
    const protocol = section('WebSocket protocol');
    for (const type of SERVER_EVENT_TYPES) expect(protocol).toContain(`{"type":"${type}"`);
  });

  it('lists every error code with its meaning', () => {
    const documented = tableKeys(section('WebSocket protocol'));
    for (const code of ERROR_CODES) expect(documented).toContain(code);
  });

  it('has a contents list of every section and subsection, in order, linking to each', () => {
    // GitHub's anchor of a heading: lower case, punctuation dropped, spaces made hyphens.
    const anchor = (title: string) =>
      title
        .toLowerCase()
        .replace(/[^\p{L}\p{N} _-]/gu, '')
        .replace(/ /g, '-');
    const headings: string[] = [];
    let fenced = false;
    for (const line of readme.split('\n')) {
      if (line.startsWith('```')) fenced = !fenced;
      const heading = fenced ? null : /^(##|###) (.+)$/.exec(line);
      if (heading && heading[2] !== 'Contents')
        headings.push(
          `${heading[1] === '##' ? '-' : '  -'} [${heading[2]!.replace(/`/g, '')}](#${anchor(heading[2]!)})`,
        );
    }
    const listed = section('Contents')
      .split('\n')
      .filter((line) => /^ *- \[/.test(line));
    expect(listed).toEqual(headings);
    expect(new Set(headings).size).toBe(headings.length); // no two anchors alike
  });
});
