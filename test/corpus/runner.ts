/**
 * The bad-input corpus runner. Each case in `cases/<NN-name>/` holds what it changes in a good
 * workspace (`manifests/` files added or replacing baseline files of the same name, a
 * `config.yaml` replacing the config, or a generated file) and an `expect.yaml` with the error
 * the CLI must report. The baseline is applied once; every case starts from a copy of that
 * applied world (emulator data file, state file and HMAC key), so no case pays for an apply.
 */
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { ERROR_CODES, type ErrorCode } from '../../src/errors.js';
import { overlay } from '../helpers/cli-checks.js';
import { KIND_LIST } from '../helpers/kinds.js';
import { createWorkspace, startTestEmulator, type Workspace, type WorkspaceOptions } from '../helpers/workspace.js';
import { GENERATORS, isGeneratorName, type GeneratorName } from './generate.js';

export const CORPUS_DIR = fileURLToPath(new URL('.', import.meta.url));
const CASES_DIR = join(CORPUS_DIR, 'cases');
const BASELINE_DIR = join(CORPUS_DIR, 'baseline');

/** Secrets of the baseline's kafka pipe (its access key comes from `baseline/secrets/`). */
export const BASELINE_ENV: Readonly<Record<string, string>> = {
  CORPUS_KAFKA_USER: 'corpus-kafka-user',
  CORPUS_KAFKA_PASSWORD: 'corpus-kafka-password-value',
};

/**
 * Prune on, and caps wide open: if a broken manifest made its resources look deleted, the caps
 * must not be what saves them; only the loader's blocking may.
 */
export const WORKSPACE_OPTIONS: WorkspaceOptions = {
  sync: { prune: true, maxDeletes: 1000, maxDeletePercent: 100 },
  rateLimit: { requests: 1000, perSeconds: 1, concurrency: 4 },
};

/** The error one command must report. */
export interface Expectation {
  code: ErrorCode;
  /**
   * Relative to the workspace, as the CLI prints it (`manifests/x.yaml`, `config/stacksync.yaml`).
   * Left out only where the CLI cannot know a line (a target's credentials, resolved at plan time).
   */
  file?: string;
  line?: number;
  column?: number;
  /** A substring of the message. */
  message: string;
}

export interface CorpusCase {
  name: string;
  dir: string;
  why: string;
  expect: Expectation;
  /** Where validate differs; `exit: 0` where validate rightly passes (it checks no credentials). */
  validate: Expectation & { exit: number };
  apply: Expectation;
  generate?: { kind: GeneratorName; file: string };
  /** Env changes for the case; null removes a variable. */
  env: Record<string, string | null>;
  /** Values that must appear in no output of the case, in any encoding (see `leakForms`). */
  secrets: string[];
  /**
   * `Kind/name` of resources whose manifest the case breaks but whose identity can still be read:
   * apply's plan must list none of them as an orphan or a delete (the load error is their one row).
   */
  notOrphaned: string[];
}

/**
 * The forms a secret would take in output: raw; JSON-escaped, as `--output json` writes it (also
 * with `\uXXXX` for non-ASCII); URL-encoded, as in a URL; base64.
 */
export function leakForms(secret: string): string[] {
  const json = JSON.stringify(secret).slice(1, -1);
  const asciiJson = json.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([secret, json, asciiJson, encodeURIComponent(secret), Buffer.from(secret).toString('base64')])];
}

export async function loadCases(): Promise<CorpusCase[]> {
  const names = (await readdir(CASES_DIR)).sort();
  return Promise.all(
    names.map(async (name) =>
      parseCase(name, parse(await readFile(join(CASES_DIR, name, 'expect.yaml'), 'utf8')) as unknown),
    ),
  );
}

function parseCase(name: string, raw: unknown): CorpusCase {
  const record = asRecord(raw, `${name}/expect.yaml`);
  const expect = parseExpectation(record, name);
  const generate = record['generate'] === undefined ? undefined : parseGenerate(record['generate'], name);
  const spec: CorpusCase = {
    name,
    dir: join(CASES_DIR, name),
    why: String(record['why'] ?? ''),
    expect,
    validate: { exit: 1, ...expect, ...(record['validate'] as Partial<Expectation & { exit: number }> | undefined) },
    apply: { ...expect, ...(record['apply'] as Partial<Expectation> | undefined) },
    env: (record['env'] as Record<string, string | null> | undefined) ?? {},
    secrets: parseSecrets(record['secrets'], name),
    notOrphaned: parseSubjects(record['notOrphaned'], name),
  };
  if (!spec.why) throw new Error(`${name}/expect.yaml: 'why' is required`);
  if (generate) spec.generate = generate;
  return spec;
}

function parseExpectation(record: Record<string, unknown>, name: string): Expectation {
  const code = record['code'];
  if (typeof code !== 'string' || !Object.hasOwn(ERROR_CODES, code))
    throw new Error(`${name}/expect.yaml: unknown code ${String(code)}`);
  if (typeof record['message'] !== 'string') throw new Error(`${name}/expect.yaml: message is required`);
  // `${KINDS}`: every registered kind as a message lists them, so a new kind changes no case.
  const message = record['message'].replaceAll('${KINDS}', KIND_LIST);
  const expectation: Expectation = { code: code as ErrorCode, message };
  if (typeof record['file'] === 'string') expectation.file = record['file'];
  if (typeof record['line'] === 'number') expectation.line = record['line'];
  if (typeof record['column'] === 'number') expectation.column = record['column'];
  return expectation;
}

