/**
 * `--output github`: workflow-command annotations (`::error …::`, `::warning …::`) that GitHub
 * pins to the manifest lines, followed by the text plan without colour.
 */
import type { Change, Plan, PlanWarning } from '../model/plan.js';
import { renderPlanText, withCode } from './render-text.js';

interface Annotation {
  level: 'error' | 'warning';
  file?: string;
  line?: number;
  col?: number;
  message: string;
}

export function renderPlanGithub(plan: Plan): string {
  const annotations: Annotation[] = [
    ...plan.errors.map((problem) =>
      fromProblem('error', { ...problem, message: withCode(problem.code, problem.message) }),
    ),
    ...plan.changes
      .filter((change) => change.action === 'error')
      .map((change) => fromChange('error', change, withCode(change.code, change.error ?? 'cannot be planned'))),
    ...plan.warnings.map((problem) => fromProblem('warning', problem)),
    ...plan.changes.flatMap((change) => change.warnings.map((warning) => fromChange('warning', change, warning))),
  ];
  const commands = annotations.map(formatAnnotation).join('');
  return `${commands}${annotations.length > 0 ? '\n' : ''}${renderPlanText(plan, { color: false })}`;
}

function fromProblem(level: Annotation['level'], problem: PlanWarning): Annotation {
  const message = problem.target === undefined ? problem.message : `[${problem.target}] ${problem.message}`;
  return { level, file: problem.file, line: problem.line, col: problem.column, message };
}

function fromChange(level: Annotation['level'], change: Change, message: string): Annotation {
  return {
    level,
    file: change.file,
    line: change.line,
    message: `[${change.target}] ${change.kind}/${change.name}: ${message}`,
  };
}

/** `::level file=F,line=L,col=C::message` with GitHub's escaping of data and properties. */
export function formatAnnotation(annotation: Annotation): string {
  const properties = (['file', 'line', 'col'] as const)
    .filter((key) => annotation[key] !== undefined)
    .map((key) => `${key}=${escapeProperty(String(annotation[key]))}`)
    .join(',');
  return `::${annotation.level}${properties ? ` ${properties}` : ''}::${escapeData(annotation.message)}\n`;
}

export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
