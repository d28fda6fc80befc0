/**
 * Pipe rules of the current profile (docs/reference/api-behaviour.md, "The real services today: the whole lifecycle";
 * the OpenAPI's ClickPipes operations; the Terraform provider's pipe resource): create per source
 * family with its validation, the PATCH merge with its create-only, pause and snapshot-only rules,
 * state commands, settings, scaling, and the service's CDC scaling. Pure over a service record and
 * a time; no HTTP. Every rule names its source beside it.
 */
import type { TSchema } from 'typebox';
import {
  PIPE_CREATE_BLOCKS,
  PIPE_PATCH_BLOCKS,
  currentPipeCreateBodySchema,
  currentPipePatchBodySchema,
  currentPipeSettingsSchema,
  pipeScalingBodySchema,
  pipeStateBodySchema,
} from '../../kinds/pipe/wire.js';
import type { JsonSchema } from '../../schema/build.js';
import {
  isCreateOnlyDestinationMember,
  isCreateOnlySourceMember,
  PIPE_CREATE_ONLY_MEMBERS,
  PIPE_WRITE_ONLY_SOURCE_MEMBERS,
} from '../../schema/pipe-create-only.js';
import {
  DEFAULT_PIPE_FLAVOURS,
  DEFAULT_PIPE_SCALING,
  EDITABLE_MAPPING_STATES,
  PIPE_FAMILIES,
  PIPE_FAMILY_TITLES,
  RESYNCABLE_PIPE_FAMILIES,
  SCALABLE_PIPE_FAMILIES,
  SNAPSHOT_ONLY_PIPE_FAMILIES,
  STARTABLE_PIPE_STATES,
  TABLE_MAPPING_KEYS,
  isPipeFamily,
  type PipeFamily,
  type PipeStateCommand,
  PIPE_LACKED_ON_CURRENT,
} from '../../schema/pipe-sources.js';
import { pipeDestinationRules, pipeScalingRules, pipeSourceRules } from '../../schema/pipe-rules.js';
import { compileSchema, formatPath, toIssues, type SchemaIssue } from '../../schema/validate.js';
import { findLacked } from '../../schema/lacked.js';
import { ApiError } from '../errors.js';
import { isoTimestamp, newId } from '../ids.js';
import type { PipeResource, PipeSecrets, ServiceRecord } from '../model.js';
import {
  changeTableMappings,
  overlaySourceSettings,
  requirePipe,
  stripUnknownMembers,
  type Fingerprint,
} from '../pipes.js';
import {
  forgetPipe,
  pipeFamily,
  scheduleCreate,
  scheduleResumeAfterEdit,
  scheduleResync,
  scheduleStart,
  scheduleStop,
  type PipeBehaviour,
} from './pipe-lifecycle.js';
import { isRecord } from '../../support/json.js';

type Block = Record<string, unknown>;

/** What the rules depend on besides the request: how secrets are kept and how the lifecycle runs. */
export interface CurrentPipeRules {
  fingerprint: Fingerprint;
  behaviour: PipeBehaviour;
}

// ---------------------------------------------------------------- checking

function joinPath(prefix: string, path: string): string {
  if (!prefix) return path;
  if (!path) return prefix;
  return path.startsWith('[') ? `${prefix}${path}` : `${prefix}.${path}`;
}

/** Schema issues of `value`, with paths from the body's root. */
export function check(name: string, schema: TSchema, value: unknown, at: (string | number)[] = []): SchemaIssue[] {
  const validate = compileSchema(`api:current-pipe:${name}`, schema as unknown as JsonSchema);
  if (validate(value)) return [];
  const prefix = formatPath(at);
  return toIssues(validate.errors ?? []).map((issue) => ({
    pointer: [...at, ...issue.pointer],
    path: joinPath(prefix, issue.path),
    message: issue.message,
  }));
}

export function issue(path: string, message: string): SchemaIssue {
  return { path, pointer: [], message };
}

export function invalid(issues: SchemaIssue[], what = 'invalid pipe'): ApiError {
  return new ApiError('bad_request', what, { issues });
}

export function requireBody(body: unknown): Block {
  if (!isRecord(body)) throw invalid([issue('', 'must be object')], 'invalid body');
  return body;
}

