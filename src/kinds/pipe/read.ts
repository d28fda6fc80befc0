/**
 * Reads a live pipe, tolerant where services vary (sparse pipes, settings newer than ours, `null`
 * for absent) and strict where a plan needs it: the id, the name and the one source block.
 * Credentials are never returned; if a service sends them anyway they are dropped.
 */
import { PIPE_SOURCE_KINDS, type PipeSourceKind } from '../../schema/enums.js';
import { idOf, isObject, join, listOf, object, optionalList, optionalString, requiredString, ShapeError, type Obj } from '../kit/read.js';
import type { Column, FieldMapping, LivePipe, LivePipeSettings, PipeSource } from './model.js';

/** Members the service must never return; dropped if a service does. */
const WRITE_ONLY_MEMBERS = new Set(['credentials', 'accessKey']);

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
  return pipe;
}

function toPipeSource(value: unknown, path: string): PipeSource {
  const raw = object(value, path);
  const kinds = PIPE_SOURCE_KINDS.filter((kind) => isObject(raw[kind]));
  const kind: PipeSourceKind | undefined = kinds[0];
  if (kind === undefined) throw new ShapeError(path, `holds none of ${PIPE_SOURCE_KINDS.join(', ')}`);
  if (kinds.length > 1) throw new ShapeError(path, `holds more than one source kind (${kinds.join(', ')})`);
  const block: Obj = {};
  for (const [key, member] of Object.entries(raw[kind] as Obj)) {
    if (member !== null && member !== undefined && !WRITE_ONLY_MEMBERS.has(key)) block[key] = member;
  }
  if (block['tableMappings'] !== undefined) listOf(block['tableMappings'], join(join(path, kind), 'tableMappings'), checkTableMapping);
  return { kind, block };
}

function checkTableMapping(value: unknown, path: string): void {
  const raw = object(value, path);
  for (const key of ['sourceSchemaName', 'sourceTable', 'targetTable']) requiredString(raw, key, path);
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
  return { sourceField: requiredString(raw, 'sourceField', path), destinationField: requiredString(raw, 'destinationField', path) };
}

function toSettings(value: unknown, path: string): LivePipeSettings | undefined {
  if (value === undefined || value === null) return undefined;
  const settings: LivePipeSettings = {};
  for (const [key, member] of Object.entries(object(value, path))) {
    if (member === null) continue;
    if (typeof member !== 'number' && typeof member !== 'boolean') throw new ShapeError(join(path, key), 'is not a number or boolean');
    settings[key] = member;
  }
  return settings;
}
