/** A loopback HTTP receiver for notification tests: records every request, answers as told. */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: unknown;
}

export interface Receiver {
  url: string;
  received: Received[];
  /** Status codes for the next requests, in order; 200 once they run out. */
  answer(...statuses: number[]): void;
  /** The next request is answered `status` (a 307, a 308) with `Location: location`. */
  redirect(status: number, location: string): void;
  /** Holds every answer until `release` is called (a receiver that hangs). */
  hold(): void;
  release(): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const statuses: { status: number; headers?: Record<string, string> }[] = [];
  let held: (() => void)[] | undefined;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      let json: unknown;
      try {
        json = JSON.parse(body);
      } catch {
        json = undefined;
      }
      received.push({ method: request.method ?? '', path: request.url ?? '', headers: request.headers, body, json });
      const next = statuses.shift() ?? { status: 200 };
      const reply = (): void =>
        void response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers }).end('{}');
      if (held) held.push(reply);
      else reply();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answer: (...codes) => void statuses.push(...codes.map((status) => ({ status }))),
    redirect: (status, location) => void statuses.push({ status, headers: { location } }),
    hold: () => void (held = []),
    release: () => {
      const waiting = held ?? [];
      held = undefined;
      for (const reply of waiting) reply();
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
