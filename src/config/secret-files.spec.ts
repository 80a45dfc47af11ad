import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EnvError } from './env-values.js';
import { rereadSecrets, secretFiles } from './secret-files.js';

describe('secretFiles (NAME_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'engine-secrets-'));
  const file = (name: string, content: string) => {
    const path = join(dir, name);
    writeFileSync(path, content);
    return path;
  };

  it("reads each secret setting's and TOOL_SECRET_*'s file, one trailing line break dropped", () => {
    expect(
      secretFiles({
        LLM_API_KEY_FILE: file('llm', 'sk-from-file\n'),
        TOOL_SECRET_CRM_TOKEN_FILE: file('crm', 'crm token\r\n'),
        EGRESS_PROXY_FILE: ` ${file('proxy', 'http://u:p@proxy:3128')} `,
        WS_API_KEY_FILE: file('ws', 'two lines\nkept\n\n'),
      }),
    ).toEqual({
      LLM_API_KEY: 'sk-from-file',
      TOOL_SECRET_CRM_TOKEN: 'crm token',
      EGRESS_PROXY: 'http://u:p@proxy:3128',
      WS_API_KEY: 'two lines\nkept\n',
    });
  });

  it('leaves other _FILE variables alone: LLM_TOOLS_FILE is a path, not a secret', () => {
    expect(
      secretFiles({ LLM_TOOLS_FILE: '/nonexistent/tools.json', LLM_MODEL_FILE: '/x' }),
    ).toEqual({});
  });

  it('stops start-up, naming the variable and never the secret, on a file that cannot be read, is empty, or a secret set twice', () => {
    const cases: [Record<string, string>, string][] = [
      [
        { ADMIN_API_KEY_FILE: join(dir, 'missing') },
        `ADMIN_API_KEY_FILE="${join(dir, 'missing')}" cannot be read (ENOENT)`,
      ],
      [
        { STT_API_KEY_FILE: file('empty', '\n') },
        `STT_API_KEY_FILE="${join(dir, 'empty')}" is empty`,
      ],
      [
        { LLM_API_KEY: 'sk-inline', LLM_API_KEY_FILE: file('again', 'sk-file') },
        'LLM_API_KEY and LLM_API_KEY_FILE are both set: give the secret one way',
      ],
      [
        { TTS_API_KEY_FILE: file('big', 'x'.repeat(70_000)) },
        `TTS_API_KEY_FILE="${join(dir, 'big')}" is no secret file: over 64 KiB`,
      ],
    ];
    for (const [raw, message] of cases) {
      expect(() => secretFiles(raw)).toThrow(new EnvError(message));
      expect(() => secretFiles(raw)).not.toThrow(/sk-/);
    }
  });

  it('reads again only the files of keys read at each request (or connection), each result on its own', () => {
    const results = rereadSecrets({
      LLM_API_KEY_FILE: file('llm-2', 'sk-2\n'),
      ADMIN_API_KEY_FILE: file('admin-2', ''),
      WS_API_KEY_FILE: join(dir, 'gone'),
      LLM_CLIENT_KEY_PASSPHRASE_FILE: file('passphrase-2', 'open sesame'),
      EGRESS_PROXY_FILE: file('proxy-2', 'http://proxy:3128'),
      SESSION_STORE_URL_FILE: file('redis-2', 'redis://r:6379'),
      TOOL_SECRET_X_FILE: file('x-2', 'x'),
    });
    expect(results).toEqual({
      LLM_API_KEY: { value: 'sk-2' },
      SESSION_STORE_URL: { value: 'redis://r:6379' },
      EGRESS_PROXY: { value: 'http://proxy:3128' },
      ADMIN_API_KEY: { error: expect.stringMatching(/^ADMIN_API_KEY_FILE=".*admin-2" is empty$/) },
      WS_API_KEY: {
        error: expect.stringMatching(/^WS_API_KEY_FILE=".*gone" cannot be read \(ENOENT\)$/),
      },
    });
  });
});
