/**
 * `npm run eval -- scenarios.json`: holds each scenario's conversation with a running engine over
 * `/ws`, checks what each turn shows (the calls the model made, its answer, how soon), and says
 * which passed. Exit code 0: all passed; 1: one failed; 2: the command or its file is wrong.
 * `--from-report REPORT.json…` writes a scenarios file of end-of-session reports instead.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { readScenarios, ScenarioFileError } from './scenario-file.js';
import { resultLines, runAll, summarise, summaryLine } from './eval-runs.js';
import { scenarioFromReport } from './scenario-from-report.js';
import { junitReport } from './junit.js';
import { modelLines, perModel } from './models.js';

const USAGE = `usage: npm run eval -- SCENARIOS.json [--url ws://localhost:8787/ws] [--runs N]
       [--concurrency N] [--turn-timeout-secs S] [--only REGEX] [--models A,B]
       [--json REPORT.json]
       [--junit REPORT.xml]
       npm run -s eval -- --from-report [--name NAME] SESSION-REPORT.json… > SCENARIOS.json
The key (WS_API_KEY) is read from the environment.`;

/** A scenarios file of end-of-session reports (each a scenario), on stdout. */
function fromReports(paths: string[], name: string | undefined): number {
  if (name !== undefined && paths.length > 1)
    throw new ScenarioFileError('--name names the scenario of one report, not of several');
  const scenarios = paths.map((path) => {
    let report: unknown;
    try {
      report = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new ScenarioFileError(`${path}: cannot be read as JSON: ${(error as Error).message}`);
    }
    return scenarioFromReport(report, path, name);
  });
  console.log(JSON.stringify({ scenarios }, null, 2));
  return 0;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new ScenarioFileError(
      `--${name} must be a whole number of at least 1, not ${JSON.stringify(value)}`,
    );
  return n;
}

/** `--only`'s regular expression (case ignored). */
function patternOf(source: string): RegExp {
  try {
    return new RegExp(source, 'iu');
  } catch (error) {
    throw new ScenarioFileError(`--only is not a regular expression: ${(error as Error).message}`);
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      url: { type: 'string', default: 'ws://localhost:8787/ws' },
      runs: { type: 'string' },
      concurrency: { type: 'string' },
      'turn-timeout-secs': { type: 'string' },
      json: { type: 'string' },
      junit: { type: 'string' },
      only: { type: 'string' },
      models: { type: 'string' },
      'from-report': { type: 'boolean' },
      name: { type: 'string' },
      help: { type: 'boolean' },
    },
  });
  if (values['from-report'] && positionals.length > 0) return fromReports(positionals, values.name);
  if (values.help || positionals.length !== 1) {
    (values.help ? console.log : console.error)(USAGE);
    return values.help ? 0 : 2;
  }
  const runs = values.runs === undefined ? undefined : positive('runs', values.runs, 1);
  const turnTimeoutMs = positive('turn-timeout-secs', values['turn-timeout-secs'], 60) * 1000;
  const concurrency = positive('concurrency', values.concurrency, 1);
  const only = values.only === undefined ? undefined : patternOf(values.only);
  const models = values.models
    ?.split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  if (models?.length === 0)
    throw new ScenarioFileError('--models names the models to compare, comma-separated');
  let file = await readScenarios(positionals[0]!);
  if (only) {
    file.scenarios = file.scenarios.filter((scenario) => only.test(scenario.name));
    if (file.scenarios.length === 0)
      throw new ScenarioFileError(`--only ${values.only} matches no scenario of ${positionals[0]}`);
  }
  if (runs !== undefined) {
    file.runs = runs;
    for (const scenario of file.scenarios) {
      delete scenario.runs;
      if (scenario.min_passes !== undefined)
        scenario.min_passes = Math.min(scenario.min_passes, file.runs);
    }
  }
  const compared = models && perModel(file, models);
  if (compared) file = compared.file;
  const options = {
    url: values.url,
    key: process.env.WS_API_KEY || undefined,
    turnTimeoutMs,
  };
  const results = await runAll(file, options, concurrency, (result) =>
    console.log(resultLines(result).join('\n')),
  );
  const summary = summarise(results, file);
  console.log(summaryLine(summary));
  if (compared) for (const line of modelLines(results, file, compared.models)) console.log(line);
  if (values.json)
    writeFileSync(values.json, JSON.stringify({ summary, scenarios: results }, null, 2) + '\n');
  if (values.junit) writeFileSync(values.junit, junitReport(results, positionals[0]!));
  return summary.scenariosPassed === summary.scenarios ? 0 : 1;
}

main(process.argv.slice(2)).then(
  (code) => (process.exitCode = code),
  (error: unknown) => {
    const known =
      error instanceof ScenarioFileError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(known ? `${(error as Error).message}\n${USAGE}` : error);
    process.exitCode = 2;
  },
);
