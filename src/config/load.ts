/**
 * Loads the config file: read → parse (with positions) → schema with defaults → rules → normalise
 * → freeze. Every problem is collected and reported with file, line and column.
 */
import { readFile as fsReadFile, stat } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { LineCounter, parseDocument } from 'yaml';
import { StacksyncError, formatLocation, type SourceLocation } from '../errors.js';
import { DEFAULT_API_PROFILE, DEFAULT_RATE_LIMITS } from '../schema/enums.js';
import { validatorOf, type NamedSchema } from '../schema/validate.js';
import { parseDuration } from './duration.js';
import { anchorSecret, secretBaseDir } from './secrets.js';
import { tenantPathProblem } from './tenants.js';
import { KINDS } from '../kinds/registry.js';
import type {
  Config,
  ConfigFile,
  DefaultedConfigFile,
  NotifierSettings,
  ProposeSettings,
  SecretRef,
  StateSettings,
  SyncSettings,
  Target,
  TargetFile,
} from '../model/config.js';
import { proposalBranch } from './propose.js';
import {
  CONFIG_PATTERN_MESSAGES,
  NOTIFY_EVENTS,
  SECRET_REF_MESSAGE,
  configSchemaOf,
  DEFAULT_PROPOSE_BRANCH,
  DEFAULT_STATE_NAME,
  secretRefSchema,
} from '../schema/config.js';
import { deepFreeze } from '../support/freeze.js';
import { INTENT_EXPIRY_MS } from '../state/inventory.js';
import { locateIssues, positionAt, positionOfPointer, type Pointer, type YamlSource } from '../yaml/positions.js';
import {
  DEFAULT_YAML_LIMITS,
  decodeText,
  formatBytes,
  loneCrProblem,
  refusedWarningMessage,
  splitYamlWarnings,
  toPlainValue,
  versionProblem,
  YAML_READ_OPTIONS,
  yamlErrorMessage,
} from '../yaml/safety.js';

/** One thing wrong (or worth a warning) in the config file. */
export interface ConfigProblem {
  message: string;
  location: SourceLocation;
}

export interface ConfigIo {
  /** Reads the config file; the default refuses files over `MAX_CONFIG_BYTES` before reading. */
  readFile: (path: string) => Promise<Uint8Array | string>;
}

export interface LoadedConfig {
  config: Config;
  warnings: ConfigProblem[];
}

export type ConfigOutcome =
  | { ok: true; config: Config; warnings: ConfigProblem[] }
  | { ok: false; problems: ConfigProblem[]; warnings: ConfigProblem[] };

/** A config file is a few KiB; anything near this is not one. */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/** Shortest resync interval accepted; shorter would hammer the API. */
export const MIN_SYNC_INTERVAL_MS = 1_000;

/**
 * Longest resync interval accepted: a week. Drift goes unseen for as long as the interval, and
 * the interval (plus its jitter) must stay well inside what a timer can hold (24.8 days).
 */
export const MAX_SYNC_INTERVAL_MS = 7 * 86_400_000;

/**
 * Reads, validates and freezes the config at `path` (shown in messages as given).
 * Throws `E_CONFIG_INVALID` carrying every problem in `details.problems` ({file, line, column, message}).
 */
export async function loadConfig(path: string, io: Partial<ConfigIo> = {}): Promise<LoadedConfig> {
  const bytes = await readConfigFile(path, io.readFile ?? readLimited);
  const decoded = typeof bytes === 'string' ? { ok: true as const, text: bytes } : decodeText(bytes);
  if (!decoded.ok)
    throw configError(path, [{ message: `the config file ${decoded.message}`, location: { file: path } }]);
  // Its directory as the file system resolves it: where its relative `fromFile` references point.
  const outcome = parseConfigText(decoded.text, { file: path, path: join(secretBaseDir(path), basename(path)) });
  if (!outcome.ok) throw configError(path, outcome.problems);
  return { config: outcome.config, warnings: outcome.warnings };
}

async function readConfigFile(path: string, read: ConfigIo['readFile']): Promise<Uint8Array | string> {
  let bytes: Uint8Array | string;
  try {
    bytes = await read(path);
  } catch (error) {
    if (error instanceof StacksyncError) throw error;
    const code = (error as NodeJS.ErrnoException).code;
    const message =
      code === 'ENOENT'
        ? `config file ${path} not found`
        : `config file ${path} cannot be read (${code ?? String(error)})`;
    throw new StacksyncError('E_CONFIG_INVALID', message, {
      location: { file: path },
      details: { reason: code, problems: [{ file: path, message }] },
    });
  }
  if (bytes.length > MAX_CONFIG_BYTES) throw tooLarge(path, bytes.length);
  return bytes;
}

