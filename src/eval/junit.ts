/**
 * An eval's results as JUnit XML, the report CI systems (GitLab, Jenkins, GitHub's test
 * reporters) show: a test case per scenario, failed with why its runs failed. Pure: no Nest import.
 */
import { resultLines, type ScenarioResult } from './eval-runs.js';

const escaped = (text: string) =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    // Characters XML 1.0 cannot hold at all (control characters but tab and line breaks).
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '\ufffd');

/** The seconds a scenario's runs took, its turns' times summed. */
const seconds = (result: ScenarioResult) =>
  result.runs.reduce((sum, run) => sum + run.turns.reduce((s, t) => s + t.totalMs, 0), 0) / 1000;

export function junitReport(results: ScenarioResult[], suite: string): string {
  const failed = results.filter((r) => !r.passed).length;
  const total = results.reduce((sum, r) => sum + seconds(r), 0);
  const cases = results.map((result) => {
    const open = `  <testcase classname="${escaped(suite)}" name="${escaped(result.name)}" time="${seconds(result).toFixed(3)}"`;
    if (result.passed) return `${open}/>`;
    const [head, ...why] = resultLines(result);
    return `${open}>\n    <failure message="${escaped(head!.replace(/^FAIL {2}/, ''))}">${escaped(why.map((l) => l.trim()).join('\n'))}</failure>\n  </testcase>`;
  });
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuite name="${escaped(suite)}" tests="${results.length}" failures="${failed}" errors="0" time="${total.toFixed(3)}">`,
    ...cases,
    '</testsuite>',
    '',
  ].join('\n');
}