/** The real validators drop what they do not know: a copy of `value` without it. */
export function tolerated<T>(schema: TSchema, value: T): T {
  const copy = structuredClone(value);
  stripUnknownMembers(schema as unknown as JsonSchema, copy);
  return copy;
}

/** OpenAPI: nullable members sent as null mean "not set". */
function withoutNulls(value: Block): Block {
  const out: Block = {};
  for (const [key, member] of Object.entries(value)) {
    if (member === null) continue;
    out[key] = isRecord(member) ? withoutNulls(member) : member;
  }
  return out;
}

const nonEmptyList = (value: unknown): boolean => Array.isArray(value) && value.length > 0;

/** docs/reference/api-behaviour.md: "`fieldMappings` without `destination.columns` in the same body → 400". */
function requireColumnsForFieldMappings(body: Block): void {
  if (body['fieldMappings'] !== undefined && !isRecord(body['destination']))
    throw new ApiError('bad_request', 'Columns are required if field mappings are provided');
  if (body['fieldMappings'] !== undefined && (body['destination'] as Block)['columns'] === undefined) {
    throw new ApiError('bad_request', 'Columns are required if field mappings are provided');
  }
}

/** docs/reference/api-behaviour.md: "Creating a pipe whose name is taken in the service → 400". */
function requireUniqueName(service: ServiceRecord, name: string, except?: string): void {
  const taken = [...service.pipes.values()].some((pipe) => pipe.name === name && pipe.id !== except);
  if (taken) throw invalid([issue('name', `a pipe named ${name} already exists in this service`)]);
}

/** The one family block a source holds (`validateSamples` sits beside it and is an instruction, not state). */
function familyOf(source: Block, issues: SchemaIssue[]): PipeFamily | undefined {
  const families = Object.keys(source).filter(isPipeFamily);
  if (families.length === 1) return families[0];
  issues.push(
    issue(
      'source',
      `must hold exactly one of ${PIPE_FAMILIES.join(', ')}${families.length ? `, got ${families.join(', ')}` : ''}`,
    ),
  );
  return undefined;
}

// ---------------------------------------------------------------- secrets

function memberAt(block: Block, path: string): { parent: Block; key: string } | undefined {
  const parts = path.split('.');
  let parent: unknown = block;
  for (const part of parts.slice(0, -1)) {
    parent = isRecord(parent) ? parent[part] : undefined;
  }
  const key = parts[parts.length - 1] ?? '';
  return isRecord(parent) && parent[key] !== undefined ? { parent, key } : undefined;
}

/**
 * Moves the family's write-only members out of a block into fingerprints keyed `family.path`
 * (docs/reference/api-behaviour.md: "accepted, stored, never returned").
 */
function takeWriteOnly(family: PipeFamily, block: Block, secrets: PipeSecrets, fingerprint: Fingerprint): Block {
  const kept = structuredClone(block);
  for (const path of PIPE_WRITE_ONLY_SOURCE_MEMBERS[family]) {
    const found = memberAt(kept, path);
    if (!found) continue;
    secrets[`${family}.${path}`] = fingerprint(found.parent[found.key]);
    delete found.parent[found.key];
  }
  return kept;
}

const URI_PASSWORD = /^([a-z][a-z0-9+.-]*:\/\/[^:@/]+:)([^@/]+)(@)/i;
export const REDACTED = '[REDACTED]';

/**
 * OpenAPI, mongodb `uri`: "Embedded credentials are redacted from API responses"; sending the
 * redacted value back leaves it unchanged. The whole URI is kept as a fingerprint.
 */
function redactUri(
  family: PipeFamily,
  block: Block,
  secrets: PipeSecrets,
  fingerprint: Fingerprint,
  previous?: unknown,
): void {
  const uri = block['uri'];
  if (family !== 'mongodb' || typeof uri !== 'string') return;
  if (uri === previous) return;
  if (URI_PASSWORD.test(uri)) secrets['mongodb.uri'] = fingerprint(uri);
  else delete secrets['mongodb.uri'];
  block['uri'] = uri.replace(URI_PASSWORD, `$1${REDACTED}$3`);
}

// ---------------------------------------------------------------- create

/** A create body that passed every check: the body, its family and its family's block. */
interface CheckedCreate {
  input: Block;
  family: PipeFamily;
  block: Block;
}