async function readLimited(path: string): Promise<Uint8Array> {
  const stats = await stat(path);
  if (!stats.isFile())
    throw new StacksyncError('E_CONFIG_INVALID', `config file ${path} is not a regular file`, {
      location: { file: path },
    });
  if (stats.size > MAX_CONFIG_BYTES) throw tooLarge(path, stats.size);
  return fsReadFile(path);
}

function tooLarge(path: string, size: number): StacksyncError {
  const message = `config file ${path} is ${formatBytes(size)}, over the limit of ${formatBytes(MAX_CONFIG_BYTES)}`;
  return new StacksyncError('E_CONFIG_INVALID', message, {
    location: { file: path },
    details: { problems: [{ file: path, message }] },
  });
}

/** The `E_CONFIG_INVALID` error for a list of problems; its message lists them all. */
export function configError(file: string, problems: ConfigProblem[]): StacksyncError {
  const details = { problems: problems.map((p) => ({ ...p.location, message: p.message })) };
  const [only] = problems;
  if (problems.length === 1 && only)
    return new StacksyncError('E_CONFIG_INVALID', only.message, { location: only.location, details });
  const lines = problems.map((p) => `  ${formatLocation(p.location)}: ${p.message}`);
  return new StacksyncError('E_CONFIG_INVALID', `${problems.length} problems:\n${lines.join('\n')}`, {
    location: { file },
    details,
  });
}

// ---------------------------------------------------------------- pure part

/** The config's schema; validating fills in its defaults. */
export const CONFIG_SCHEMA: NamedSchema = { name: 'config', schema: configSchemaOf(KINDS), useDefaults: true };

function validateConfig(value: unknown): ValidateFunction {
  const validator = validatorOf(CONFIG_SCHEMA);
  validator(value);
  return validator;
}

/**
 * Parses and validates config text. `file` is how messages name it; `path` is its absolute path
 * (relative `fromFile` references resolve against its directory).
 */
export function parseConfigText(text: string, source: { file: string; path: string }): ConfigOutcome {
  const loneCr = loneCrProblem(text);
  if (loneCr)
    return {
      ok: false,
      warnings: [],
      problems: [
        { message: loneCr.message, location: { file: source.file, line: loneCr.line, column: loneCr.column } },
      ],
    };
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { ...YAML_READ_OPTIONS, lineCounter });
  const at = (offset: number): SourceLocation => ({ file: source.file, ...positionAt(offset, lineCounter) });
  const { refused } = splitYamlWarnings(doc.warnings);
  const version = versionProblem(doc, text);
  if (doc.errors.length > 0 || refused.length > 0 || version) {
    const problems = [
      ...(version ? [{ message: version.message, location: at(version.offset) }] : []),
      ...doc.errors.map((e) => ({ message: `invalid YAML: ${yamlErrorMessage(e)}`, location: at(e.pos[0]) })),
      ...refused.map((w) => ({ message: refusedWarningMessage(w), location: at(w.pos[0]) })),
    ];
    return { ok: false, warnings: [], problems };
  }
  const plain = toPlainValue(doc, DEFAULT_YAML_LIMITS);
  if (!plain.ok) {
    const location = plain.pointer
      ? { file: source.file, ...positionOfPointer({ doc, lineCounter, value: undefined }, plain.pointer) }
      : at(0);
    return {
      ok: false,
      warnings: [],
      problems: [{ message: plain.pointer ? plain.message : `the config ${plain.message}`, location }],
    };
  }
  const yaml: YamlSource = { doc, lineCounter, value: plain.value };
  const locate = (pointer: Pointer, where: 'key' | 'value' = 'value'): SourceLocation => ({
    file: source.file,
    ...positionOfPointer(yaml, pointer, where),
  });
  if (plain.value === null || plain.value === undefined) {
    return {
      ok: false,
      warnings: [],
      problems: [{ message: 'the config file is empty; it needs at least targets', location: at(0) }],
    };
  }
  const validate = validateConfig(plain.value);
  if (validate.errors && validate.errors.length > 0) {
    const issues = locateIssues(validate.errors, yaml, {
      schema: CONFIG_SCHEMA.schema,
      patternMessages: CONFIG_PATTERN_MESSAGES,
      wholeMessages: new Map([[secretRefSchema, SECRET_REF_MESSAGE]]),
    });
    return {
      ok: false,
      warnings: [],
      problems: issues.map((i) => ({
        message: `${i.path || '(config)'}: ${i.message}`,
        location: { file: source.file, line: i.line, column: i.column },
      })),
    };
  }
  const raw = plain.value as DefaultedConfigFile;
  const problems = ruleProblems(raw, locate);
  const warnings = plainSecretWarnings(raw, locate);
  if (problems.length > 0) return { ok: false, problems, warnings };
  return { ok: true, config: deepFreeze(normalise(raw, source.path)), warnings };
}

