// deploy/kubernetes.yaml is what operators copy: it must stay a valid configuration of this
// engine (its settings, probes, port, drain timing and tools file), not drift from it.
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { parseEnv } from '../src/config/env.js';
import { validateToolDefinitions } from '../src/tools/tool-validation.js';
import { ENGINE_VARIABLES } from './support/engine-variables.js';
import { PRIMARY_PAST_GRACE_SECS, STOP_PAST_GRACE_SECS } from '../src/lifecycle/stop-bounds.js';

const docs = parseAllDocuments(readFileSync('deploy/kubernetes.yaml', 'utf8')).map((d) => {
  expect(d.errors).toEqual([]);
  return d.toJS() as Record<string, any>;
});
const find = (kind: string, name: string) => {
  const doc = docs.find((d) => d.kind === kind && d.metadata.name === name);
  expect(doc).toBeDefined();
  return doc!;
};
const settings = find('ConfigMap', 'agent-engine').data as Record<string, string>;
const secrets = find('Secret', 'agent-engine').stringData as Record<string, string>;
const pod = find('Deployment', 'agent-engine').spec.template;
const [engine] = pod.spec.containers as Record<string, any>[];
const openapi = JSON.parse(readFileSync('openapi.json', 'utf8')) as { paths: object };

describe('deploy/kubernetes.yaml', () => {
  it('sets only settings the engine reads, and they pass its start-up checks', () => {
    const unknown = Object.keys({ ...settings, ...secrets }).filter(
      (name) => !ENGINE_VARIABLES.includes(name) && !name.startsWith('TOOL_SECRET_'),
    );
    expect(unknown).toEqual([]);
    expect(() => parseEnv({ ...settings, ...secrets })).not.toThrow();
    expect(engine!.envFrom).toEqual([
      { configMapRef: { name: 'agent-engine' } },
      { secretRef: { name: 'agent-engine' } },
    ]);
  });

  it('mounts a tools file that loads, with every secret it refers to in the Secret', () => {
    const tools = find('ConfigMap', 'agent-engine-tools').data['tools.json'] as string;
    const mount = engine!.volumeMounts.find((m: any) => m.name === 'tools');
    const volume = pod.spec.volumes.find((v: any) => v.name === 'tools');
    expect(`${mount.mountPath}/${volume.configMap.items[0].path}`).toBe(settings.LLM_TOOLS_FILE);
    expect(volume.configMap.name).toBe('agent-engine-tools');
    const { tools: loaded } = validateToolDefinitions(JSON.parse(tools), 'tools.json', {
      env: secrets,
    });
    expect(loaded.map((t) => t.name)).toEqual(['get_weather', 'lookup_customer']);
  });

  it("probes the engine's readiness and liveness endpoints on its port", () => {
    const port = parseEnv(settings).port;
    expect(engine!.ports).toEqual([{ name: 'http', containerPort: port }]);
    expect(engine!.readinessProbe.httpGet).toEqual({ path: '/health', port: 'http' });
    expect(engine!.livenessProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(engine!.startupProbe.httpGet).toEqual({ path: '/health/live', port: 'http' });
    expect(Object.keys(openapi.paths)).toEqual(expect.arrayContaining(['/health', '/health/live']));
    const service = find('Service', 'agent-engine').spec;
    expect(service.ports[0].targetPort).toBe('http');
    expect(service.selector).toEqual(pod.metadata.labels);
  });

  it('gives the engine time to drain and exit before the kubelet kills it', () => {
    const grace = parseEnv(settings).shutdownGraceSecs;
    // The preStop pause (the Service stops sending connections here), then the stop's bound.
    const [sleep, pause] = engine!.lifecycle.preStop.exec.command as string[];
    expect(sleep).toBe('sleep');
    // The latest a stop ends: ENGINE_PROCESSES' primary's bound (one process's is shorter).
    expect(PRIMARY_PAST_GRACE_SECS).toBeGreaterThan(STOP_PAST_GRACE_SECS);
    const stop = Number(pause) + grace + PRIMARY_PAST_GRACE_SECS;
    expect(pod.spec.terminationGracePeriodSeconds).toBeGreaterThan(stop);
    // docker compose too: its stop_grace_period.
    const compose = readFileSync('docker-compose.yml', 'utf8');
    const [, period] = /^\s+stop_grace_period: (\d+)s$/m.exec(compose) ?? [];
    expect(compose).not.toContain('SHUTDOWN_GRACE_SECS:'); // the engine's default, then
    const defaultGrace = parseEnv({ LLM_BASE_URL: 'http://llm:8000/v1' }).shutdownGraceSecs;
    expect(Number(period)).toBeGreaterThan(defaultGrace + PRIMARY_PAST_GRACE_SECS);
  });

  it('runs as the image user, without privileges, and points sessions at its Redis', () => {
    expect(readFileSync('Dockerfile', 'utf8')).toMatch(/^USER node$/m); // uid 1000 in node images
    expect(pod.spec.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000 });
    expect(engine!.securityContext).toMatchObject({ allowPrivilegeEscalation: false });
    const redis = find('Service', 'agent-engine-redis').spec.ports[0].port as number;
    expect(settings.SESSION_STORE_URL).toBe(`redis://agent-engine-redis:${redis}`);
  });
});
