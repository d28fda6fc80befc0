/** `stacksync plan`: the dry run that gates every pull request. Reads only; writes nothing. */
import { Command, Option } from 'commander';
import { hasChanges, renderPlanGithub, renderPlanJson, renderPlanText } from '../plan/index.js';
import type { Plan } from '../model/plan.js';
import { computePlan, planRequestFor } from '../reconcile/reconcile.js';
import { addCommonOptions, openSession, type CommonFlags } from './context.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect, useColor, withConfigWarnings } from './output.js';

interface PlanFlags extends CommonFlags {
  target: string[];
  output: 'text' | 'json' | 'github';
  detailedExitcode?: boolean;
  prune?: boolean;
  adopt?: boolean;
}

export const planCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('plan')
      .summary('show what apply would change (reads the API, writes nothing)')
      .description(
        'Load and validate the manifests, read the live state of each target (one list call per collection), and print the changes that `apply` would make.\n' +
          'Exit codes: 0 no changes (or no --detailed-exitcode), 1 errors (bad manifests, API failure), 2 changes found with --detailed-exitcode.',
      ),
  )
    .option('--target <name>', 'plan only this target (repeatable; default every target)', collect, [])
    .addOption(new Option('--output <format>', 'text for people, json for tools, github for PR annotations').choices(['text', 'json', 'github']).default('text'))
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none, 1 on errors')
    .option('--prune', 'also show the deletes `apply --prune` would make (default: sync.prune)')
    .option('--adopt', 'plan to take over same-named live resources (default: sync.adopt)')
    .addHelpText('after', '\nExample (CI):\n  stacksync plan --output github --detailed-exitcode')
    .action(async (flags: PlanFlags) => {
      const session = await openSession(flags, { writeKey: false });
      try {
        const run = await computePlan(session.context, planRequestFor(session.context.config, { targets: flags.target, prune: flags.prune, adopt: flags.adopt }));
        const plan = withConfigWarnings(run.plan, session.configWarnings);
        process.stdout.write(renderPlan(plan, flags.output));
        setExitCode(exitCodeFor(plan, flags.detailedExitcode === true));
      } finally {
        await session.close();
      }
    });

function renderPlan(plan: Plan, output: PlanFlags['output']): string {
  if (output === 'json') return renderPlanJson(plan);
  if (output === 'github') return renderPlanGithub(plan);
  return renderPlanText(plan, { color: useColor(process.stdout) });
}

function exitCodeFor(plan: Plan, detailed: boolean): number {
  if (plan.summary.errors > 0) return EXIT_ERROR;
  return detailed && hasChanges(plan) ? EXIT_CHANGES : EXIT_OK;
}
