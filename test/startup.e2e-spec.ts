import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { runBuiltEngine as run } from './support/built-engine.js';
import { writeToolsFile } from './support/tools-file.js';

describe('node dist/main.js', () => {
  it.each([
    [{ PORT: '-1' }, 'PORT="-1" is invalid: expected an integer from 0 to 65535'],
    [{ LLM_TOOL_MAX_ITERATIONS: 'abc' }, 'LLM_TOOL_MAX_ITERATIONS="abc" is invalid'],
    [
      { ENGINE_PROCESSES: 'many' },
      'ENGINE_PROCESSES="many" is invalid: expected an integer from 1 to 64, or auto',
    ],
    [
      { ENGINE_PROCESSES: '2', LLM_TOOL_TIMEOUT_SECS: '-1' },
      'LLM_TOOL_TIMEOUT_SECS="-1" is invalid',
    ],
  ])('stops start-up on a bad variable, naming it: %j', async (env, message) => {
    const result = await run(env);
    expect(result.code).toBe(1);
    expect(result.output).toContain(message);
  });

  it.each([['1'], ['2']])(
    'stops start-up on a bad tools file, naming the file, the tool and the field (ENGINE_PROCESSES=%s)',
    async (processes) => {
      const file = writeToolsFile([{ name: 'ok', url: 'http://h/' }, { name: 'broken' }]);
      const result = await run({ LLM_TOOLS_FILE: file, ENGINE_PROCESSES: processes });
      expect(result.code).toBe(1);
      expect(result.output).toContain(`${file}: tool #1 'broken': field 'url' is required`);
    },
    // Two processes' start-ups: 6 s on an idle machine, twice that on a busy one.
    40_000,
  );

  it.each([['1'], ['2']])(
    'stops start-up on a port another process holds, naming PORT (ENGINE_PROCESSES=%s)',
    async (processes) => {
      const holder = createServer();
      await new Promise<void>((done) => holder.listen(0, done));
      const { port } = holder.address() as AddressInfo;
      try {
        const result = await run({ PORT: String(port), ENGINE_PROCESSES: processes });
        expect(result.code).toBe(1);
        // `listen EADDRINUSE …`, or `bind EADDRINUSE …` from a process of ENGINE_PROCESSES.
        expect(result.output).toMatch(
          new RegExp(
            `failed to start: PORT=${port}: another process listens on this port \\(\\w+ EADDRINUSE`,
          ),
        );
      } finally {
        holder.close();
      }
    },
    40_000,
  );

  it('stops start-up on a tool secret that is not set, naming the file, the tool and the field', async () => {
    const file = writeToolsFile([
      { name: 'crm', url: 'http://h/', headers: { 'X-Key': '${TOOL_SECRET_CRM}' } },
    ]);
    const result = await run({ LLM_TOOLS_FILE: file });
    expect(result.code).toBe(1);
    expect(result.output).toContain(
      `${file}: tool #0 'crm': field 'headers.X-Key' refers to \${TOOL_SECRET_CRM}, which is not set in the environment`,
    );
  });

  it('starts with the variables of the acceptance suite and serves HTTP and its probe, warning that the admin API is open', async () => {
    const result = await run(
      {
        PORT: '0',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_MODEL: 'm',
        LLM_TOOLS_FILE: 'tools.example.json',
        HTTPS_PROXY: 'http://proxy.corp:3128',
      },
      true,
    );
    try {
      const tools = (await (await fetch(`${result.url}/api/tools`)).json()) as {
        count: number;
        source: string;
      };
      expect(tools).toMatchObject({ count: 10, source: 'file' });
      expect((await fetch(`${result.url}/health`)).status).toBe(200);
    } finally {
      result.stop();
    }
    await result.exited;
    expect(result.output).toContain(
      'ADMIN_API_KEY is not set: anyone who reaches this port can change the tools',
    );
    // A cluster's proxy variable, which the engine does not read, is named once.
    expect(result.output).toContain(
      "HTTPS_PROXY is set but not used: the engine's requests go through a proxy only with EGRESS_PROXY",
    );
    // LLM_MODEL is set: nothing is asked of the LLM server before the first turn.
    expect(result.output).not.toContain('the LLM server at');
  });

  /** The libraries a started engine loaded, by package name, and what it wrote. */
  const loadedBy = async (
    env: Record<string, string>,
  ): Promise<{ libraries: string[]; output: string }> => {
    const file = join(mkdtempSync(join(tmpdir(), 'loaded-')), 'modules.txt');
    const hook = resolve('test/support/loaded-modules.mjs');
    const result = await run(
      {
        PORT: '0',
        LLM_BASE_URL: 'http://127.0.0.1:9/v1',
        LLM_MODEL: 'm',
        NODE_OPTIONS: `--import=${hook}`,
        LOADED_MODULES_FILE: file,
        ...env,
      },
      true,
    );
    result.stop();
    await result.exited;
    const urls = readFileSync(file, 'utf8').split('\n');
    const libraries = urls.map((u) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(u)?.[1] ?? '');
    return { libraries: [...new Set(libraries)], output: result.output };
  };

  it('loads the MCP SDK, the OpenAPI readers, the Redis client and OpenTelemetry’s SDK only when they are used', async () => {
    const plain = (await loadedBy({})).libraries;
    expect(plain).toContain('@nestjs/core'); // the hook sees the engine's libraries
    for (const library of [
      '@modelcontextprotocol/sdk',
      '@apidevtools/json-schema-ref-parser',
      'yaml',
      '@redis/client',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-proto',
      'swagger2openapi',
      // The redaction's IBAN checks (libphonenumber-js comes with class-validator anyway).
      'ibantools',
    ])
      expect(plain).not.toContain(library);
    // With a Redis session store (unreachable here: start-up goes on, the client retries), and
    // an OpenAPI tool.
    const { libraries: used, output } = await loadedBy({
      ADMIN_API_KEY: 'admin-key',
      LLM_MODEL: '',
      SESSION_STORE_URL: 'redis://127.0.0.1:9',
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9',
      LLM_TOOLS_FILE: writeToolsFile([
        {
          type: 'openapi',
          spec: resolve('test/fixtures/openapi/orders.yaml'),
          operation: 'getOrder',
          base_url: 'http://127.0.0.1:9',
        },
      ]),
    });
    for (const library of [
      '@apidevtools/json-schema-ref-parser',
      'yaml',
      '@redis/client',
      '@opentelemetry/sdk-trace-base',
      '@opentelemetry/exporter-trace-otlp-proto',
    ])
      expect(used).toContain(library);
    // The Swagger 2.0 converter, only for such a document.
    expect(used).not.toContain('swagger2openapi');
    // With the admin API's key set, no warning that it is open.
    expect(output).toContain('listening on');
    expect(output).not.toContain('ADMIN_API_KEY is not set');
    // Without LLM_MODEL, the GET /models the first turn would make is made at start-up: the
    // server not being there is in the log at once, and start-up goes on.
    expect(output).toContain('the LLM server at http://127.0.0.1:9/v1 cannot be reached');
    // Two start-ups with a module hook: ~12 s on an idle machine, twice that on a busy one.
  }, 60_000);
});
