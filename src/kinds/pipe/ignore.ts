/** Ignore rules of a pipe (see `kit/ignore.ts`): the manifest's paths name the spec's shape. */
import { keepLive } from '../shared/ignore.js';
import type { Column, DesiredPipe, FieldMapping, LivePipe } from './model.js';

/** A pipe in its manifest's shape, which the ignore paths name: the manifest's, or live's, to take values from. */
interface PipeView {
  name?: string;
  /** The source block under its family (`{kafka: {…}}`). */
  source?: Record<string, Record<string, unknown>>;
  destination?: { columns?: Column[] };
  fieldMappings?: FieldMapping[] | undefined;
  settings?: Record<string, number | boolean> | undefined;
}

/**
 * A pipe manifest with its ignored fields taken from live. The manifest's paths name the spec's
 * shape (`source.kafka.topic`, `destination.columns`), which the desired model splits up, so
 * the rules apply to that shape and the result is split again.
 */
export function ignorePipeFields<D extends DesiredPipe>(desired: D, live: LivePipe): D {
  const paths = desired.policy?.ignore;
  if (!paths || paths.length === 0) return desired;
  const source = desired.source;
  const view: PipeView = {
    ...(desired.name !== undefined ? { name: desired.name } : {}),
    ...(source ? { source: { [source.kind]: source.block } } : {}),
    ...(desired.columns ? { destination: { columns: desired.columns } } : {}),
    ...(desired.fieldMappings ? { fieldMappings: desired.fieldMappings } : {}),
    ...(desired.settings ? { settings: desired.settings } : {}),
  };
  const liveView: PipeView = {
    name: live.name,
    source: { [live.source.kind]: live.source.block },
    destination: live.destination,
    fieldMappings: live.fieldMappings,
    settings: live.settings,
  };
  const kept = keepLive(view, liveView, paths);
  const next: D = { ...desired };
  if (kept.name !== undefined) next.name = kept.name;
  if (source && kept.source) next.source = { ...source, block: kept.source[source.kind] ?? source.block };
  if (kept.destination?.columns) next.columns = kept.destination.columns;
  if (kept.fieldMappings) next.fieldMappings = kept.fieldMappings;
  if (kept.settings) next.settings = kept.settings;
  return next;
}
