/**
 * The names the managed routes use for their product segments. The seed writes them neutrally
 * (`…/pipes`, `…/pipesCdcScaling`, `…/stack/dashboards`); the real service spells them with the
 * products' names (`clickpipes`, `clickstack`). The emulator can serve other names, so one test
 * runs a target against a server that spells them otherwise (docs/reference/config.md, `api: { paths }`).
 * Renaming happens on the route table, so stats and logs report the templates actually served.
 */
import { StacksyncError } from '../errors.js';
import type { Route } from './router.js';

export interface PathSegments {
  pipes: string;
  stack: string;
}

export const DEFAULT_PATH_SEGMENTS: PathSegments = { pipes: 'pipes', stack: 'stack' };

const SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._~-]*$/;
const GRAMMAR = 'pipes=NAME,stack=NAME';

function usage(detail: string): StacksyncError {
  return new StacksyncError('E_USAGE', `invalid path segments: ${detail} (grammar: ${GRAMMAR})`);
}

/** `pipes=clickpipes,stack=clickstack` → the segments it names (the CLI's `--paths`). */
export function parsePathSegments(text: string): Partial<PathSegments> {
  const segments: Partial<PathSegments> = {};
  for (const part of text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean)) {
    const [name = '', value] = part.split('=', 2).map((entry) => entry.trim());
    if (value === undefined) throw usage(`"${part}" is not name=value`);
    if (name !== 'pipes' && name !== 'stack') throw usage(`unknown segment "${name}"`);
    if (segments[name] !== undefined) throw usage(`${name} is given twice`);
    segments[name] = value;
  }
  return segments;
}

/** The segments to serve, checked: defaults filled in, each a plain path segment, the two distinct. */
export function resolvePathSegments(given: Partial<PathSegments> = {}): PathSegments {
  const segments = { ...DEFAULT_PATH_SEGMENTS, ...given };
  for (const [name, value] of Object.entries(segments)) {
    if (!SEGMENT.test(value))
      throw usage(`${name} must be one path segment of letters, digits, . _ ~ or -, got "${value}"`);
  }
  if (segments.pipes === segments.stack) throw usage(`pipes and stack must differ, both are "${segments.pipes}"`);
  return segments;
}

function renameSegment(segment: string, segments: PathSegments): string {
  if (segment === DEFAULT_PATH_SEGMENTS.pipes) return segments.pipes;
  if (segment === `${DEFAULT_PATH_SEGMENTS.pipes}CdcScaling`) return `${segments.pipes}CdcScaling`;
  if (segment === DEFAULT_PATH_SEGMENTS.stack) return segments.stack;
  return segment;
}

/** The managed routes with their product segments renamed; the self-hosted routes as they are. */
export function withPathSegments(routes: readonly Route[], segments: PathSegments): Route[] {
  return routes.map((route) =>
    route.variant === 'managed'
      ? {
          ...route,
          template: route.template
            .split('/')
            .map((segment) => renameSegment(segment, segments))
            .join('/'),
        }
      : route,
  );
}
