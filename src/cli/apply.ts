/** `stacksync apply`: turn the plan into API writes, in order, paced, recorded in the state file. */
import { Command, Option } from 'commander';
import { renderPlanJson, renderPlanText } from '../plan/index.js';
import type { Change, ChangeResult, Plan } from '../model/plan.js';
import { buildPlan, changeRef, requiredChanges } from '../plan/build.js';
import { computePlan, executePlan, type RunResult } from '../reconcile/reconcile.js';
import { addCommonOptions, openSession, type CommonFlags } from './context.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect, useColor, withConfigWarnings } from './output.js';
import { createProgressReporter } from './progress.js';
import { onTermination } from './signals.js';

interface ApplyFlags extends CommonFlags {
  target: string[];
  output: 'text' | 'json';
  prune?: boolean;
  force?: boolean;
  adopt?: boolean;
}

export const applyCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('apply')
      .summary('apply the manifests to the API')
      .description(
        'Plan, then carry the changes out through a rate-limited queue per target: dashboards before the alerts that watch them, alert deletes before dashboard deletes, ' +
          'a failed change skipping only what depends on it. Every completed write is recorded in the state file at once, so an interrupted apply resumes without duplicates.\n' +
          'Exit codes: 0 everything applied, 1 anything failed (or bad manifests, or a refused prune).',
      ),
  )
    .option('--target <name>', 'apply only this target (repeatable; default every target)', collect, [])
    .option('--prune', 'delete resources stacksync created that no manifest names any more (default: sync.prune)')
    .option('--force', 'let a prune exceed sync.maxDeletes / sync.maxDeletePercent, or run on an empty manifests directory')
    .option('--adopt', 'take over same-named live resources stacksync did not create (default: sync.adopt)')
    .addOption(new Option('--output <format>', 'text for people, json for tools').choices(['text', 'json']).default('text'))
    .action(async (flags: ApplyFlags) => {
      // Progress goes to stderr, so stdout holds only the plan and the results (or the JSON).
      const reporter = createProgressReporter({ stream: process.stderr, labelTargets: flags.target.length !== 1 });
      const session = await openSession(flags, {
        writeKey: true,
        clientOptions: { hooksFor: () => ({ onRateLimitWait: (event) => reporter.onRateLimitWait(event) }) },
      });
      const cancel = new AbortController();
      const stopListening = onTermination(() => {
        process.stderr.write('stacksync: stopping: no new writes; waiting for those in flight and saving the state (signal again to exit now)\n');
        cancel.abort();
      });
      try {
        const { config } = session.context;
        const adopt = flags.adopt ?? config.sync.adopt;
        const run = await computePlan(session.context, { targets: flags.target, prune: flags.prune ?? config.sync.prune, adopt });
        const plan = withConfigWarnings(run.plan, session.configWarnings);
        const text = flags.output === 'text';
        if (text) process.stdout.write(renderPlanText(plan, { color: useColor(process.stdout) }));
        const outcome = await executePlan(session.context, run, {
          force: flags.force === true,
          adopt,
          signal: cancel.signal,
          onEvent: (_target, event) => reporter.onEvent(event),
        });
        const final = withRunErrors(plan, outcome);
        process.stdout.write(text ? renderResults(final, outcome.results) : renderPlanJson(final, { results: outcome.results }));
        setExitCode(exitCodeFor(final, outcome.results, cancel.signal.aborted));
      } finally {
        stopListening();
        await session.close();
      }
    });

function withRunErrors(plan: Plan, outcome: RunResult): Plan {
  if (outcome.errors.length === 0) return plan;
  return buildPlan(plan.changes, [...plan.errors, ...outcome.errors], plan.warnings);
}

function renderResults(plan: Plan, results: ReadonlyMap<string, ChangeResult>): string {
  const failures = [...results.entries()].filter(([, result]) => result.result !== 'ok');
  const lines = failures.map(([key, result]) => `${result.result === 'failed' ? 'failed' : 'skipped'}: ${key}: ${result.error ?? ''}`);
  const errors = plan.errors.filter((error) => error.code === 'E_PRUNE_REFUSED').map((error) => `error: ${error.message}`);
  return [...errors, ...lines].map((line) => `${line}\n`).join('');
}

/**
 * 1 when anything failed; cancellations after a signal are not failures (the next run finishes
 * them), and neither are the skips of changes waiting on a cancelled one.
 */
function exitCodeFor(plan: Plan, results: ReadonlyMap<string, ChangeResult>, cancelled: boolean): number {
  if (plan.summary.errors > 0) return EXIT_ERROR;
  const byRef = new Map(plan.changes.map((change) => [changeRef(change), change]));
  for (const [ref, result] of results) {
    if (result.result === 'failed') return EXIT_ERROR;
    if (result.result === 'skipped' && !(cancelled && skippedByCancel(ref, results, byRef, new Set()))) return EXIT_ERROR;
  }
  return EXIT_OK;
}

/** The change was cancelled, or every change it waited on that did not succeed was (transitively). */
function skippedByCancel(ref: string, results: ReadonlyMap<string, ChangeResult>, changes: ReadonlyMap<string, Change>, seen: Set<string>): boolean {
  const result = results.get(ref);
  if (result?.result !== 'skipped') return false;
  if (result.error?.startsWith('cancelled')) return true;
  const change = changes.get(ref);
  if (!change || seen.has(ref)) return false;
  // `seen` is the path being followed, so a (planner bug) cycle ends instead of recursing forever.
  seen.add(ref);
  const blockers = requiredChanges(change).map((key) => `${change.target}/${key}`).filter((required) => (results.get(required)?.result ?? 'ok') !== 'ok');
  const cancelledOnly = blockers.length > 0 && blockers.every((required) => skippedByCancel(required, results, changes, seen));
  seen.delete(ref);
  return cancelledOnly;
}
