/**
 * The route table: `{ method, template, handle }` entries matched segment by segment. Templates
 * (`/api/v2/alerts/{id}`) are what stats and logs report, never raw paths with ids.
 */
import type { Variant } from '../model/kinds.js';
import type { Principal } from './auth.js';
import type { Reply } from './envelope.js';
import type { Store } from './store.js';

export interface RequestContext {
  params: Record<string, string>;
  query: URLSearchParams;
  /** Parsed JSON body of POST/PUT/PATCH; undefined otherwise. */
  body: unknown;
  /** Who sent it: credentials are checked before any route runs. */
  principal: Principal;
  requestId: string;
  store: Store;
}

export interface Route {
  method: string;
  template: string;
  variant: Variant;
  handle(context: RequestContext): Reply;
}

interface Compiled {
  route: Route;
  segments: string[];
}

export type Match =
  | { kind: 'route'; route: Route; params: Record<string, string> }
  | { kind: 'method'; template: string; allowed: string[] }
  | { kind: 'none' };

const isParam = (segment: string): boolean => segment.startsWith('{') && segment.endsWith('}');

export class Router {
  private readonly compiled: Compiled[];

  constructor(routes: readonly Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.template.split('/') }));
  }

  match(method: string, path: string): Match {
    const segments = path.split('/');
    const allowed: string[] = [];
    let template = '';
    for (const { route, segments: pattern } of this.compiled) {
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { kind: 'route', route, params };
      allowed.push(route.method);
      template = route.template;
    }
    return allowed.length ? { kind: 'method', template, allowed } : { kind: 'none' };
  }
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  if (pattern.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let index = 0; index < pattern.length; index++) {
    const expected = pattern[index] ?? '';
    const actual = segments[index] ?? '';
    if (isParam(expected)) {
      if (!actual) return undefined;
      const value = safeDecode(actual);
      if (value === undefined) return undefined;
      params[expected.slice(1, -1)] = value;
    } else if (expected !== actual) {
      return undefined;
    }
  }
  return params;
}

function safeDecode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}
