/** Request body reading and reply writing on plain `node:http`. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { ApiError } from './errors.js';
import type { Reply } from './envelope.js';

/** The request body limit (10 MB); larger bodies answer 413. */
export const BODY_LIMIT_BYTES = 10 * 1024 * 1024;

/** A body read to its end, or `gone` when the client hung up first (not an error of the server). */
export type BodyRead = { kind: 'body'; bytes: Buffer } | { kind: 'gone' };

/**
 * The whole body, or a 413 as soon as it passes `limit`. The rest of an oversized body is read
 * and dropped (not buffered), so the connection stays usable for the answer.
 */
export function readBody(request: IncomingMessage, limit: number): Promise<BodyRead> {
  const declared = Number(request.headers['content-length'] ?? 0);
  if (declared > limit) return Promise.reject(tooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      request.off('data', onData);
      request.resume();
      reject(tooLarge(limit));
    };
    request.on('data', onData);
    request.once('end', () => resolve({ kind: 'body', bytes: Buffer.concat(chunks) }));
    // A reset or an early close is the client leaving; the promise settles once either way.
    request.once('error', () => resolve({ kind: 'gone' }));
    request.once('close', () => request.complete || resolve({ kind: 'gone' }));
  });
}

/**
 * Drops a body that will not be read (the request was answered from its headers), counting what
 * arrives: past `limit` the connection is cut, so a client cannot stream into a refusal forever.
 */
export function discardBody(request: IncomingMessage, limit: number): void {
  if (request.complete || request.readableEnded) return;
  let size = 0;
  request.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > limit) request.socket.destroy();
  });
  request.on('error', () => {});
  request.resume();
}

function tooLarge(limit: number): ApiError {
  return new ApiError('payload_too_large', `request body exceeds ${limit} bytes`);
}

/** JSON of a request body; an empty or non-JSON body is a 400. */
export function parseJsonBody(raw: Buffer): unknown {
  if (raw.length === 0) throw new ApiError('bad_request', 'a JSON request body is required');
  try {
    return JSON.parse(raw.toString('utf8')) as unknown;
  } catch (error) {
    throw new ApiError('bad_request', `request body is not valid JSON: ${(error as Error).message}`);
  }
}

export function sendReply(response: ServerResponse, reply: Reply): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(reply.status, {
    ...reply.headers,
    'Content-Type': reply.contentType,
    'Content-Length': Buffer.byteLength(reply.body),
  });
  response.end(reply.body);
}

/** Cuts the connection with a TCP reset, as a failing load balancer would. */
export function resetConnection(request: IncomingMessage): void {
  const socket = request.socket;
  if (typeof socket.resetAndDestroy === 'function') socket.resetAndDestroy();
  else socket.destroy();
}
