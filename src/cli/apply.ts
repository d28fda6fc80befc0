/** `stacksync apply`: turn the plan into API writes, in order, paced, recorded in the state file. */
import { show, showJson } from '../support/terminal.js';
import { readFile } from 'node:fs/promises';
import { Command, Option } from 'commander';
import { StacksyncError } from '../errors.js';
import { planTextChunks, renderPlanJson, resultLine } from '../plan/index.js';
import { changeRef, HELD_BACK_CODES, type Change, type ChangeResult, type Plan } from '../model/plan.js';
import { buildPlan } from '../plan/build.js';
import {
  describeStale,
  editedPlan,
  OTHER_CREDENTIALS,
  parseSavedPlan,
  sealMatches,
  type SavedPlan,
} from '../plan/saved.js';
import { processEnv, type Env } from '../config/paths.js';
import { parseDuration } from '../config/duration.js';
import type { Config } from '../model/config.js';
import { keyCheckOf } from '../reconcile/plan-fingerprint.js';
import { planKeyFrom } from '../reconcile/plan-key.js';
import { createSecretHasher } from '../state/hmac.js';
import { computePlan, executePlan, planRequestFor, type RunPlan, type RunResult } from '../reconcile/reconcile.js';
import { prepareSavedPlan } from '../reconcile/saved-plan.js';
import { errnoCode } from '../support/fs.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { collect, notice, useColor, withConfigWarnings, writeChunks } from './output.js';
import { createProgressLog, createProgressReporter, formatRetryLine, type ProgressReporter } from './progress.js';
import {
  addCommonOptions,
  commandLogger,
  lockTimeoutOf,
  lockTimeoutOption,
  openSession,
  type CommonFlags,
  type LockFlags,
  type Session,
} from './context.js';
import { logFormatFor, type LogFormat } from './log-format.js';
import type { Logger } from 'pino';
import { bothHooks, createRequestLog, withEstimate } from './estimate.js';
import { onTermination } from './signals.js';
import { hintLines, invocationOf } from './hints.js';
import { packageVersion } from './version.js';

interface ApplyFlags extends CommonFlags, LockFlags {
  target: string[];
  output: 'text' | 'json';
  prune?: boolean;
  force?: boolean;
  adopt?: boolean;
  plan?: string;
  allowPartial?: boolean;
  allowReplace?: boolean;
  wait: string;
}