function checkCreate(body: unknown): CheckedCreate {
  const input = tolerated(currentPipeCreateBodySchema, requireBody(body));
  if (isRecord(input['settings'])) input['settings'] = withoutNulls(input['settings']);
  const issues = check('create', currentPipeCreateBodySchema, input);
  const source = isRecord(input['source']) ? input['source'] : {};
  const family = familyOf(source, issues);
  const block =
    family && isRecord(source[family])
      ? tolerated(PIPE_CREATE_BLOCKS[family], withoutNulls(source[family] as Block))
      : undefined;
  if (family && !block) issues.push(issue(`source.${family}`, 'must be object'));
  if (family && block) {
    const blockIssues = check(`create:${family}`, PIPE_CREATE_BLOCKS[family], block, ['source', family]);
    issues.push(...(blockIssues.length ? blockIssues : pipeSourceRules(family, block, `source.${family}`)));
    if (isRecord(input['destination'])) issues.push(...pipeDestinationRules(family, input['destination']));
    issues.push(...pipeScalingRules(family, input['scaling'] as Block | undefined, 'scaling'));
  }
  // What the service's newest API description lacks, it does not take (docs/manifests/pipe.md#what-a-target-of-todays-api-does-not-take).
  for (const lacked of findLacked(input, PIPE_LACKED_ON_CURRENT, "the service's API"))
    issues.push(issue(formatPath(lacked.pointer), lacked.message));
  if (issues.length || !family || !block) throw invalid(issues);
  requireColumnsForFieldMappings(input);
  return { input, family, block };
}

function newCurrentPipe(
  serviceId: string,
  { input, family, block }: CheckedCreate,
  nowMs: number,
  fingerprint: Fingerprint,
): { pipe: PipeResource; secrets: PipeSecrets } {
  const flavour = DEFAULT_PIPE_FLAVOURS[family as keyof typeof DEFAULT_PIPE_FLAVOURS];
  if (flavour && block['type'] === undefined) block['type'] = flavour;
  const secrets: PipeSecrets = {};
  const stored = takeWriteOnly(family, block, secrets, fingerprint);
  redactUri(family, stored, secrets, fingerprint);
  const scaling = SCALABLE_PIPE_FAMILIES.includes(family)
    ? { ...DEFAULT_PIPE_SCALING, ...(input['scaling'] as Record<string, number> | undefined) }
    : undefined;
  const settings = input['settings'] as PipeResource['settings'] | undefined;
  const now = isoTimestamp(nowMs);
  const pipe: PipeResource = {
    id: newId('uuid', nowMs),
    serviceId,
    name: String(input['name']),
    ...(typeof input['description'] === 'string' && { description: input['description'] }),
    state: 'Provisioning',
    ...(scaling && { scaling }),
    source: { [family]: stored },
    destination: input['destination'] as Block,
    ...(input['fieldMappings'] !== undefined && {
      fieldMappings: input['fieldMappings'] as PipeResource['fieldMappings'],
    }),
    ...(settings && { settings }),
    createdAt: now,
    updatedAt: now,
  };
  return { pipe, secrets };
}

/** `POST …/pipes`: one family block, checked by its family's schema and rules; answers `Provisioning`. */
export function createCurrentPipe(
  service: ServiceRecord,
  body: unknown,
  nowMs: number,
  rules: CurrentPipeRules,
): PipeResource {
  const checked = checkCreate(body);
  requireUniqueName(service, String(checked.input['name']));
  const { pipe, secrets } = newCurrentPipe(service.id, checked, nowMs, rules.fingerprint);
  service.pipes.set(pipe.id, pipe);
  service.pipeSecrets.set(pipe.id, secrets);
  scheduleCreate(service, pipe, nowMs, rules.behaviour);
  return pipe;
}

// ---------------------------------------------------------------- update

/**
 * BigQuery pipes and `Completed` ones take no change (docs/reference/api-behaviour.md: "bigquery: snapshot
 * only"; "A `Completed` pipe takes no change but a resync").
 */
function refuseChangeAfterSnapshot(pipe: PipeResource, family: PipeFamily): void {
  if (SNAPSHOT_ONLY_PIPE_FAMILIES.includes(family)) {
    throw new ApiError(
      'bad_request',
      `${PIPE_FAMILY_TITLES[family]} pipes are snapshot only: pipe ${pipe.id} takes no change after it is created`,
    );
  }
  if (pipe.state === 'Completed')
    throw new ApiError('bad_request', `pipe ${pipe.id} is Completed: it takes no change but a resync`);
}

