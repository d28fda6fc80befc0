/** The variants' success envelopes. */
import { object, ShapeError } from '../kinds/shared/read.js';

/** Managed success envelope `{status, requestId, result}` → `result`. */
export function unwrapManaged(body: unknown): unknown {
  const envelope = object(body, '');
  const status = envelope['status'];
  if (status !== undefined && (typeof status !== 'number' || status < 200 || status >= 300)) {
    throw new ShapeError('status', 'is not a success status');
  }
  if (!('result' in envelope)) throw new ShapeError('result', 'is missing');
  return envelope['result'];
}

/** Self-hosted success envelope `{data}` → `data`. */
export function unwrapData(body: unknown): unknown {
  const envelope = object(body, '');
  if (!('data' in envelope)) throw new ShapeError('data', 'is missing');
  return envelope['data'];
}
