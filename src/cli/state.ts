/**
 * `stacksync state`: what is kept where (docs/ownership.md, "Where the state lives").
 * - `show`: the backend, lineage, serial, lock holder and what each target owns;
 * - `migrate --to CONFIG`: copies this config's state into the state another config names (an
 *   empty one), then reads it back and checks it is the same;
 * - `unlock ID`: breaks a lock whose holder is gone, naming the holder first (Terraform's
 *   force-unlock);
 * - `forget TARGET KIND/NAME…`: lets go of resources without deleting them, their managed-by mark
 *   taken off (Terraform's `state rm`; docs/ownership.md, "Letting go of a resource").
 */
import { isDeepStrictEqual } from 'node:util';
import { Command, Option } from 'commander';
import { chooseConfigPath, processEnv } from '../config/paths.js';
import { loadConfig } from '../config/load.js';
import { StacksyncError } from '../errors.js';
import type { Config } from '../model/config.js';
import type { StateFile } from '../model/state.js';
import type { StateBackend } from '../state/backend.js';
import { openStateBackend } from './state-backend.js';
import { DEFAULT_LOCK_TIMEOUT_MS, type LockHolder } from '../state/lock.js';
import { EXIT_ERROR, EXIT_OK, type CommandFactory } from './exit.js';
import { forgetResources, type ForgetOutcome } from '../reconcile/forget.js';
import { MANAGED_MARK } from '../schema/config.js';
import { showLines } from '../support/terminal.js';
import { lockTimeoutOf, lockTimeoutOption, openSession, type LockFlags } from './context.js';
import { parseSubject } from './pull.js';

interface StateFlags {
  config?: string;
}