type Locate = (pointer: Pointer, where?: 'key' | 'value') => SourceLocation;

/** Rules a schema cannot say: unique names, a default target that exists, a sane interval. */
function ruleProblems(raw: DefaultedConfigFile, locate: Locate): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, number>();
  raw.targets.forEach((target, index) => {
    const first = seen.get(target.name);
    if (first === undefined) seen.set(target.name, index);
    else
      problems.push({
        message: `targets[${index}].name: target ${target.name} is already defined (targets[${first}])`,
        location: locate(['targets', index, 'name']),
      });
  });
  const names = raw.targets.map((t) => t.name).join(', ');
  if (raw.defaultTarget !== undefined && !seen.has(raw.defaultTarget)) {
    problems.push({
      message: `defaultTarget: names no target; the targets are ${names}`,
      location: locate(['defaultTarget']),
    });
  }
  if (raw.defaultTarget === undefined && raw.targets.length > 1) {
    problems.push({
      message: `defaultTarget: is required when there are several targets (${names})`,
      location: locate(['targets'], 'key'),
    });
  }
  (raw.notify ?? []).forEach((entry, index) => {
    entry.targets?.forEach((name, at) => {
      if (!seen.has(name))
        problems.push({
          message: `notify[${index}].targets[${at}]: names no target; the targets are ${names}`,
          location: locate(['notify', index, 'targets', at]),
        });
    });
  });
  // The schema checked the pattern: a duration that does not parse overflowed.
  const intervalMs = parseDuration(raw.sync.interval) ?? Number.POSITIVE_INFINITY;
  if (intervalMs < MIN_SYNC_INTERVAL_MS) {
    problems.push({ message: 'sync.interval: must be at least 1s', location: locate(['sync', 'interval']) });
  } else if (intervalMs > MAX_SYNC_INTERVAL_MS) {
    problems.push({
      message: `sync.interval: must be at most 7d (${raw.sync.interval} is longer; a resync that rare leaves drift unseen that long)`,
      location: locate(['sync', 'interval']),
    });
  }
  if ((parseDuration(raw.sync.settleWindow) ?? Number.POSITIVE_INFINITY) > INTENT_EXPIRY_MS) {
    problems.push({
      message: `sync.settleWindow: must be at most 1d (a create intent that names nothing live is forgotten after a day)`,
      location: locate(['sync', 'settleWindow']),
    });
  }
  raw.targets.forEach((target, index) => {
    const problem = baseUrlProblem(target.baseUrl);
    if (problem)
      problems.push({
        message: `targets[${index}].baseUrl: ${problem}`,
        location: locate(['targets', index, 'baseUrl']),
      });
  });
  problems.push(...stateProblems(raw.state, locate));
  problems.push(...proposeProblems(raw, locate));
  problems.push(...tenantProblems(raw, seen, names, locate));
  return problems;
}

/**
 * `drift: propose` needs to know as whom and where it commits, and its branch may never be the one
 * the daemon syncs from: pushing there would apply the live value over Git's without review
 * (docs/daemon.md, "Drift proposed as a branch").
 */
