/** `stacksync plan`: the dry run that gates every pull request. Reads only; writes nothing. */
import { showJson, showLines } from '../support/terminal.js';
import { Command, Option } from 'commander';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { processEnv, type Env } from '../config/paths.js';
import {
  hasChanges,
  planTextChunks,
  renderPlanGithub,
  renderPlanJson,
  renderPlanMarkdown,
  type MarkdownRenderOptions,
} from '../plan/index.js';
import type { Plan } from '../model/plan.js';
import { renderSavedPlan } from '../plan/saved.js';
import { newPlanKeySalt, planKeyFrom } from '../reconcile/plan-key.js';
import type { Config } from '../model/config.js';
import { randomBytes } from 'node:crypto';
import { fingerprintRun } from '../reconcile/plan-fingerprint.js';
import { HMAC_KEY_BYTES, keyPathFor } from '../state/hmac.js';
import { computePlan, planRequestFor, type RunPlan } from '../reconcile/reconcile.js';
import { errnoCode, nodeFs, writeFileAtomically } from '../support/fs.js';
import { runSecrets } from '../support/redaction.js';
import { isStacksyncError, StacksyncError } from '../errors.js';
import { addCommonOptions, openSession, type CommonFlags, type Session } from './context.js';
import { EXIT_CHANGES, EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect, notice, useColor, withConfigWarnings, writeChunks } from './output.js';
import { logFormatFor, type LogFormat } from './log-format.js';
import { bothHooks, createRequestLog, withEstimate } from './estimate.js';
import { formatRetryLine, rateWaitTeller } from './progress.js';
import type { ApiHooks } from '../api/port.js';
import { appendStepSummary, markdownOptions } from './plan-output.js';
import { commandLine, hintLines, invocationOf, type Invocation } from './hints.js';
import { packageVersion } from './version.js';

/** A saved plan holds HMACs of secret values, like the state file: nobody else needs to read it. */
const SAVED_PLAN_MODE = 0o600;

interface PlanFlags extends CommonFlags {
  target: string[];
  output: 'text' | 'json' | 'github' | 'markdown';
  detailedExitcode?: boolean;
  prune?: boolean;
  adopt?: boolean;
  linkBase?: string;
  out?: string;
  serverValidate: boolean;
}

export const planCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('plan')
      .summary('show what apply would change (reads the API, writes nothing)')
      .description(
        'Load and validate the manifests, read the live state of each target (one list call per collection), and print the changes that `apply` would make.\n' +
          'Resources stacksync manages that no manifest names any more show as "orphan" (as "delete" with ' +
          '--prune): apply leaves them alone unless it prunes.\n' +
          'Exit codes: 0 no changes (or no --detailed-exitcode; orphans and waiting creates alone are no ' +
          'change), 1 errors (bad manifests, API failure), 2 changes found with --detailed-exitcode.',
      ),
  )
    .option('--target <name>', 'plan only this target (repeatable; default every target)', collect, [])
    .addOption(
      new Option(
        '--output <format>',
        'text for people, json for tools, github for PR annotations (and the job summary), markdown for a PR comment',
      )
        .choices(['text', 'json', 'github', 'markdown'])
        .default('text'),
    )
    .option('--detailed-exitcode', 'exit 2 when there are changes, 0 when none, 1 on errors')
    .option('--prune', 'also show the deletes `apply --prune` would make (default: sync.prune)')
    .option('--adopt', 'plan to take over same-named live resources (default: sync.adopt)')
    .option(
      '--out <file>',
      'also save the plan, with a fingerprint of what it was computed from, for `apply --plan FILE`',
    )
    .option(
      '--no-server-validate',
      'do not ask targets that can check a write without storing it (dashboards/validate) about each dashboard the plan would write',
    )
    .option(
      '--link-base <url>',
      'markdown: prefix of links to manifest lines, e.g. https://github.com/OWNER/REPO/blob/SHA/ (default in GitHub Actions: GITHUB_SERVER_URL/GITHUB_REPOSITORY/blob/GITHUB_SHA/)',
    )
    .addHelpText(
      'after',
      '\nExamples (CI):\n  stacksync plan --output github --detailed-exitcode\n  stacksync plan ' +
        '--output markdown > plan.md    # a PR comment; its first line is <!-- stacksync-plan -->\n' +
        '  stacksync plan --out plan.json && stacksync apply --plan plan.json    # apply exactly what was reviewed',
    )
    .action(async (flags: PlanFlags) => {
      const env = processEnv();
      const invocation = invocationOf(flags, env);
      const logFormat = logFormatFor('plan', flags);
      // A plan saved before the state has a key is made under a key derived for it (plan-key.ts).
      const derived: { salt?: string } = {};
      const newKey =
        flags.out === undefined ? undefined : (config: Config) => keyForNewState(config, flags, env, derived);
      // The plan's reads are counted and timed for the estimate of the apply.
      const requests = createRequestLog();
      // Each retry is told as it is decided (the session's logger exists by the time a request is made).
      let told: Session | undefined;
      // A long wait for the rate budget is told once, as it starts, not left as silence.
      const tellWait = rateWaitTeller((line, fields) => told && notice(told.logger, logFormat, 'info', line, fields));
      const retries = (target: string): ApiHooks => ({
        onRetry: (event) =>
          told && notice(told.logger, logFormat, 'warn', formatRetryLine(target, event), { target, ...event }),
        onRateLimitDelay: (delay) => tellWait(target, delay),
      });
      const hooksFor = (target: string): ApiHooks => bothHooks(retries(target), requests.hooksFor(target));
      const session = await openSession(flags, {
        writeKey: false,
        env,
        state: { mode: 'read' },
        logFormat,
        clientOptions: { hooksFor },
        ...(newKey ? { newKey } : {}),
      });
      told = session;
      try {
        const run = await computePlan(
          session.context,
          planRequestFor(session.context.config, {
            targets: flags.target,
            prune: flags.prune,
            adopt: flags.adopt,
            serverValidate: flags.serverValidate,
          }),
        );
        const plan = withEstimate(
          withConfigWarnings(run.plan, session.configWarnings),
          run,
          session.context,
          requests,
          { spentFor: (target) => session.clients.spentFor(target), readsDone: false },
        );
        if (flags.out !== undefined)
          await savePlan(flags.out, run, plan, session, { logFormat, keySalt: derived.salt, invocation });
        const markdown = (): string => renderPlanMarkdown(plan, markdownFor(session.context.manifestsDir, flags, env));
        await writeChunks(process.stdout, renderPlan(plan, flags.output, markdown));
        if (flags.output === 'github') {
          const problem = await appendStepSummary(env, markdown());
          if (problem) notice(session.logger, logFormat, 'warn', problem);
        }
        // What to run about what the plan found, for this config and these targets.
        for (const hint of hintLines(
          [...plan.errors, ...plan.warnings].map((problem) => problem.code),
          invocation,
        ))
          notice(session.logger, logFormat, 'info', hint);
        setExitCode(exitCodeFor(plan, flags.detailedExitcode === true));
      } finally {
        await session.close();
      }
    });

