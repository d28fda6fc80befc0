/**
 * Reads a live pipe of any source family, tolerant where services vary (sparse pipes, settings
 * newer than ours, `null` for absent) and strict where a plan needs it: the id, the name and the
 * one source block. Write-only members are never returned; if a service sends them anyway they
 * are dropped.
 */
import { PIPE_WRITE_ONLY_SOURCE_MEMBERS } from '../../schema/pipe-create-only.js';
import { PIPE_FAMILIES, type PipeFamily } from '../../schema/pipe-sources.js';
import {
  idOf,
  join,
  listOf,
  object,
  optionalList,
  optionalString,
  requiredString,
  ShapeError,
  type Obj,
} from '../shared/read.js';
import type { Column, FieldMapping, LivePipe, LivePipeSettings, PipeSource } from './model.js';
import { isRecord } from '../../support/json.js';

export function toLivePipe(value: unknown, path: string): LivePipe {
  const raw = object(value, path);
  const pipe: LivePipe = {
    id: idOf(raw, path),
    name: requiredString(raw, 'name', path),
    source: toPipeSource(raw['source'], join(path, 'source')),
    destination: toDestination(raw['destination'], join(path, 'destination')),
  };
  const state = optionalString(raw, 'state', path);
  if (state !== undefined) pipe.state = state;
  const fieldMappings = optionalList(raw, 'fieldMappings', path, toFieldMapping);
  if (fieldMappings !== undefined) pipe.fieldMappings = fieldMappings;
  const settings = toSettings(raw['settings'], join(path, 'settings'));
  if (settings !== undefined) pipe.settings = settings;
  const scaling = toNumbers(raw['scaling'], join(path, 'scaling'));
  if (scaling !== undefined) pipe.scaling = scaling;
  const description = optionalString(raw, 'description', path);
  if (description !== undefined) pipe.description = description;
  const createdAt = optionalString(raw, 'createdAt', path);
  if (createdAt !== undefined) pipe.createdAt = createdAt;
  return pipe;
}

/** Scaling: numbers by name; anything else the service adds is left out. */
function toNumbers(value: unknown, path: string): Record<string, number> | undefined {
  if (value === undefined || value === null) return undefined;
  return Object.fromEntries(
    Object.entries(object(value, path)).filter((entry): entry is [string, number] => typeof entry[1] === 'number'),
  );
}

function toPipeSource(value: unknown, path: string): PipeSource {
  const raw = object(value, path);
  const kinds = PIPE_FAMILIES.filter((kind) => isRecord(raw[kind]));
  const kind: PipeFamily | undefined = kinds[0];
  if (kind === undefined) throw new ShapeError(path, `holds none of ${PIPE_FAMILIES.join(', ')}`);
  if (kinds.length > 1) throw new ShapeError(path, `holds more than one source kind (${kinds.join(', ')})`);
  const block = withoutWriteOnly(kind, object(raw[kind], join(path, kind)));
  if (block['tableMappings'] !== undefined)
    listOf(block['tableMappings'], join(join(path, kind), 'tableMappings'), checkTableMapping);
  return { kind, block };
}

/** The block without nulls and without what the service must never return (nested ones too: `schemaRegistry.credentials`). */
function withoutWriteOnly(family: PipeFamily, raw: Obj): Obj {
  const block: Obj = {};
  for (const [key, member] of Object.entries(raw)) if (member !== null && member !== undefined) block[key] = member;
  for (const path of PIPE_WRITE_ONLY_SOURCE_MEMBERS[family]) {
    const [head, ...rest] = path.split('.');
    if (head === undefined) continue;
    if (rest.length === 0) delete block[head];
    else {
      const inner = block[head];
      if (isRecord(inner)) block[head] = dropPath(inner, rest);
    }
  }
  return block;
}

function dropPath(value: Obj, path: readonly string[]): Obj {
  const [head, ...rest] = path;
  if (head === undefined) return value;
  const copy = { ...value };
  if (rest.length === 0) delete copy[head];
  else {
    const inner = copy[head];
    if (isRecord(inner)) copy[head] = dropPath(inner, rest);
  }
  return copy;
}

/** A mapping names its target table; each family its source (schema and table, database and collection, …). */
function checkTableMapping(value: unknown, path: string): void {
  requiredString(object(value, path), 'targetTable', path);
}

function toDestination(value: unknown, path: string): LivePipe['destination'] {
  if (value === undefined || value === null) return {};
  const destination: LivePipe['destination'] = {};
  for (const [key, member] of Object.entries(object(value, path))) {
    if (member === null || member === undefined) continue;
    destination[key] = key === 'columns' ? listOf(member, join(path, 'columns'), toColumn) : member;
  }
  return destination;
}

function toColumn(value: unknown, path: string): Column {
  const raw = object(value, path);
  return { name: requiredString(raw, 'name', path), type: requiredString(raw, 'type', path) };
}

function toFieldMapping(value: unknown, path: string): FieldMapping {
  const raw = object(value, path);
  return {
    sourceField: requiredString(raw, 'sourceField', path),
    destinationField: requiredString(raw, 'destinationField', path),
  };
}

function toSettings(value: unknown, path: string): LivePipeSettings | undefined {
  if (value === undefined || value === null) return undefined;
  const settings: LivePipeSettings = {};
  for (const [key, member] of Object.entries(object(value, path))) {
    if (member === null) continue;
    if (typeof member !== 'number' && typeof member !== 'boolean')
      throw new ShapeError(join(path, key), 'is not a number or boolean');
    settings[key] = member;
  }
  return settings;
}