export const applyCommand: CommandFactory = (setExitCode) =>
  addCommonOptions(
    new Command('apply')
      .summary('apply the manifests to the API')
      .description(
        'Plan, then carry the changes out through a rate-limited queue per target: dashboards before the ' +
          'alerts that watch them, alert deletes before dashboard deletes, ' +
          'a failed change skipping only what depends on it. Every completed write is recorded in the ' +
          'state file at once, so an interrupted apply resumes without duplicates.\n' +
          'With --plan FILE (written by plan --out) it applies exactly that plan: it plans again and ' +
          'refuses, writing nothing, when the manifests, the state file or the live state of any planned ' +
          'resource differ from when the plan was made.\n' +
          'A target whose manifests have errors gets no writes at all (the plan still shows what it would do), unless --allow-partial.\n' +
          'Exit codes: 0 everything applied, 1 anything failed (or bad manifests, a refused prune, a stale saved plan).',
      ),
  )
    .option('--target <name>', 'apply only this target (repeatable; default every target)', collect, [])
    .option('--prune', 'delete resources stacksync created that no manifest names any more (default: sync.prune)')
    .option(
      '--force',
      'let a prune exceed sync.maxDeletes / sync.maxDeletePercent, or run on an empty manifests directory',
    )
    .option('--adopt', 'take over same-named live resources stacksync did not create (default: sync.adopt)')
    .option(
      '--allow-partial',
      'apply the valid manifests of a target even though others of it have errors (default: a target ' +
        'with manifest errors gets no writes; its deletes never run)',
    )
    .option(
      '--allow-replace',
      'let a change of a create-only member delete the resource and create it again (a pipe: its data ' +
        'is loaded again); without it such a change fails, unless its manifest says ' +
        'stacksync.io/replace: allow',
    )
    .option(
      '--wait <duration>',
      'how long to wait for each pipe created, started or stopped to settle (Running, Snapshot, ' +
        'Completed; Stopped, Paused), and for the CDC scaling to show a new sizing, e.g. 30s, 10m; 0 ' +
        'waits only where a later step needs it',
      DEFAULT_WAIT,
    )
    .addOption(
      new Option('--output <format>', 'text for people, json for tools').choices(['text', 'json']).default('text'),
    )
    .option(
      '--plan <file>',
      'apply the plan saved by `plan --out FILE`, exactly, or nothing if anything it was computed from ' +
        'changed (its --target, --prune and --adopt come with it)',
    )
    .addOption(lockTimeoutOption())
    .action(async (flags: ApplyFlags) => {
      const waitMs = parseWait(flags.wait);
      const saved = flags.plan === undefined ? undefined : await readSavedPlan(flags);
      const logFormat = logFormatFor('apply', flags);
      const logger = commandLogger(flags, logFormat);
      // Progress goes to stderr, so stdout holds only the plan and the results (or the JSON).
      const reporter = progressFor(logFormat, logger, flags.target.length !== 1);
      const env = processEnv();
      const keySalt = saved?.plan.fingerprint.keySalt;
      // The plan's reads are counted and timed for the estimate of the writes that follow.
      const requests = createRequestLog();
      const session = await openSession(flags, {
        writeKey: true,
        env,
        state: { mode: 'command', command: 'apply', lockTimeoutMs: lockTimeoutOf(flags) },
        logger,
        clientOptions: {
          hooksFor: (target) =>
            bothHooks(
              {
                onRateLimitWait: (event) => reporter.onRateLimitWait(event),
                onRateLimitDelay: (event) => reporter.onRateLimitDelay({ ...event, target }),
                // Each retry is told as it is decided: an unreachable target is seen at once.
                onRetry: (event) =>
                  notice(logger, logFormat, 'warn', formatRetryLine(target, event), { target, ...event }),
              },
              requests.hooksFor(target),
            ),
        },
        // The first apply of a plan made before the state had a key makes the plan's key the state key.
        ...(saved && keySalt !== undefined
          ? { newKey: (config: Config) => stateKeyFromPlan(config, env, saved, keySalt) }
          : {}),
      });
      const cancel = new AbortController();
      const stopListening = onTermination(() => {
        notice(
          logger,
          logFormat,
          'info',
          'stopping: no new writes; waiting for those in flight and saving the state (signal again to exit now)',
        );
        cancel.abort();
      });
      try {
        const run = await runToApply(session, flags, saved, logFormat);
        const plan = withEstimate(
          withConfigWarnings(run.plan, session.configWarnings),
          run,
          session.context,
          requests,
          { spentFor: (target) => session.clients.spentFor(target), readsDone: true },
        );
        if (plan.estimate) reporter.onEstimate(plan.estimate);
        const text = flags.output === 'text';
        if (text) await writeChunks(process.stdout, planTextChunks(plan, { color: useColor(process.stdout) }));
        const outcome = await executePlan(session.context, run, {
          force: flags.force === true,
          signal: cancel.signal,
          onEvent: (_target, event) => reporter.onEvent(event),
          allowReplace: flags.allowReplace === true,
          settle: { timeoutMs: waitMs, followLast: waitMs > 0 },
        });
        const final = withRunErrors(plan, outcome);
        process.stdout.write(
          text ? renderResults(final, outcome.results) : showJson(renderPlanJson(final, { results: outcome.results })),
        );
        // What to run about what held changes back, for this config and these targets (on stderr, after the results).
        const codes = [
          ...[...final.errors, ...final.warnings].map((problem) => problem.code),
          ...[...outcome.results.values()].flatMap((result) => (result.result === 'ok' ? [] : [result.code])),
        ];
        for (const hint of hintLines(codes, invocationOf(flags, env))) notice(logger, logFormat, 'info', hint);
        setExitCode(exitCodeFor(final, outcome.results, cancel.signal.aborted));
      } finally {
        stopListening();
        await session.close();
      }
    });

/** `apply --wait`'s default (docs/reference/cli.md). */
const DEFAULT_WAIT = '10m';

function parseWait(text: string): number {
  if (text === '0') return 0;
  const ms = parseDuration(text);
  if (ms === undefined)
    throw new StacksyncError('E_USAGE', `--wait ${text}: must be a duration like 30s, 10m or 1h (0: do not wait)`);
  return ms;
}

/** Human progress lines on stderr, or the same as records when the logs are JSON. */
function progressFor(format: LogFormat, logger: Logger, labelTargets: boolean): ProgressReporter {
  return format === 'json'
    ? createProgressLog(logger)
    : createProgressReporter({ stream: process.stderr, labelTargets });
}

