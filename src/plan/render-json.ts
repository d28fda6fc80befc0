/**
 * `--output json`: one object in the shape docs/reference/cli.md fixes, keys in a stable order. Operations
 * and secret hashes are never part of it; diffs carry `(sensitive)` for write-only values.
 */
import type { ChangeResults } from './build.js';
import {
  changeRef,
  noOutcomes,
  outcomeOf,
  withOutcome,
  type Change,
  type FieldDiff,
  type Plan,
  type PlanWarning,
} from '../model/plan.js';
import { estimateToJson } from './render-estimate.js';

export interface JsonRenderOptions {
  /** Apply results by `changeRef`; adds `result` and `error` to each change (apply --output json). */
  results?: ChangeResults;
}

/** The plan as the JSON document (a plain object), before serialisation. */
export function planToJson(plan: Plan, options: JsonRenderOptions = {}): Record<string, unknown> {
  const {
    create,
    update,
    replace,
    delete: deletes,
    deleteByKind,
    adopt,
    orphan,
    suspended,
    unchanged,
    errors,
  } = plan.summary;
  const document: Record<string, unknown> = {
    version: plan.version,
    summary: {
      create,
      update,
      replace,
      delete: deletes,
      ...(deleteByKind ? { deleteByKind } : {}),
      adopt,
      orphan,
      suspended,
      unchanged,
      errors,
    },
    changes: plan.changes.map((change) => changeToJson(change, options)),
    errors: plan.errors.map(problemToJson),
  };
  if (plan.warnings.length > 0) document['warnings'] = plan.warnings.map(problemToJson);
  if (plan.estimate) document['estimate'] = estimateToJson(plan.estimate);
  if (options.results) {
    let counts = noOutcomes();
    for (const change of plan.changes)
      counts = withOutcome(counts, outcomeOf(change, options.results.get(changeRef(change))));
    document['outcomes'] = counts;
  }
  return document;
}

/** The JSON text `plan --output json` prints: indented, with a final newline. */
export function renderPlanJson(plan: Plan, options: JsonRenderOptions = {}): string {
  return `${JSON.stringify(planToJson(plan, options), null, 2)}\n`;
}

function changeToJson(change: Change, options: JsonRenderOptions): Record<string, unknown> {
  const json: Record<string, unknown> = {
    target: change.target,
    kind: change.kind,
    name: change.name,
    action: change.action,
  };
  if (change.tenant !== undefined) json['tenant'] = change.tenant;
  if (change.id !== undefined) json['id'] = change.id;
  if (change.file !== undefined) json['file'] = change.file;
  if (change.line !== undefined) json['line'] = change.line;
  json['diff'] = change.diff.map(diffToJson);
  if (change.reclaimed) json['reclaimed'] = true;
  if (change.waitUntil !== undefined) json['waitUntil'] = change.waitUntil;
  if (change.replaceAllowed) json['replaceAllowed'] = true;
  if (change.drift) json['drift'] = true;
  if (change.warnings.length > 0) json['warnings'] = [...change.warnings];
  const result = options.results?.get(changeRef(change));
  if (result) json['result'] = result.result;
  // What became of it, in the words of every output; only after an apply.
  const outcome = options.results ? outcomeOf(change, result) : undefined;
  if (outcome !== undefined) json['outcome'] = outcome;
  const failure = result && result.result !== 'ok' ? result : undefined;
  const error = failure?.error ?? change.error;
  if (error !== undefined) json['error'] = error;
  // Tools decide by code, never by the message.
  const code = failure?.code ?? change.code;
  if (code !== undefined) json['code'] = code;
  return json;
}

function diffToJson(diff: FieldDiff): Record<string, unknown> {
  const json: Record<string, unknown> = { path: diff.path };
  if (diff.before !== undefined) json['before'] = diff.before;
  if (diff.after !== undefined) json['after'] = diff.after;
  return json;
}

function problemToJson(problem: PlanWarning): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  if (problem.file !== undefined) json['file'] = problem.file;
  if (problem.line !== undefined) json['line'] = problem.line;
  if (problem.column !== undefined) json['column'] = problem.column;
  json['message'] = problem.message;
  json['code'] = problem.code;
  if (problem.target !== undefined) json['target'] = problem.target;
  return json;
}
