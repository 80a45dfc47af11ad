// deploy/prometheus-rules.yaml and deploy/grafana-dashboard.json are what operators load into
// Prometheus and Grafana: an expression that does not parse is refused, and one naming a metric or
// label the engine does not export never fires, or draws nothing.
import { readFileSync } from 'node:fs';
import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';
import { parseDocument } from 'yaml';
import { Engine } from './support/engine.js';
import { useFakeLlm } from './support/fake-llm.js';

interface Rule {
  alert: string;
  expr: string;
  for?: string;
  labels: Record<string, string>;
  annotations: Record<string, string>;
}

const document = parseDocument(readFileSync('deploy/prometheus-rules.yaml', 'utf8'));
const spec = document.toJS() as {
  kind: string;
  spec: { groups: { name: string; rules: Rule[] }[] };
};
const rules = spec.spec.groups.flatMap((g) => g.rules);
const dashboard = JSON.parse(readFileSync('deploy/grafana-dashboard.json', 'utf8')) as {
  uid: string;
  panels: { id: number; title: string; datasource: unknown; targets: { expr: string }[] }[];
};
const { panels } = dashboard;

/** Labels Prometheus adds to every series of a target (Kubernetes service discovery's among them). */
const TARGET_LABELS = ['job', 'instance', 'namespace', 'pod', 'service', 'container'];

/** The README's metrics table: each metric's labels (`name{a,b}`). */
const README_LABELS = new Map(
  [
    ...readFileSync('README.md', 'utf8').matchAll(/^\| `(agent_engine_\w+)(?:\{([\w,]+)\})?` \|/gm),
  ].map(([, name, labels]) => [name!, labels ? labels.split(',') : []]),
);

/** Each node of `expr`'s syntax tree: its type's name and text. */
function nodes(expr: string): { name: string; text: string; node: SyntaxNode }[] {
  const found: { name: string; text: string; node: SyntaxNode }[] = [];
  const cursor = parser.parse(expr).cursor();
  do found.push({ name: cursor.name, text: expr.slice(cursor.from, cursor.to), node: cursor.node });
  while (cursor.next());
  return found;
}

/** The metric names `expr` selects. */
const metricsOf = (expr: string) =>
  nodes(expr)
    .filter(({ name, node }) => name === 'Identifier' && node.parent?.name === 'VectorSelector')
    .map(({ text }) => text);

describe('deploy/prometheus-rules.yaml and deploy/grafana-dashboard.json', () => {
  const { url } = useFakeLlm();
  let exported: Map<string, string>;
  beforeAll(async () => {
    const engine = await Engine.start({ LLM_BASE_URL: url(), LLM_MODEL: 'm' });
    try {
      const scrape = await (await fetch(`${engine.httpUrl}/metrics`)).text();
      exported = new Map(
        [...scrape.matchAll(/^# TYPE (\S+) (\S+)$/gm)].map(([, name, type]) => [name!, type!]),
      );
    } finally {
      await engine.stop();
    }
  });

  it('is a PrometheusRule of alerts, each named once, with a severity and words for people', () => {
    expect(document.errors).toEqual([]);
    expect(spec.kind).toBe('PrometheusRule');
    expect(rules.length).toBeGreaterThan(5);
    expect(new Set(rules.map((r) => r.alert)).size).toBe(rules.length);
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^AgentEngine[A-Z]\w+$/);
      expect(['warning', 'critical']).toContain(rule.labels.severity);
      expect(rule.annotations.summary).toBeTruthy();
      expect(rule.annotations.description).toBeTruthy();
      if (rule.for !== undefined) expect(rule.for).toMatch(/^\d+[smh]$/);
    }
  });

  it('is a dashboard of panels each with an id of its own, on the Prometheus chosen at import', () => {
    expect(dashboard.uid).toBe('agent-engine');
    expect(new Set(panels.map((p) => p.id)).size).toBe(panels.length);
    for (const panel of panels) {
      expect(panel.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(panel.targets.length).toBeGreaterThan(0);
    }
  });

  /** What is wrong with `expr`: a syntax error, a metric the engine does not export, a label it lacks. */
  function problems(expr: string): string[] {
    const found = nodes(expr);
    const errors = found
      .filter(({ node }) => node.type.isError)
      .map(
        ({ node }) => `syntax error at ${JSON.stringify(expr.slice(node.from, node.from + 20))}`,
      );
    const metrics = metricsOf(expr);
    if (metrics.length === 0) errors.push('no metric');
    const labels = new Set(TARGET_LABELS);
    for (const metric of metrics) {
      const histogram = /^(.+)_(bucket|sum|count)$/.exec(metric)?.[1];
      const base = histogram && exported.get(histogram) === 'histogram' ? histogram : metric;
      if (!exported.has(base)) errors.push(`${metric} is not exported`);
      if (base !== metric) labels.add('le');
      for (const label of README_LABELS.get(base) ?? []) labels.add(label);
    }
    for (const { text } of found.filter(({ name }) => name === 'LabelName'))
      if (!labels.has(text)) errors.push(`no metric of it has the label ${text}`);
    return errors;
  }

  it.each(rules.map((r) => [r.alert, r.expr]))(
    '%s: parses as PromQL, selecting metrics the engine exports by labels they have',
    (_, expr) => expect(problems(expr)).toEqual([]),
  );

  it.each(panels.flatMap((p) => p.targets.map((t) => [p.title, t.expr])))(
    'the dashboard\'s "%s": parses, selecting metrics the engine exports by labels they have',
    // Grafana's own variable stands for a range.
    (_, expr) => expect(problems(expr.replaceAll('$__rate_interval', '5m'))).toEqual([]),
  );
});