/** The saved plan named by `--plan`; its choices cannot be overridden on the command line. */
async function readSavedPlan(flags: ApplyFlags): Promise<{ file: string; plan: SavedPlan }> {
  const file = flags.plan ?? '';
  const overridden = [
    flags.target.length > 0 ? '--target' : '',
    flags.prune !== undefined ? '--prune' : '',
    flags.adopt !== undefined ? '--adopt' : '',
  ].filter(Boolean);
  if (overridden.length > 0) {
    throw new StacksyncError(
      'E_USAGE',
      `--plan applies the saved plan as it was made; ${overridden.join(', ')} cannot change it (plan again with them instead)`,
    );
  }
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new StacksyncError(
      'E_PLAN_INVALID',
      `saved plan ${file} cannot be read (${errnoCode(error) ?? String(error)})`,
      { subject: file, cause: error },
    );
  }
  return { file, plan: parseSavedPlan(text, file) };
}

/**
 * The key derived for a saved plan made before the state had one (reconcile/plan-key.ts), checked
 * against the plan's key check and seal before it becomes the state key: a plan that does not
 * check out under it is refused with no key created.
 */
async function stateKeyFromPlan(
  config: Config,
  env: Env,
  saved: { file: string; plan: SavedPlan },
  salt: string,
): Promise<Buffer> {
  const { fingerprint } = saved.plan;
  const key = await planKeyFrom(config, fingerprint.request.targets, { env }, salt);
  const hasher = createSecretHasher(key);
  if (keyCheckOf(hasher) !== fingerprint.keyCheck)
    throw new StacksyncError('E_PLAN_STALE', describeStale(saved.file, [OTHER_CREDENTIALS]), { subject: saved.file });
  if (!sealMatches(saved.plan, hasher)) throw editedPlan(saved.file);
  return key;
}

/** The run to apply: planned now, or the saved plan once it is shown to still hold. */
async function runToApply(
  session: Session,
  flags: ApplyFlags,
  saved: { file: string; plan: SavedPlan } | undefined,
  logFormat: LogFormat,
): Promise<RunPlan> {
  const allowPartial = flags.allowPartial === true;
  if (!saved)
    return computePlan(
      session.context,
      planRequestFor(session.context.config, {
        targets: flags.target,
        prune: flags.prune,
        adopt: flags.adopt,
        allowPartial,
      }),
    );
  const { run, left } = await prepareSavedPlan(session.context, saved.plan, saved.file, packageVersion());
  if (left.length > 0) {
    if (logFormat === 'json')
      session.logger.warn(
        { notApplied: left.map(changeRef) },
        `not in ${saved.file}, so not applied (changed since the plan; the next plan shows them)`,
      );
    else process.stderr.write(leftNotice(saved.file, left));
  }
  return allowPartial ? { ...run, request: { ...run.request, allowPartial } } : run;
}

function leftNotice(file: string, left: readonly Change[]): string {
  const list = left.map((change) => `  ${change.action} ${show(changeRef(change))}\n`).join('');
  return `stacksync: not in ${show(file)}, so not applied (changed since the plan; the next plan shows them):\n${list}`;
}

function withRunErrors(plan: Plan, outcome: RunResult): Plan {
  if (outcome.errors.length === 0) return plan;
  const final = buildPlan(plan.changes, [...plan.errors, ...outcome.errors], plan.warnings);
  return plan.estimate ? { ...final, estimate: plan.estimate } : final;
}

function renderResults(plan: Plan, results: ReadonlyMap<string, ChangeResult>): string {
  const lines: string[] = [];
  // Held back for manifest errors: one line per target, however many changes it had.
  const held = new Map<string, number>();
  for (const [key, result] of results) {
    if (result.result === 'ok') continue;
    // Names and servers' messages: shown, never obeyed (support/terminal.ts).
    if (result.code !== 'E_MANIFEST_BLOCKED')
      lines.push(
        `${HELD_BACK_CODES.includes(result.code) ? 'not applied' : result.result}: ${show(key)}: ${result.code}: ${show(result.error)}`,
      );
    else held.set(result.error, (held.get(result.error) ?? 0) + 1);
  }
  const heldLines = [...held].map(
    ([error, count]) => `not applied: ${count} change${count === 1 ? '' : 's'}: E_MANIFEST_BLOCKED: ${show(error)}`,
  );
  const errors = plan.errors
    .filter((error) => error.code === 'E_PRUNE_REFUSED')
    .map((error) => `error: ${error.code}: ${show(error.message)}`);
  // The plan above counted what was planned; this counts what happened.
  return [...errors, ...heldLines, ...lines, resultLine(plan, results)].map((line) => `${line}\n`).join('');
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