function proposeProblems(raw: DefaultedConfigFile, locate: Locate): ConfigProblem[] {
  const propose = raw.sync.propose;
  if (raw.sync.drift !== 'propose') {
    return propose === undefined
      ? []
      : [
          {
            message: `sync.propose: is only read with sync.drift: propose (it is ${raw.sync.drift})`,
            location: locate(['sync', 'propose'], 'key'),
          },
        ];
  }
  if (propose === undefined)
    return [
      {
        message: 'sync.propose: is required with sync.drift: propose (author, base: the branch the daemon syncs from)',
        location: locate(['sync', 'drift']),
      },
    ];
  const problems: ConfigProblem[] = [];
  const template = propose.branch ?? DEFAULT_PROPOSE_BRANCH;
  if (!template.includes('{target}') && raw.targets.length > 1) {
    problems.push({
      message: `sync.propose.branch: must hold {target} when there are several targets (each has a branch of its own)`,
      location: locate(['sync', 'propose', 'branch']),
    });
  }
  for (const target of raw.targets) {
    if (proposalBranch(template, target.name) !== propose.base) continue;
    problems.push({
      message:
        `sync.propose.branch: would be ${propose.base} for target ${target.name}, the branch the daemon ` +
        `syncs from (sync.propose.base); a proposal must go to a branch of its own`,
      location: locate(['sync', 'propose', propose.branch === undefined ? 'base' : 'branch']),
    });
  }
  return problems;
}

/** Tenants with one name each, naming configured targets, with paths inside the manifests directory. */
function tenantProblems(
  raw: DefaultedConfigFile,
  targets: ReadonlyMap<string, number>,
  names: string,
  locate: Locate,
): ConfigProblem[] {
  const problems: ConfigProblem[] = [];
  const seen = new Map<string, number>();
  (raw.tenants ?? []).forEach((tenant, index) => {
    const first = seen.get(tenant.name);
    if (first === undefined) seen.set(tenant.name, index);
    else
      problems.push({
        message: `tenants[${index}].name: tenant ${tenant.name} is already defined (tenants[${first}])`,
        location: locate(['tenants', index, 'name']),
      });
    tenant.targets.forEach((name, at) => {
      if (!targets.has(name))
        problems.push({
          message: `tenants[${index}].targets[${at}]: names no target; the targets are ${names}`,
          location: locate(['tenants', index, 'targets', at]),
        });
    });
    tenant.paths.forEach((path, at) => {
      const problem = tenantPathProblem(path);
      if (problem)
        problems.push({
          message: `tenants[${index}].paths[${at}]: ${problem}`,
          location: locate(['tenants', index, 'paths', at]),
        });
    });
  });
  return problems;
}

/** The members each state backend needs and takes (docs/ownership.md, "Where the state lives"). */
const STATE_MEMBERS: Record<StateSettings['backend'], { needs: readonly string[]; takes: readonly string[] }> = {
  file: { needs: ['path'], takes: ['backend', 'path'] },
  postgres: { needs: ['url'], takes: ['backend', 'url', 'name'] },
  kubernetes: { needs: ['namespace', 'name'], takes: ['backend', 'namespace', 'name', 'kubeconfig', 'context'] },
  s3: {
    needs: ['bucket', 'key', 'region'],
    takes: ['backend', 'bucket', 'key', 'region', 'endpoint', 'forcePathStyle'],
  },
};

/**
 * Names the kubernetes backend gives its Secrets and Lease: DNS labels, `name` short enough for
 * the suffixes it adds (`-lock`, `-key`, `-<id>-<part>`) and to be a label value.
 */
const KUBERNETES_NAMES: readonly { member: 'namespace' | 'name'; max: number }[] = [
  { member: 'namespace', max: 63 },
  { member: 'name', max: 40 },
];
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

function stateProblems(state: DefaultedConfigFile['state'], locate: Locate): ConfigProblem[] {
  if (typeof state === 'string') return [];
  const members = STATE_MEMBERS[state.backend];
  const problems: ConfigProblem[] = [];
  for (const needed of members.needs) {
    if (!(needed in state))
      problems.push({
        message: `state.${needed}: is required with backend ${state.backend}`,
        location: locate(['state'], 'key'),
      });
  }
  for (const member of Object.keys(state)) {
    if (!members.takes.includes(member))
      problems.push({
        message: `state.${member}: is not a setting of backend ${state.backend} (it takes ${members.takes.join(', ')})`,
        location: locate(['state', member], 'key'),
      });
  }
  if (state.backend === 'kubernetes') {
    for (const { member, max } of KUBERNETES_NAMES) {
      const value = state[member];
      if (typeof value === 'string' && (value.length > max || !DNS_LABEL.test(value))) {
        problems.push({
          message:
            `state.${member}: must be a DNS label of at most ${max} characters (lower-case letters, digits ` +
            `and -, starting and ending with a letter or digit)`,
          location: locate(['state', member]),
        });
      }
    }
  }
  // A password in a plain URL would be shown wherever the config is; it belongs in a secret reference.
  if ('url' in state && typeof state.url === 'string' && urlHasPassword(state.url)) {
    problems.push({
      message:
        'state.url: holds a password; give the URL as {fromEnv: NAME} or {fromFile: PATH}, or the password in PGPASSWORD',
      location: locate(['state', 'url']),
    });
  }
  // Credentials come from the SDK's chain; one in the endpoint would be shown wherever it is.
  if ('endpoint' in state && typeof state.endpoint === 'string') {
    const problem = baseUrlProblem(state.endpoint);
    if (problem) problems.push({ message: `state.endpoint: ${problem}`, location: locate(['state', 'endpoint']) });
  }
  return problems;
}

