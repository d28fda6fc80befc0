/** `stacksync apply`: turn the plan into API writes, in order, paced, recorded in the state file. */
import { Command, Option } from 'commander';
import { renderPlanJson, renderPlanText } from '../plan/index.js';
import type { ChangeResult, Plan } from '../model/plan.js';
import { buildPlan } from '../plan/build.js';
import { computePlan, executePlan, planRequestFor, type RunResult } from '../reconcile/reconcile.js';
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
        const run = await computePlan(session.context, planRequestFor(session.context.config, { targets: flags.target, prune: flags.prune, adopt: flags.adopt }));
        const plan = withConfigWarnings(run.plan, session.configWarnings);
        const text = flags.output === 'text';
        if (text) process.stdout.write(renderPlanText(plan, { color: useColor(process.stdout) }));
        const outcome = await executePlan(session.context, run, {
          force: flags.force === true,
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
  const lines = failures.flatMap(([key, result]) => (result.result === 'ok' ? [] : [`${result.result}: ${key}: ${result.error}`]));
  const errors = plan.errors.filter((error) => error.code === 'E_PRUNE_REFUSED').map((error) => `error: ${error.message}`);
  return [...errors, ...lines].map((line) => `${line}\n`).join('');
}

/**
 * 1 when anything failed. After a signal, what it cancelled is not a failure (the next run does
 * it), and neither is a change skipped only because what it waited on was cancelled: the executor
 * gives both the code `E_CANCELLED`.
 */
function exitCodeFor(plan: Plan, results: ReadonlyMap<string, ChangeResult>, cancelled: boolean): number {
  if (plan.summary.errors > 0) return EXIT_ERROR;
  for (const result of results.values()) {
    if (result.result === 'ok') continue;
    if (!(cancelled && result.result === 'skipped' && result.code === 'E_CANCELLED')) return EXIT_ERROR;
  }
  return EXIT_OK;
}
