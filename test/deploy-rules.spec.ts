// deploy/prometheus-rules.yaml is what operators load into Prometheus: an expression that does
// not parse is refused, and one naming a metric or label the engine does not export never fires.
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

describe('deploy/prometheus-rules.yaml', () => {
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

  it.each(rules.map((r) => [r.alert, r]))('%s: its expression parses as PromQL', (_, rule) => {
    const errors = nodes(rule.expr).filter(({ node }) => node.type.isError);
    expect(errors.map(({ node }) => rule.expr.slice(node.from, node.from + 20))).toEqual([]);
  });

  it.each(rules.map((r) => [r.alert, r]))(
    '%s: selects only metrics the engine exports, by labels they have',
    (_, rule) => {
      const metrics = metricsOf(rule.expr);
      expect(metrics.length).toBeGreaterThan(0);
      const labels = new Set([...TARGET_LABELS]);
      for (const metric of metrics) {
        const histogram = /^(.+)_(bucket|sum|count)$/.exec(metric)?.[1];
        const base = histogram && exported.get(histogram) === 'histogram' ? histogram : metric;
        expect([metric, exported.has(base)]).toEqual([metric, true]);
        if (histogram && base === histogram) labels.add('le');
        for (const label of README_LABELS.get(base) ?? []) labels.add(label);
      }
      const used = nodes(rule.expr)
        .filter(({ name }) => name === 'LabelName')
        .map(({ text }) => text);
      expect(used.filter((label) => !labels.has(label))).toEqual([]);
    },
  );
});