function parseSecrets(raw: unknown, name: string): string[] {
  if (raw === undefined) return [];
  if (!Array.isArray(raw) || !raw.every((item) => typeof item === 'string' && item.length >= 4))
    throw new Error(`${name}/expect.yaml: secrets must be a list of strings (4 characters or more)`);
  return raw as string[];
}

function parseSubjects(raw: unknown, name: string): string[] {
  if (raw === undefined) return [];
  if (
    !Array.isArray(raw) ||
    !raw.every((item) => typeof item === 'string' && /^[A-Z][A-Za-z]+\/[a-z0-9-]+$/.test(item))
  )
    throw new Error(`${name}/expect.yaml: notOrphaned must be a list of Kind/name`);
  return raw as string[];
}

function parseGenerate(raw: unknown, name: string): { kind: GeneratorName; file: string } {
  const record = asRecord(raw, `${name}/expect.yaml generate`);
  if (!isGeneratorName(record['kind']) || typeof record['file'] !== 'string')
    throw new Error(`${name}/expect.yaml: generate needs a known kind and a file`);
  return { kind: record['kind'], file: record['file'] };
}

function asRecord(value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new Error(`${what} is not a mapping`);
  return value as Record<string, unknown>;
}

// ---------------------------------------------------------------- the applied baseline

/** Files that make up "the baseline, applied": copied into every case. */
export interface Baseline {
  dir: string;
  emulatorData: string;
  stateDir: string;
}

/** Copies the baseline manifests and secrets into a workspace. */
export async function writeBaseline(workspace: Workspace): Promise<void> {
  await overlay(join(BASELINE_DIR, 'manifests'), workspace.manifestsDir);
  await overlay(join(BASELINE_DIR, 'secrets'), join(workspace.dir, 'secrets'));
  Object.assign(workspace.env, BASELINE_ENV);
}

/**
 * Applies the baseline once against an emulator persisting to a data file, checks that a second
 * plan finds nothing to do, and keeps the data file and the state for the cases.
 */
export async function prepareBaseline(): Promise<Baseline> {
  const dir = await mkdtemp(join(tmpdir(), 'stacksync-corpus-'));
  const emulatorData = join(dir, 'emulator.json');
  const emulator = await startTestEmulator({ dataFile: emulatorData, persistDelayMs: 0 });
  const workspace = await createWorkspace(emulator.url, WORKSPACE_OPTIONS);
  try {
    await writeBaseline(workspace);
    const apply = await workspace.run(['apply']);
    if (apply.code !== 0) throw new Error(`baseline apply failed (${apply.code}):\n${apply.stdout}\n${apply.stderr}`);
    const plan = await workspace.run(['plan', '--detailed-exitcode']);
    if (plan.code !== 0)
      throw new Error(`baseline is not in sync after apply (${plan.code}):\n${plan.stdout}\n${plan.stderr}`);
    const stateDir = join(dir, 'state');
    await overlay(join(workspace.dir, '.stacksync'), stateDir);
    return { dir, emulatorData, stateDir };
  } finally {
    await emulator.close();
    await workspace.dispose();
  }
}

/** Placeholders of a case's `config.yaml`. */
function fillConfig(text: string, url: string): string {
  return text
    .replaceAll('${URL}', url)
    .replaceAll('${ORG}', DEFAULT_SEED_IDS.organizationId)
    .replaceAll('${SERVICE}', DEFAULT_SEED_IDS.serviceId);
}

export interface CaseWorld {
  url: string;
  workspace: Workspace;
  close(): Promise<void>;
}

/** A running emulator restored from the applied baseline, and a workspace with the case laid over it. */
export async function openCase(baseline: Baseline, spec: CorpusCase): Promise<CaseWorld> {
  const scratch = await mkdtemp(join(tmpdir(), `stacksync-case-${spec.name}-`));
  const dataFile = join(scratch, 'emulator.json');
  await copyFile(baseline.emulatorData, dataFile);
  const emulator = await startTestEmulator({ dataFile, persistDelayMs: 0 });
  if (!emulator.restored) throw new Error('the case emulator did not restore the baseline');
  const workspace = await createWorkspace(emulator.url, WORKSPACE_OPTIONS);
  await overlay(baseline.stateDir, join(workspace.dir, '.stacksync'));
  await writeBaseline(workspace);
  await layCase(workspace, spec, emulator.url);
  return {
    url: emulator.url,
    workspace,
    async close() {
      await emulator.close();
      await workspace.dispose();
      await rm(scratch, { recursive: true, force: true });
    },
  };
}

async function layCase(workspace: Workspace, spec: CorpusCase, url: string): Promise<void> {
  if (existsSync(join(spec.dir, 'manifests'))) await overlay(join(spec.dir, 'manifests'), workspace.manifestsDir);
  if (existsSync(join(spec.dir, 'config.yaml')))
    await writeFile(workspace.configPath, fillConfig(await readFile(join(spec.dir, 'config.yaml'), 'utf8'), url));
  if (spec.generate) {
    const path = join(workspace.dir, spec.generate.file);
    await mkdir(join(path, '..'), { recursive: true });
    await GENERATORS[spec.generate.kind](path);
  }
  for (const [name, value] of Object.entries(spec.env)) {
    if (value === null) delete workspace.env[name];
    else workspace.env[name] = value;
  }
}
