/**
 * A parse worker (see `parser.ts`): parses manifest files and finds node positions, off the main
 * thread. Holds no state between requests.
 */
import { parentPort } from 'node:worker_threads';
import { locatePointers, parseManifestBytes } from './parse.js';
import type { WorkerReply, WorkerRequest } from './parser.js';

parentPort?.on('message', (request: WorkerRequest) => {
  let reply: WorkerReply;
  try {
    const result =
      request.op === 'parse'
        ? request.files.map((bytes) => parseManifestBytes(bytes, request.limits))
        : locatePointers(request.bytes, request.requests);
    reply = { id: request.id, result };
  } catch (error) {
    reply = { id: request.id, error: error instanceof Error ? error.message : String(error) };
  }
  parentPort?.postMessage(reply);
});