/** The create-only members a PATCH body names (`pipe-create-only.ts`), each as an issue; the topmost path of each. */
function createOnlyIssues(body: Block, family: PipeFamily): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const message = 'is create-only: it cannot change once the pipe exists (delete the pipe and create it again)';
  const walk = (value: Block, path: string): void => {
    for (const [key, member] of Object.entries(value)) {
      const inner = path ? `${path}.${key}` : key;
      if (isCreateOnlySourceMember(family, inner)) issues.push(issue(`source.${family}.${inner}`, message));
      else if (isRecord(member)) walk(member, inner);
    }
  };
  for (const member of PIPE_CREATE_ONLY_MEMBERS) if (member in body) issues.push(issue(member, message));
  const source = body['source'];
  if (isRecord(source) && isRecord(source[family])) walk(source[family], '');
  const destination = body['destination'];
  if (isRecord(destination)) {
    for (const key of Object.keys(destination))
      if (isCreateOnlyDestinationMember(key)) issues.push(issue(`destination.${key}`, message));
  }
  return issues;
}

type Mapping = Block;

function applyBlock(
  pipe: PipeResource,
  family: PipeFamily,
  patch: Block,
  cleared: string[],
  secrets: PipeSecrets,
  rules: CurrentPipeRules,
): void {
  const block = pipe.source[family] ?? {};
  const previousUri = block['uri'];
  const { tableMappingsToAdd, tableMappingsToRemove, settings, ...members } = takeWriteOnly(
    family,
    patch,
    secrets,
    rules.fingerprint,
  );
  redactUri(family, members, secrets, rules.fingerprint, previousUri);
  for (const key of cleared) delete block[key];
  Object.assign(block, members);
  overlaySourceSettings(block, settings);
  if (tableMappingsToAdd !== undefined || tableMappingsToRemove !== undefined) {
    const [current, add, remove] = [block['tableMappings'], tableMappingsToAdd, tableMappingsToRemove].map(
      (list) => (list as Mapping[] | undefined) ?? [],
    );
    block['tableMappings'] = changeTableMappings(
      family,
      current ?? [],
      add ?? [],
      remove ?? [],
      TABLE_MAPPING_KEYS[family],
    );
  }
  pipe.source[family] = block;
}

function mergeSettings(current: PipeResource['settings'], patch: Block): PipeResource['settings'] {
  const merged: Block = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete merged[key];
    else merged[key] = value;
  }
  return merged as PipeResource['settings'];
}

/** A PATCH body that passed every check: the body, its settings as sent (null = back to the default), and the family block. */
interface CheckedPatch {
  input: Block;
  settings?: Block;
  block?: Block;
  /** Members of the block sent as null: unset. */
  cleared: string[];
}

function checkPatch(raw: Block, family: PipeFamily): CheckedPatch {
  const createOnly = createOnlyIssues(raw, family);
  if (createOnly.length) throw invalid(createOnly, 'invalid pipe patch');
  const input = tolerated(currentPipePatchBodySchema, raw);
  const settings = isRecord(input['settings']) ? input['settings'] : undefined;
  if (settings) input['settings'] = withoutNulls(settings);
  const issues = check('patch', currentPipePatchBodySchema, input);
  const source = isRecord(input['source']) ? input['source'] : {};
  for (const other of Object.keys(source).filter((key) => isPipeFamily(key) && key !== family)) {
    issues.push(
      issue(`source.${other}`, `this pipe's source is ${family}, not ${other} (the source family is create-only)`),
    );
  }
  const rawBlock = source[family];
  if (rawBlock !== undefined && !isRecord(rawBlock)) issues.push(issue(`source.${family}`, 'must be object'));
  const patchSchema = PIPE_PATCH_BLOCKS[family];
  let block: Block | undefined;
  let cleared: string[] = [];
  if (isRecord(rawBlock) && patchSchema) {
    cleared = Object.keys(rawBlock).filter(
      (key) => rawBlock[key] === null && key !== 'tableMappingsToAdd' && key !== 'tableMappingsToRemove',
    );
    block = tolerated(patchSchema, withoutNulls(rawBlock));
    issues.push(...check(`patch:${family}`, patchSchema, block, ['source', family]));
  }
  if (issues.length) throw invalid(issues, 'invalid pipe patch');
  requireColumnsForFieldMappings(input);
  return { input, ...(settings && { settings }), ...(block && { block }), cleared };
}

