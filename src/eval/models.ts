/**
 * One scenarios file held with several models (`--models`): each scenario once per model, the
 * model asked for by the session (`session.update`'s `model`, one of the engine's LLM_MODELS), so
 * that a team sees which model calls its tools best in one run. Pure: no Nest import.
 */
import type { Scenario, ScenarioFile } from './scenario-file.js';
import { summarise, summaryLine, type ScenarioResult } from './eval-runs.js';

/** The file with each scenario once per model, named `name [model]`; the model of each. */
export function perModel(
  file: ScenarioFile,
  models: string[],
): { file: ScenarioFile; models: string[] } {
  const scenarios: Scenario[] = [];
  const of: string[] = [];
  for (const model of models)
    for (const scenario of file.scenarios) {
      scenarios.push({
        ...scenario,
        name: `${scenario.name} [${model}]`,
        session: { ...scenario.session, model },
      });
      of.push(model);
    }
  return { file: { ...file, scenarios }, models: of };
}

/** A summary line for each model: its own scenarios' figures, side by side. */
export function modelLines(
  results: ScenarioResult[],
  file: ScenarioFile,
  modelOf: string[],
): string[] {
  return [...new Set(modelOf)].map((model) => {
    const picked = modelOf.flatMap((m, i) => (m === model ? [i] : []));
    const summary = summarise(
      picked.map((i) => results[i]!),
      { ...file, scenarios: picked.map((i) => file.scenarios[i]!) },
    );
    return `model ${model}: ${summaryLine(summary)}`;
  });
}
