/** The status page as an HTTP answer: the HTML, and headers that keep it to itself. */
import type { StatusDocument } from '../status.js';
import { PAGE_CSP } from './assets.js';
import { filterOf, renderStatusPage } from './render.js';

export interface PageReply {
  status: number;
  body: string;
  type: string;
  headers: Record<string, string>;
}

/** The page for `GET /?target=…&kind=…&status=…`. */
export function statusPageReply(document: StatusDocument, url: URL): PageReply {
  return {
    status: 200,
    body: renderStatusPage(document, filterOf(url.searchParams)),
    type: 'text/html; charset=utf-8',
    headers: {
      'content-security-policy': PAGE_CSP,
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'x-frame-options': 'DENY',
    },
  };
}