export const stateCommand: CommandFactory = (setExitCode) => {
  const command = new Command('state')
    .summary('show, migrate, unlock the state (what stacksync owns, and where it is kept), or forget resources in it')
    .description(
      'The state is what stacksync owns: the inventory, the HMACs of write-only values and create intents. ' +
        "It is kept where the config's `state:` says: a file (the default), a PostgreSQL database, Secrets in Kubernetes or an S3 bucket.\n" +
        'Exit codes: 0 done, 1 an error (nothing changed; `forget` still lets go of the other resources it names, see its help).',
    );
  command
    .command('show')
    .exitOverride()
    .description(
      'Prints the backend, its lineage and serial, who holds the lock, and per target what it owns (resources per kind, create intents, secret hashes).',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .addOption(
      new Option('--output <format>', 'text for people, json for tools').choices(['text', 'json']).default('text'),
    )
    .action(async (flags: StateFlags & { output: 'text' | 'json' }) => {
      await withBackend(flags, async (backend) => {
        const summary = await summarise(backend);
        process.stdout.write(
          flags.output === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : renderSummary(summary),
        );
      });
      setExitCode(EXIT_OK);
    });
  command
    .command('unlock')
    .exitOverride()
    .argument('<id>', 'the lock id, as `state show` and a waiting command print it')
    .description(
      'Breaks the state lock held under this id, after printing its holder. ' +
        'Only for a holder that is gone: a holder that still runs is fenced (its next write to a PostgreSQL or S3 state is refused), ' +
        'but a file state cannot fence it.',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .action(async (id: string, flags: StateFlags) => {
      await withBackend(flags, async (backend) => {
        const holder = await backend.holder();
        if (!holder)
          throw new StacksyncError('E_USAGE', `the state (${backend.location}) is not locked; nothing to unlock`);
        process.stdout.write(`the lock is held by ${describeHolder(holder)}\n`);
        if (holder.token !== id)
          throw new StacksyncError(
            'E_USAGE',
            `the lock is held under id ${holder.token}, not ${id}; nothing was changed`,
          );
        const broken = await backend.unlock(id);
        if (!broken) throw new StacksyncError('E_USAGE', `the lock changed hands meanwhile; nothing was changed`);
        process.stdout.write(`unlocked the state (${backend.location})\n`);
      });
      setExitCode(EXIT_OK);
    });
  command
    .command('migrate')
    .exitOverride()
    .description(
      "Copies this config's state into the (empty) state that another config's `state:` names, with its HMAC key, " +
        'then reads it back and checks both are the same. Both are locked meanwhile. ' +
        'Point the config at the new state afterwards.',
    )
    .option(
      '-c, --config <file>',
      'config file whose state is copied (env STACKSYNC_CONFIG; default config/stacksync.yaml)',
    )
    .requiredOption('--to <config>', 'config file whose state: names where to copy it')
    .option(
      '--lock-timeout <seconds>',
      'how long to wait for each lock',
      (text) => Number(text) * 1000,
      DEFAULT_LOCK_TIMEOUT_MS,
    )
    .action(async (flags: StateFlags & { to: string; lockTimeout: number }) => {
      const from = await configOf(flags.config);
      const to = (await loadConfig(flags.to)).config;
      const source = await openStateBackend(from.state, { env: processEnv() });
      const target = await openStateBackend(to.state, { env: processEnv() });
      try {
        const copied = await migrate(source, target, flags.lockTimeout);
        process.stdout.write(
          `copied ${copied} target(s) from ${source.location} to ${target.location}, and read them back the same; point the config's state: at it now\n`,
        );
      } finally {
        await source.close();
        await target.close();
      }
      setExitCode(EXIT_OK);
    });
  command
    .command('forget')
    .exitOverride()
    .argument('<target>', 'the target whose inventory holds them')
    .argument(
      '[resources...]',
      "the resources, as KIND/NAME (NAME: the manifest's metadata.name, as the inventory records it); at least one",
    )
    .summary("Lets go of resources without deleting them, their managed-by mark taken off (Terraform's `state rm`).")
    .description(
      "Lets go of resources without deleting them (Terraform's `state rm`): each leaves the inventory, " +
        'so stacksync no longer owns it and prune never deletes it; ' +
        'a manifest still naming it then plans as `= adopt`. ' +
        `Where its kind has tags and the live resource carries the mark ${MANAGED_MARK}, one update takes the mark off first, everything else as it is live. ` +
        'A resource whose mark cannot be taken off stays in the inventory, its tags as they were. ' +
        'A resource the inventory does not hold is an error, and nothing is changed. Runs under the state lock.\n' +
        'Exit codes: 0 done, 1 an error (a resource not in the inventory: nothing changed; a mark that could not be taken off: that resource kept).',
    )
    .option('-c, --config <file>', 'config file (env STACKSYNC_CONFIG; default config/stacksync.yaml)')
    .option('--dry-run', 'print what would be done, and change neither the API nor the state')
    .addOption(lockTimeoutOption())
    .addHelpText(
      'after',
      '\nExamples:\n  stacksync state forget production Dashboard/api-latency --dry-run\n' +
        '  stacksync state forget production Dashboard/api-latency SavedSearch/errors',
    )
    .action(async (target: string, resources: string[], flags: StateFlags & LockFlags & { dryRun?: boolean }) => {
      if (resources.length === 0)
        throw new StacksyncError('E_USAGE', 'name at least one resource to forget, as KIND/NAME');
      const subjects = resources.map(parseSubject);
      const dryRun = flags.dryRun === true;
      const session = await openSession(
        { ...(flags.config !== undefined ? { config: flags.config } : {}) },
        {
          writeKey: false,
          state: dryRun
            ? { mode: 'read' }
            : { mode: 'command', command: 'state forget', lockTimeoutMs: lockTimeoutOf(flags) },
        },
      );
      try {
        const outcomes = await forgetResources(session.context, { target, subjects, dryRun });
        for (const outcome of outcomes) {
          const line = `${describeForget(outcome, dryRun)}\n`;
          // Names come from the inventory and the command line: shown, never obeyed by a terminal.
          if (outcome.error === undefined) process.stdout.write(showLines(line));
          else process.stderr.write(showLines(line));
        }
        setExitCode(outcomes.some((outcome) => outcome.error !== undefined) ? EXIT_ERROR : EXIT_OK);
      } finally {
        await session.close();
      }
    });
  return command;
};

/** One line per resource: what was (with --dry-run: would be) done to it. */
function describeForget(outcome: ForgetOutcome, dryRun: boolean): string {
  const subject = `${outcome.kind}/${outcome.name} (id ${outcome.id})`;
  if (outcome.error !== undefined)
    return `${subject}: its mark ${MANAGED_MARK} could not be taken off (${outcome.error}); it stays in the inventory, unchanged`;
  const mark =
    outcome.mark === 'removed'
      ? `${dryRun ? 'would take' : 'took'} the mark ${MANAGED_MARK} off its tags`
      : outcome.mark === 'absent'
        ? 'it does not carry the mark live'
        : 'its kind has no tags';
  return `${dryRun ? 'would forget' : 'forgot'} ${subject}: ${mark}; ${dryRun ? 'it would no longer be' : 'no longer'} managed, nothing deleted`;
}

async function configOf(path: string | undefined): Promise<Config> {
  return (await loadConfig(chooseConfigPath(path, processEnv()).path)).config;
}

async function withBackend(flags: StateFlags, body: (backend: StateBackend) => Promise<void>): Promise<void> {
  const config = await configOf(flags.config);
  const backend = await openStateBackend(config.state, { env: processEnv() });
  try {
    await body(backend);
  } finally {
    await backend.close();
  }
}

interface TargetSummary {
  resources: Record<string, number>;
  intents: number;
  secretHashes: number;
  suspended: boolean;
}

interface StateSummary {
  backend: string;
  location: string;
  lineage: string | null;
  serial: number | null;
  lock: (LockHolder & { id: string }) | null;
  targets: Record<string, TargetSummary>;
}

async function summarise(backend: StateBackend): Promise<StateSummary> {
  const store = await backend.open({ readOnly: true });
  const version = await backend.version();
  const holder = await backend.holder();
  const targets: Record<string, TargetSummary> = {};
  for (const [name, state] of Object.entries(store.snapshot().targets)) {
    const resources: Record<string, number> = {};
    for (const [kind, entries] of Object.entries(state.inventory)) {
      const count = Object.keys(entries).length;
      if (count > 0) resources[kind] = count;
    }
    targets[name] = {
      resources,
      intents: state.intents.length,
      secretHashes: Object.keys(state.secretHashes).length,
      suspended: state.suspension !== undefined,
    };
  }
  return {
    backend: backend.kind,
    location: backend.location,
    lineage: version.lineage ?? null,
    serial: version.serial ?? null,
    lock: holder ? { ...holder, id: holder.token } : null,
    targets,
  };
}

function renderSummary(summary: StateSummary): string {
  const lines = [
    `backend   ${summary.backend}: ${summary.location}`,
    `lineage   ${summary.lineage ?? '(none yet: the state file gets one when it is next written)'}`,
    `serial    ${summary.serial ?? '(none yet)'}`,
    `lock      ${summary.lock ? `held by ${describeHolder(summary.lock)}` : 'free'}`,
  ];
  const names = Object.keys(summary.targets).sort();
  if (names.length === 0) lines.push('targets   none yet');
  for (const name of names) {
    const target = summary.targets[name] as TargetSummary;
    const owned = Object.entries(target.resources).map(([kind, count]) => `${count} ${kind}`);
    lines.push(
      `target ${name}: ${owned.length > 0 ? owned.join(', ') : 'owns nothing'}; ` +
        `${target.intents} create intent(s); ${target.secretHashes} secret hash(es)${target.suspended ? '; suspended' : ''}`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function describeHolder(holder: LockHolder): string {
  return `stacksync ${holder.command} (pid ${holder.pid} on host ${holder.host}, since ${holder.since}; lock id ${holder.token})`;
}

/** Copies `source` into the empty `target` under both locks; returns how many targets were copied. */
async function migrate(source: StateBackend, target: StateBackend, lockTimeoutMs: number): Promise<number> {
  if (source.location === target.location)
    throw new StacksyncError('E_USAGE', `--to names the same state (${source.location}); nothing to copy`);
  const sourceLock = await source.lock({ command: 'state migrate', timeoutMs: lockTimeoutMs });
  try {
    const targetLock = await target.lock({ command: 'state migrate', timeoutMs: lockTimeoutMs });
    try {
      const from = await source.open({ readOnly: true });
      const into = await target.open();
      if (Object.keys(into.snapshot().targets).length > 0) {
        throw new StacksyncError(
          'E_USAGE',
          `the state at ${target.location} is not empty; migrate copies only into an empty state, so nothing was changed`,
        );
      }
      const key = await source.hmacKey();
      if (key) {
        const stored = await target.hmacKey(key);
        if (!stored?.equals(key))
          throw new StacksyncError(
            'E_USAGE',
            `the state at ${target.location} already has another HMAC key; migrate copies only into an empty state, so nothing was changed`,
          );
      }
      const snapshot: StateFile = from.snapshot();
      for (const [name, state] of Object.entries(snapshot.targets)) into.set(name, state);
      await into.save();
      await into.close();
      // The copy is the same history: it keeps the source's lineage.
      const { lineage } = await source.version();
      if (lineage !== undefined) await target.adoptLineage?.(lineage);
      const check = await target.open({ readOnly: true });
      if (!isDeepStrictEqual(check.snapshot().targets, snapshot.targets)) {
        throw new StacksyncError(
          'E_STATE_WRITE',
          `the state read back from ${target.location} differs from ${source.location}; the copy cannot be trusted: empty it before trying again`,
        );
      }
      return Object.keys(snapshot.targets).length;
    } finally {
      await targetLock.release();
    }
  } finally {
    await sourceLock.release();
  }
}
