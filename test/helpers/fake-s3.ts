/**
 * A fake S3 on loopback (node:http), speaking as much of the REST API as the AWS SDK uses for the
 * S3 state backend, path-style (`/bucket/key`): PutObject, GetObject, HeadObject, DeleteObject.
 * It enforces what the backend relies on, as S3 does:
 *
 * - every object has an ETag (the MD5 of its body, quoted);
 * - `If-Match` on a PUT or DELETE that does not match, or `If-None-Match: *` on a PUT of an object
 *   that exists, answers 412 PreconditionFailed (a conditional PUT on a missing object with
 *   `If-Match` gets 404 NoSuchKey, as S3 answers);
 * - a conditional write to a key while another conditional write to it is in flight answers 409
 *   ConditionalRequestConflict;
 * - a missing object is 404 NoSuchKey, a missing bucket 404 NoSuchBucket, as XML errors.
 *
 * `ignoreConditions` makes it accept every conditional write, as some S3-compatible stores do.
 * It checks no signature: any credentials pass.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

interface StoredObject {
  body: Buffer;
  etag: string;
  modified: Date;
}

export interface FakeS3 {
  /** `http://127.0.0.1:PORT`: the endpoint to give the SDK, with `forcePathStyle`. */
  readonly endpoint: string;
  readonly buckets: Map<string, Map<string, StoredObject>>;
  /** Accept conditional writes whatever their condition (a store that ignores them). */
  ignoreConditions: boolean;
  /** Every request as `METHOD /bucket/key [condition] → status`, for assertions on traffic. */
  readonly log: string[];
  /** Makes a bucket (empty). */
  createBucket(name: string): void;
  /** Whether a conditional write to `bucket/key` is in flight (its body still arriving). */
  busy(slot: string): boolean;
  /** One object's body as text, if it exists. */
  text(bucket: string, key: string): string | undefined;
  close(): Promise<void>;
}

export async function startFakeS3(options: { buckets?: string[] } = {}): Promise<FakeS3> {
  const buckets = new Map<string, Map<string, StoredObject>>();
  for (const name of options.buckets ?? []) buckets.set(name, new Map());
  const inFlight = new Set<string>();
  const log: string[] = [];
  const fake: FakeS3 = {
    endpoint: '',
    buckets,
    ignoreConditions: false,
    log,
    createBucket: (name) => void buckets.set(name, new Map()),
    busy: (slot) => inFlight.has(slot),
    text: (bucket, key) => buckets.get(bucket)?.get(key)?.body.toString('utf8'),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<number> => {
    const url = new URL(request.url ?? '/', 'http://fake');
    const [, bucketName = '', ...rest] = url.pathname.split('/');
    const key = decodeURIComponent(rest.join('/'));
    const method = request.method ?? 'GET';
    const bucket = buckets.get(decodeURIComponent(bucketName));
    const ifMatch = header(request, 'if-match');
    const ifNoneMatch = header(request, 'if-none-match');
    const conditional = ifMatch !== undefined || ifNoneMatch !== undefined;
    const slot = `${bucketName}/${key}`;
    const busy = conditional && (method === 'PUT' || method === 'DELETE') && inFlight.has(slot);
    if (conditional && !busy) inFlight.add(slot);
    try {
      const body = await readBody(request);
      if (!bucket) return error(response, 404, 'NoSuchBucket', 'The specified bucket does not exist');
      if (key === '') return error(response, 501, 'NotImplemented', 'Only object operations are implemented');
      if (busy)
        return error(
          response,
          409,
          'ConditionalRequestConflict',
          'A conflicting conditional operation is currently in progress against this resource. Please try again.',
        );
      const existing = bucket.get(key);
      const checkConditions = !fake.ignoreConditions;
      switch (method) {
        case 'GET':
        case 'HEAD': {
          if (!existing)
            return method === 'HEAD'
              ? empty(response, 404)
              : error(response, 404, 'NoSuchKey', 'The specified key does not exist.');
          response.writeHead(200, {
            ETag: existing.etag,
            'Last-Modified': existing.modified.toUTCString(),
            'Content-Length': existing.body.length,
            'Content-Type': 'application/octet-stream',
          });
          response.end(method === 'HEAD' ? undefined : existing.body);
          return 200;
        }
        case 'PUT': {
          if (checkConditions) {
            if (ifNoneMatch !== undefined && ifNoneMatch.trim() === '*' && existing)
              return error(
                response,
                412,
                'PreconditionFailed',
                'At least one of the pre-conditions you specified did not hold',
              );
            if (ifMatch !== undefined && !existing)
              return error(response, 404, 'NoSuchKey', 'The specified key does not exist.');
            if (ifMatch !== undefined && existing && ifMatch.trim() !== existing.etag)
              return error(
                response,
                412,
                'PreconditionFailed',
                'At least one of the pre-conditions you specified did not hold',
              );
          }
          const etag = `"${createHash('md5').update(body).digest('hex')}"`;
          bucket.set(key, { body, etag, modified: new Date() });
          response.writeHead(200, { ETag: etag, 'Content-Length': 0 });
          response.end();
          return 200;
        }
        case 'DELETE': {
          if (checkConditions && ifMatch !== undefined) {
            if (!existing) return error(response, 404, 'NoSuchKey', 'The specified key does not exist.');
            if (ifMatch.trim() !== existing.etag)
              return error(
                response,
                412,
                'PreconditionFailed',
                'At least one of the pre-conditions you specified did not hold',
              );
          }
          bucket.delete(key);
          return empty(response, 204);
        }
        default:
          return error(response, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
      }
    } finally {
      if (conditional && !busy) inFlight.delete(slot);
    }
  };

  const server: Server = createServer((request, response) => {
    const what = `${request.method} ${request.url?.split('?')[0]}${header(request, 'if-match') ? ' If-Match' : ''}${header(request, 'if-none-match') ? ' If-None-Match' : ''}`;
    handle(request, response).then(
      (status) => log.push(`${what} → ${status}`),
      () => {
        if (!response.headersSent) error(response, 500, 'InternalError', 'fake S3 failed');
        else response.destroy();
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  (fake as { endpoint: string }).endpoint = `http://127.0.0.1:${port}`;
  return fake;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function empty(response: ServerResponse, status: number): number {
  response.writeHead(status, { 'Content-Length': 0 });
  response.end();
  return status;
}

function error(response: ServerResponse, status: number, code: string, message: string): number {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>fake</RequestId></Error>`;
  response.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) });
  response.end(xml);
  return status;
}