function markdownFor(manifestsDir: string, flags: PlanFlags, env: Env): MarkdownRenderOptions {
  const links = {
    ...(flags.linkBase !== undefined ? { linkBase: flags.linkBase } : {}),
    ...(flags.out !== undefined ? { out: flags.out } : {}),
  };
  return markdownOptions(manifestsDir, links, env);
}

/**
 * The key of a state that has none yet, for a saved plan: derived from the planned targets'
 * credentials and a fresh salt (kept in `derived` for the fingerprint). When a credential does
 * not resolve (that target's plan fails anyway), a throwaway key: apply will refuse the plan.
 */
async function keyForNewState(config: Config, flags: PlanFlags, env: Env, derived: { salt?: string }): Promise<Buffer> {
  const targets = flags.target.length > 0 ? flags.target : config.targets.map((target) => target.name);
  const salt = newPlanKeySalt();
  try {
    const key = await planKeyFrom(config, targets, { env }, salt);
    derived.salt = salt;
    return key;
  } catch (error) {
    if (!isStacksyncError(error, 'E_SECRET_MISSING')) throw error;
    return randomBytes(HMAC_KEY_BYTES);
  }
}

/** Writes the saved plan atomically (0600); says where on stderr, so stdout stays the plan alone. */
async function savePlan(
  file: string,
  run: RunPlan,
  plan: Plan,
  session: Session,
  how: { logFormat: LogFormat; keySalt: string | undefined; invocation: Invocation },
): Promise<void> {
  const { logFormat, keySalt } = how;
  const { config, store, hasher } = session.context;
  const fingerprint = fingerprintRun(run, {
    config,
    store,
    hasher,
    version: packageVersion(),
    ...(keySalt !== undefined ? { keySalt } : {}),
  });
  try {
    await mkdir(dirname(file), { recursive: true });
    await writeFileAtomically(
      nodeFs,
      file,
      renderSavedPlan(plan, fingerprint, new Date().toISOString(), hasher, (value) => runSecrets.redactDeep(value)),
      SAVED_PLAN_MODE,
    );
  } catch (error) {
    throw new StacksyncError('E_USAGE', `cannot write the plan to ${file} (${errnoCode(error) ?? String(error)})`, {
      subject: file,
      cause: error,
    });
  }
  // The plan carries its targets; the config and manifests it was made from are named again.
  notice(
    session.logger,
    logFormat,
    'info',
    `saved the plan to ${file}; apply exactly it with: ${commandLine('apply', how.invocation, ['--plan', file], { targets: false })}`,
    { file },
  );
  // plan writes nothing else, not even a key: with none yet, the plan's is derived from the targets' credentials.
  if ((await session.state.hmacKey()) !== undefined) return;
  const key =
    config.state.backend === 'file' ? keyPathFor(config.state.path) : `the state's key (${session.state.location})`;
  if (keySalt === undefined) {
    notice(
      session.logger,
      logFormat,
      'warn',
      `there is no state key (${key}) yet, and a target’s credentials did not resolve, so apply --plan cannot check this plan and will refuse it`,
    );
  } else {
    notice(
      session.logger,
      logFormat,
      'info',
      `note: there is no state key (${key}) yet, so this plan is sealed with a key derived from the ` +
        `targets’ credentials: apply --plan needs the same ones, and its first run makes that key the ` +
        `state key`,
    );
  }
}

function renderPlan(plan: Plan, output: PlanFlags['output'], markdown: () => string): Iterable<string> {
  // Every format reaches a terminal or a CI log first: control characters shown, never obeyed (support/terminal.ts).
  if (output === 'json') return [showJson(renderPlanJson(plan))];
  if (output === 'github') return [showLines(renderPlanGithub(plan))];
  if (output === 'markdown') return [showLines(markdown())];
  return planTextChunks(plan, { color: useColor(process.stdout) });
}

function exitCodeFor(plan: Plan, detailed: boolean): number {
  if (plan.summary.errors > 0) return EXIT_ERROR;
  return detailed && hasChanges(plan) ? EXIT_CHANGES : EXIT_OK;
}