function urlHasPassword(text: string): boolean {
  try {
    return new URL(text).password !== '';
  } catch {
    return false;
  }
}

/**
 * What the schema's `uri` format lets through. Credentials in the URL would be logged and echoed
 * wherever the URL is shown, so they are refused, and the message never repeats the URL.
 */
function baseUrlProblem(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL a client can open (is the port between 1 and 65535?)';
  }
  if (url.username !== '' || url.password !== '')
    return 'must not carry a user or password; give credentials in auth, as secret references (fromEnv, fromFile)';
  return undefined;
}

function plainSecretWarnings(raw: DefaultedConfigFile, locate: Locate): ConfigProblem[] {
  const warnings: ConfigProblem[] = [];
  raw.targets.forEach((target, index) => {
    for (const [member, ref] of Object.entries(target.auth)) {
      if (typeof ref !== 'string') continue;
      const path = `targets[${index}].auth.${member}`;
      warnings.push({
        message: `${path}: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}`,
        location: locate(['targets', index, 'auth', member]),
      });
    }
  });
  // A webhook URL may be public; keys and tokens never are.
  (raw.notify ?? []).forEach((entry, index) => {
    for (const member of ['secret', 'token'] as const) {
      if (typeof entry[member] !== 'string') continue;
      warnings.push({
        message: `notify[${index}].${member}: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}`,
        location: locate(['notify', index, member]),
      });
    }
  });
  if (typeof raw.sync.propose?.token === 'string') {
    warnings.push({
      message: 'sync.propose.token: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}',
      location: locate(['sync', 'propose', 'token']),
    });
  }
  for (const member of ['token', 'reloadToken'] as const) {
    if (typeof raw.control?.[member] !== 'string') continue;
    warnings.push({
      message: `control.${member}: is a plain string in the config file; use {fromEnv: NAME} or {fromFile: PATH}`,
      location: locate(['control', member]),
    });
  }
  return warnings;
}

/** A path (of `state: PATH` or the file backend) resolves against the working directory, as it always has. */
function normaliseState(raw: DefaultedConfigFile['state'], baseDir: string): StateSettings {
  if (typeof raw === 'string') return { backend: 'file', path: resolve(raw) };
  if (raw.backend === 'file') return { backend: 'file', path: resolve(raw.path) };
  if (raw.backend === 'kubernetes') {
    // The kubeconfig, like a fromFile secret, is found beside the config file from any working directory.
    const { namespace, name, kubeconfig, context } = raw;
    return {
      backend: 'kubernetes',
      namespace,
      name,
      ...(kubeconfig !== undefined ? { kubeconfig: resolve(baseDir, kubeconfig) } : {}),
      ...(context !== undefined ? { context } : {}),
    };
  }
  if (raw.backend === 's3') {
    const { bucket, key, region, endpoint, forcePathStyle } = raw;
    return {
      backend: 's3',
      bucket,
      key,
      region,
      ...(endpoint !== undefined ? { endpoint } : {}),
      forcePathStyle: forcePathStyle === true,
    };
  }
  return { backend: 'postgres', url: anchorSecret(raw.url, baseDir), name: raw.name ?? DEFAULT_STATE_NAME };
}

