/**
 * A scenarios file's runs against an engine, a few at a time, and what they came to: each
 * scenario passed when enough of its runs did, and the figures of all of them. Pure: no Nest import.
 */
import type { ScenarioFile } from './scenario-file.js';
import { runScenario, type RunOptions, type RunResult } from './scenario-run.js';

export interface ScenarioResult {
  name: string;
  runs: RunResult[];
  /** Runs that must pass. */
  needed: number;
  passes: number;
  passed: boolean;
}

export interface EvalSummary {
  scenarios: number;
  scenariosPassed: number;
  runs: number;
  runsPassed: number;
  /** Turns held whose scenario says which calls to make (or none), and those that made them. */
  callTurns: number;
  callTurnsAsExpected: number;
  /** The calls the model got wrong (not run), by kind: `invalid_arguments`, `unknown_tool`… */
  modelErrors: Record<string, number>;
  /** The first text after the turn was given, over every turn that had one (nearest rank). */
  firstTextMs: Percentiles | null;
  /** The first audio likewise (voice sessions); null: no turn had any. */
  firstAudioMs: Percentiles | null;
  /** Requests to the model per turn (its `timings`' `llm_requests`); null: no turn told them. */
  llmRequests: Percentiles | null;
}

/** Runs every scenario its number of times, `concurrency` conversations at once, in file order. */
export async function runAll(
  file: ScenarioFile,
  options: RunOptions,
  concurrency: number,
  onResult?: (result: ScenarioResult) => void,
): Promise<ScenarioResult[]> {
  const jobs = file.scenarios.flatMap((scenario, s) =>
    Array.from({ length: scenario.runs ?? file.runs }, (_, r) => ({ scenario, s, r })),
  );
  const results = file.scenarios.map((scenario) => ({
    name: scenario.name,
    runs: [] as RunResult[],
    needed: scenario.min_passes ?? scenario.runs ?? file.runs,
  }));
  const left = file.scenarios.map((scenario) => scenario.runs ?? file.runs);
  const done: ScenarioResult[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const { scenario, s, r } = jobs[next++]!;
      results[s]!.runs[r] = await runScenario(scenario, options, file.audio);
      if (--left[s]! === 0) {
        const passes = results[s]!.runs.filter((run) => run.passed).length;
        const result = { ...results[s]!, passes, passed: passes >= results[s]!.needed };
        done[s] = result;
        onResult?.(result);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, concurrency) }, worker));
  return done;
}

export interface Percentiles {
  p50: number;
  p90: number;
}

const rank = (sorted: number[], p: number) =>
  sorted[Math.max(0, Math.ceil(sorted.length * p) - 1)]!;

/** The p50 and p90 of `values` that are there (nearest rank, whole ms); null: none. */
function percentiles(values: (number | undefined)[]): Percentiles | null {
  const sorted = values.filter((ms): ms is number => ms !== undefined).sort((a, b) => a - b);
  return sorted.length === 0
    ? null
    : { p50: Math.round(rank(sorted, 0.5)), p90: Math.round(rank(sorted, 0.9)) };
}

export function summarise(results: ScenarioResult[], file: ScenarioFile): EvalSummary {
  const runs = results.flatMap((r) => r.runs);
  const turns = results.flatMap((result, s) =>
    result.runs.flatMap((run) =>
      run.turns.map((turn, t) => ({ turn, expect: file.scenarios[s]!.turns[t]!.expect })),
    ),
  );
  const callTurns = turns.filter(({ expect }) => expect?.tool_calls !== undefined);
  return {
    scenarios: results.length,
    scenariosPassed: results.filter((r) => r.passed).length,
    runs: runs.length,
    runsPassed: runs.filter((r) => r.passed).length,
    callTurns: callTurns.length,
    callTurnsAsExpected: callTurns.filter(
      ({ turn }) => !turn.failures.some((f) => /^expected (no tool call|a call )/.test(f)),
    ).length,
    modelErrors: turns
      .flatMap(({ turn }) => turn.modelErrors)
      .reduce<Record<string, number>>((n, { kind }) => ({ ...n, [kind]: (n[kind] ?? 0) + 1 }), {}),
    firstTextMs: percentiles(turns.map(({ turn }) => turn.firstTextMs)),
    firstAudioMs: percentiles(turns.map(({ turn }) => turn.firstAudioMs)),
    llmRequests: percentiles(
      turns.map(({ turn }) => {
        const requests = turn.timings?.llm_requests;
        return typeof requests === 'number' ? requests : undefined;
      }),
    ),
  };
}

/** A scenario's result as the command prints it: a line, and one for each failed run. */
export function resultLines(result: ScenarioResult): string[] {
  const runs = result.runs.length;
  const head = `${result.passed ? 'PASS' : 'FAIL'}  ${result.name} (${result.passes} of ${runs} run${runs === 1 ? '' : 's'} passed${result.needed < runs || !result.passed ? `, ${result.needed} needed` : ''})`;
  const lines = [head];
  result.runs.forEach((run, r) => {
    if (run.passed) return;
    const at = runs > 1 ? `run ${r + 1}: ` : '';
    if (run.failure) lines.push(`      ${at}${run.failure}`);
    const turn = run.turns.findIndex((t) => t.failures.length > 0);
    if (turn === -1) return;
    const { user, failures } = run.turns[turn]!;
    for (const failure of failures)
      lines.push(`      ${at}turn #${turn} ${JSON.stringify(user.slice(0, 60))}: ${failure}`);
  });
  return lines;
}

export function summaryLine(summary: EvalSummary): string {
  const parts = [
    `${summary.scenarios} scenario${summary.scenarios === 1 ? '' : 's'}: ${summary.scenariosPassed} passed, ${summary.scenarios - summary.scenariosPassed} failed`,
    `${summary.runs} runs: ${summary.runsPassed} passed`,
  ];
  if (summary.callTurns > 0)
    parts.push(
      `turns that expect tool calls: ${summary.callTurnsAsExpected} of ${summary.callTurns} as expected`,
    );
  const errors = Object.entries(summary.modelErrors).sort(([a], [b]) => a.localeCompare(b));
  if (errors.length > 0)
    parts.push(
      `calls the model got wrong: ${errors.reduce((n, [, k]) => n + k, 0)} (${errors.map(([kind, n]) => `${kind} ${n}`).join(', ')})`,
    );
  if (summary.firstTextMs)
    parts.push(`first text p50 ${summary.firstTextMs.p50} ms, p90 ${summary.firstTextMs.p90} ms`);
  if (summary.firstAudioMs)
    parts.push(
      `first audio p50 ${summary.firstAudioMs.p50} ms, p90 ${summary.firstAudioMs.p90} ms`,
    );
  if (summary.llmRequests)
    parts.push(
      `requests to the model per turn p50 ${summary.llmRequests.p50}, p90 ${summary.llmRequests.p90}`,
    );
  return parts.join('; ');
}
