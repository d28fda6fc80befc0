/** `stacksync plan`: the dry run that gates every pull request. Reads only; writes nothing. */
import { Command, Option } from 'commander';
import { processEnv, type Env } from '../config/paths.js';
import { hasChanges, renderPlanGithub, renderPlanJson, renderPlanMarkdown, renderPlanText, type MarkdownRenderOptions } from '../plan/index.js';
import type { Plan } from '../model/plan.js';
import { computePlan, planRequestFor } from '../reconcile/reconcile.js';
import { addCommonOptions, openSession, type CommonFlags } from './context.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect, useColor, withConfigWarnings } from './output.js';
import { appendStepSummary, markdownOptions } from './plan-output.js';

interface PlanFlags extends CommonFlags {
  target: string[];
  output: 'text' | 'json' | 'github' | 'markdown';
  detailedExitcode?: boolean;
  prune?: boolean;
  adopt?: boolean;
  linkBase?: string;
}

export const planCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('plan')
      .summary('show what apply would change (reads the API, writes nothing)')
      .description(
        'Load and validate the manifests, read the live state of each target (one list call per collection), and print the changes that `apply` would make.\n' +
          'Resources stacksync manages that no manifest names any more show as "orphan" (as "delete" with --prune): apply leaves them alone unless it prunes.\n' +
          'Exit codes: 0 no changes (or no --detailed-exitcode; orphans alone are no change), 1 errors (bad manifests, API failure), 2 changes found with --detailed-exitcode.',
      ),
  )
    .option('--target <name>', 'plan only this target (repeatable; default every target)', collect, [])
    .addOption(
      new Option('--output <format>', 'text for people, json for tools, github for PR annotations (and the job summary), markdown for a PR comment')
        .choices(['text', 'json', 'github', 'markdown'])
        .default('text'),
    )
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none, 1 on errors')
    .option('--prune', 'also show the deletes `apply --prune` would make (default: sync.prune)')
    .option('--adopt', 'plan to take over same-named live resources (default: sync.adopt)')
    .option(
      '--link-base <url>',
      'markdown: prefix of links to manifest lines, e.g. https://github.com/OWNER/REPO/blob/SHA/ (default in GitHub Actions: GITHUB_SERVER_URL/GITHUB_REPOSITORY/blob/GITHUB_SHA/)',
    )
    .addHelpText(
      'after',
      '\nExamples (CI):\n  stacksync plan --output github --detailed-exitcode\n  stacksync plan --output markdown > plan.md    # a PR comment; its first line is <!-- stacksync-plan -->',
    )
    .action(async (flags: PlanFlags) => {
      const env = processEnv();
      const session = await openSession(flags, { writeKey: false, env });
      try {
        const run = await computePlan(session.context, planRequestFor(session.context.config, { targets: flags.target, prune: flags.prune, adopt: flags.adopt }));
        const plan = withConfigWarnings(run.plan, session.configWarnings);
        const markdown = (): string => renderPlanMarkdown(plan, markdownFor(session.context.manifestsDir, flags, env));
        process.stdout.write(renderPlan(plan, flags.output, markdown));
        if (flags.output === 'github') {
          const problem = await appendStepSummary(env, markdown());
          if (problem) process.stderr.write(`stacksync: warning: ${problem}\n`);
        }
        setExitCode(exitCodeFor(plan, flags.detailedExitcode === true));
      } finally {
        await session.close();
      }
    });

function markdownFor(manifestsDir: string, flags: PlanFlags, env: Env): MarkdownRenderOptions {
  return markdownOptions(manifestsDir, { ...(flags.linkBase !== undefined ? { linkBase: flags.linkBase } : {}) }, env);
}

function renderPlan(plan: Plan, output: PlanFlags['output'], markdown: () => string): string {
  if (output === 'json') return renderPlanJson(plan);
  if (output === 'github') return renderPlanGithub(plan);
  if (output === 'markdown') return markdown();
  return renderPlanText(plan, { color: useColor(process.stdout) });
}

function exitCodeFor(plan: Plan, detailed: boolean): number {
  if (plan.summary.errors > 0) return EXIT_ERROR;
  return detailed && hasChanges(plan) ? EXIT_CHANGES : EXIT_OK;
}