function patched(
  current: PipeResource,
  family: PipeFamily,
  { input, settings, block, cleared }: CheckedPatch,
  secrets: PipeSecrets,
  nowMs: number,
  rules: CurrentPipeRules,
): PipeResource {
  const next = structuredClone(current);
  if (typeof input['name'] === 'string') next.name = input['name'];
  if (block) applyBlock(next, family, block, cleared, secrets, rules);
  const destination = input['destination'] as Block | undefined;
  if (destination?.['columns'] !== undefined)
    next.destination = { ...next.destination, columns: destination['columns'] };
  if (input['fieldMappings'] !== undefined)
    next.fieldMappings = input['fieldMappings'] as PipeResource['fieldMappings'];
  if (settings) next.settings = mergeSettings(next.settings, settings);
  next.updatedAt = isoTimestamp(nowMs);
  return next;
}

/**
 * `PATCH …/pipes/{id}`: a merge where absent members stay unchanged, applied to a copy so a
 * request refused by any rule changes nothing. Create-only members are refused, naming each;
 * members the service does not know are dropped.
 */
export function patchCurrentPipe(
  service: ServiceRecord,
  id: string,
  body: unknown,
  nowMs: number,
  rules: CurrentPipeRules,
): PipeResource {
  const current = requirePipe(service, id);
  const family = pipeFamily(current);
  refuseChangeAfterSnapshot(current, family);
  const checked = checkPatch(requireBody(body), family);
  const { block } = checked;
  const editsMappings =
    block !== undefined && (nonEmptyList(block['tableMappingsToAdd']) || nonEmptyList(block['tableMappingsToRemove']));
  // Provider (issue 497): the API answers "Postgres ClickPipe must be paused to edit" to a mapping edit on a running pipe.
  if (editsMappings && !EDITABLE_MAPPING_STATES.includes(current.state)) {
    throw new ApiError(
      'bad_request',
      `${PIPE_FAMILY_TITLES[family]} pipe must be paused to edit its table mappings (pipe ${id} is ${current.state}; stop it first)`,
    );
  }
  if (typeof checked.input['name'] === 'string') requireUniqueName(service, checked.input['name'], id);
  const secrets = { ...service.pipeSecrets.get(id) };
  const next = patched(current, family, checked, secrets, nowMs, rules);
  service.pipes.set(id, next);
  service.pipeSecrets.set(id, secrets);
  if (editsMappings)
    scheduleResumeAfterEdit(service, next, nowMs, rules.behaviour, nonEmptyList(block?.['tableMappingsToAdd']));
  return next;
}

// ---------------------------------------------------------------- state commands

/**
 * `PATCH …/pipes/{id}/state` (OpenAPI, Update ClickPipe state): "Stopping … from any state.
 * Starting is allowed for ClickPipes in the Stopped state or with a Failed state. Resyncing is only
 * for Postgres and MySQL pipes and can be done from any state" (the provider also resyncs MongoDB).
 */
export function changeCurrentPipeState(
  service: ServiceRecord,
  id: string,
  body: unknown,
  nowMs: number,
  rules: CurrentPipeRules,
): PipeResource {
  const pipe = requirePipe(service, id);
  const input = tolerated(pipeStateBodySchema, requireBody(body));
  const issues = check('state', pipeStateBodySchema, input);
  if (issues.length) throw invalid(issues, 'invalid state command');
  const command = input['command'] as PipeStateCommand;
  const family = pipeFamily(pipe);
  if (command === 'resync') {
    if (!RESYNCABLE_PIPE_FAMILIES.includes(family))
      throw new ApiError(
        'bad_request',
        `resync is only for ${RESYNCABLE_PIPE_FAMILIES.join(', ')} pipes, not ${family}`,
      );
    scheduleResync(service, pipe, nowMs, rules.behaviour);
    return pipe;
  }
  refuseChangeAfterSnapshot(pipe, family);
  if (command === 'stop') {
    scheduleStop(service, pipe, nowMs, rules.behaviour);
    return pipe;
  }
  // Provider, issue 497: a start on a running pipe answers "ClickPipe is already running".
  if (pipe.state === 'Running') throw new ApiError('bad_request', `pipe ${id} is already running`);
  if (!STARTABLE_PIPE_STATES.includes(pipe.state))
    throw new ApiError(
      'bad_request',
      `pipe ${id} is ${pipe.state}: start only from ${STARTABLE_PIPE_STATES.join(', ')}`,
    );
  scheduleStart(service, pipe, nowMs, rules.behaviour);
  return pipe;
}

