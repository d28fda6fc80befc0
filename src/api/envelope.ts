/**
 * The variants' success envelopes, and the lists a manifest names things in (sources, webhooks):
 * what the adapters read that is not a kind of its own.
 */
import type { DataSource, Webhook } from '../model/resources.js';
import { idOf, object, optionalString, requiredString, ShapeError } from '../kinds/kit/read.js';

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

export function toDataSource(value: unknown, path: string): DataSource {
  const raw = object(value, path);
  return { id: idOf(raw, path), name: requiredString(raw, 'name', path), kind: requiredString(raw, 'kind', path) };
}

export function toWebhook(value: unknown, path: string): Webhook {
  const raw = object(value, path);
  const webhook: Webhook = { id: idOf(raw, path), name: requiredString(raw, 'name', path) };
  const service = optionalString(raw, 'service', path);
  if (service !== undefined) webhook.service = service;
  return webhook;
}