function normalise(raw: DefaultedConfigFile, configPath: string): Config {
  const baseDir = dirname(configPath);
  const targets = raw.targets.map((target) => normaliseTarget(target, baseDir));
  const defaultTarget = raw.defaultTarget ?? targets[0]?.name ?? '';
  const sync: SyncSettings = {
    intervalMs: parseDuration(raw.sync.interval) ?? 0,
    drift: raw.sync.drift,
    prune: raw.sync.prune,
    maxDeletes: raw.sync.maxDeletes,
    maxDeletePercent: raw.sync.maxDeletePercent,
    adopt: raw.sync.adopt,
    lateCreateWindowMs: parseDuration(raw.sync.settleWindow) ?? 0,
    markManaged: raw.sync.markManaged,
    ...(raw.sync.drift === 'propose' && raw.sync.propose
      ? { propose: normalisePropose(raw.sync.propose, baseDir) }
      : {}),
  };
  const notify =
    raw.notify && raw.notify.length > 0 ? { notify: raw.notify.map((entry) => normaliseNotifier(entry, baseDir)) } : {};
  const control = {
    ...(raw.control?.token !== undefined ? { controlToken: anchorSecret(raw.control.token, baseDir) } : {}),
    ...(raw.control?.reloadToken !== undefined ? { reloadToken: anchorSecret(raw.control.reloadToken, baseDir) } : {}),
  };
  const daemon = raw.daemon && Object.keys(raw.daemon).length > 0 ? { daemon: { ...raw.daemon } } : {};
  const tenants = raw.tenants
    ? {
        tenants: raw.tenants.map((tenant) => ({
          name: tenant.name,
          paths: [...tenant.paths],
          targets: [...tenant.targets],
          kinds: [...tenant.kinds],
        })),
      }
    : {};
  return {
    file: configPath,
    targets,
    defaultTarget,
    sync,
    state: normaliseState(raw.state, baseDir),
    ...notify,
    ...control,
    ...daemon,
    ...tenants,
  };
}

function normalisePropose(raw: NonNullable<ConfigFile['sync']>['propose'] & object, baseDir: string): ProposeSettings {
  return {
    author: { ...raw.author },
    base: raw.base,
    branch: raw.branch ?? DEFAULT_PROPOSE_BRANCH,
    ...(raw.remote !== undefined ? { remote: raw.remote } : {}),
    ...(raw.token !== undefined ? { token: anchorSecret(raw.token, baseDir) } : {}),
  };
}

function normaliseNotifier(raw: NonNullable<ConfigFile['notify']>[number], baseDir: string): NotifierSettings {
  const settings: NotifierSettings = {
    provider: raw.provider,
    events: raw.events ?? [...NOTIFY_EVENTS],
    timeoutMs: parseDuration(raw.timeout ?? '10s') ?? 10_000,
  };
  for (const member of ['url', 'secret', 'token'] as const) {
    const ref = raw[member];
    if (ref !== undefined) settings[member] = anchorSecret(ref, baseDir);
  }
  if (raw.repository !== undefined) settings.repository = raw.repository;
  if (raw.apiUrl !== undefined) settings.apiUrl = raw.apiUrl.replace(/\/+$/, '');
  if (raw.targets !== undefined) settings.targets = raw.targets;
  return settings;
}

function normaliseTarget(raw: TargetFile, baseDir: string): Target {
  const common = {
    name: raw.name,
    baseUrl: raw.baseUrl.replace(/\/+$/, ''),
    rateLimit: { ...DEFAULT_RATE_LIMITS[raw.variant], ...raw.rateLimit },
    ...(raw.suspend === true ? { suspend: true as const } : {}),
    ...(raw.vars
      ? { vars: Object.fromEntries(Object.entries(raw.vars).map(([name, ref]) => [name, anchorSecret(ref, baseDir)])) }
      : {}),
    api: {
      profile: raw.api?.profile ?? DEFAULT_API_PROFILE,
      ...(raw.api?.paths && Object.keys(raw.api.paths).length > 0 ? { paths: { ...raw.api.paths } } : {}),
      ...(raw.api?.settingsPrefix !== undefined ? { settingsPrefix: raw.api.settingsPrefix } : {}),
    },
  };
  const ref = (member: string): SecretRef => anchorSecret(raw.auth[member] ?? '', baseDir);
  if (raw.variant === 'managed') {
    return {
      ...common,
      variant: 'managed',
      organizationId: raw.organizationId ?? '',
      serviceId: raw.serviceId ?? '',
      auth: { keyId: ref('keyId'), keySecret: ref('keySecret') },
    };
  }
  return { ...common, variant: 'self-hosted', auth: { token: ref('token') } };
}