// ---------------------------------------------------------------- settings and scaling

/** `GET …/pipes/{id}/settings`: the settings on their own. */
export function currentPipeSettings(service: ServiceRecord, id: string): Block {
  return { ...requirePipe(service, id).settings };
}

/** `PUT …/pipes/{id}/settings`: replaces the settings; null means "the default" (the key is dropped). */
export function putCurrentPipeSettings(service: ServiceRecord, id: string, body: unknown, nowMs: number): Block {
  const pipe = requirePipe(service, id);
  refuseChangeAfterSnapshot(pipe, pipeFamily(pipe));
  const settings = withoutNulls(tolerated(currentPipeSettingsSchema, requireBody(body)));
  const issues = check('settings', currentPipeSettingsSchema, settings);
  if (issues.length) throw invalid(issues, 'invalid settings');
  const next: PipeResource = {
    ...pipe,
    settings: settings as PipeResource['settings'],
    updatedAt: isoTimestamp(nowMs),
  };
  service.pipes.set(id, next);
  return { ...settings };
}

/** `PATCH …/pipes/{id}/scaling`: kafka, kinesis and object-storage pipes, within the provider's bounds; a merge. */
export function scaleCurrentPipe(service: ServiceRecord, id: string, body: unknown, nowMs: number): PipeResource {
  const pipe = requirePipe(service, id);
  const family = pipeFamily(pipe);
  if (!SCALABLE_PIPE_FAMILIES.includes(family)) {
    throw new ApiError(
      'bad_request',
      `scaling is only for ${SCALABLE_PIPE_FAMILIES.join(', ')} pipes; ${family} pipes share the service's CDC scaling`,
    );
  }
  const input = tolerated(pipeScalingBodySchema, requireBody(body));
  if (Object.keys(input).length === 0)
    throw invalid(
      [issue('', 'give at least one of replicas, replicaCpuMillicores, replicaMemoryGb')],
      'invalid scaling',
    );
  const issues = [
    ...check('scaling', pipeScalingBodySchema, input),
    ...pipeScalingRules(family, input, '').map((found) => ({ ...found, path: found.path.replace(/^\./, '') })),
  ];
  if (issues.length) throw invalid(issues, 'invalid scaling');
  const next: PipeResource = {
    ...pipe,
    scaling: { ...pipe.scaling, ...(input as Record<string, number>) },
    updatedAt: isoTimestamp(nowMs),
  };
  service.pipes.set(id, next);
  return next;
}

export function deleteCurrentPipe(service: ServiceRecord, id: string): void {
  requirePipe(service, id);
  service.pipes.delete(id);
  service.pipeSecrets.delete(id);
  forgetPipe(service, id);
}

// ---------------------------------------------------------------- seeds

/** A seeded pipe of the current profile: as the service would hold it, its family's write-only members moved to fingerprints. */
export function seededCurrentPipe(
  serviceId: string,
  entry: Block,
  nowMs: number,
  fingerprint: Fingerprint,
): { pipe: PipeResource; secrets: PipeSecrets } {
  const source = entry['source'] as Record<string, Block>;
  const family = Object.keys(source)[0] as PipeFamily;
  const secrets: PipeSecrets = {};
  const block = takeWriteOnly(family, source[family] ?? {}, secrets, fingerprint);
  redactUri(family, block, secrets, fingerprint);
  const now = isoTimestamp(nowMs);
  const { id, state, createdAt, updatedAt, source: _source, serviceId: _serviceId, ...rest } = entry;
  const pipe = {
    id: typeof id === 'string' ? id : newId('uuid', nowMs),
    serviceId,
    name: String(entry['name']),
    state: typeof state === 'string' ? state : 'Running',
    ...rest,
    source: { [family]: block },
    destination: (entry['destination'] as Block | undefined) ?? {},
    createdAt: typeof createdAt === 'string' ? createdAt : now,
    updatedAt: typeof updatedAt === 'string' ? updatedAt : typeof createdAt === 'string' ? createdAt : now,
  } as PipeResource;
  return { pipe, secrets };
}
