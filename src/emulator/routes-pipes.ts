/**
 * The pipe routes of the managed variant. Under the seed profile: list, get, create, PATCH and
 * delete, as seed 4.1 and docs/reference/api-behaviour.md ("Managed variant") describe them. Under the current profile,
 * the whole lifecycle of the real service (docs/reference/api-behaviour.md, "The real services today: the whole
 * lifecycle"): those, plus the state commands, settings, scaling and the service's CDC scaling;
 * every route first applies the state changes that have come due. Both rename the engine settings
 * at their edge when another prefix is served (`settings-prefix.ts`).
 */
import { advancePipes, DEFAULT_PIPE_TRANSITION_MS, type PipeBehaviour } from './current/pipe-lifecycle.js';
import * as current from './current/pipe.js';
import * as cdcScaling from './current/pipe-cdc-scaling.js';
import { managedDone, type Reply } from './envelope.js';
import type { PipeResource, Profile, ServiceRecord } from './model.js';
import { createPipe, deletePipe, fingerprintWith, patchPipe, requirePipe, type PipeRules } from './pipes.js';
import type { RequestContext, Route } from './router.js';
import { settingsSpelling, type SettingsSpelling } from './settings-prefix.js';
import { DEFAULT_SETTINGS_PREFIX, isPipeFamily } from '../schema/pipe-sources.js';
import { PIPE_SOURCE_KINDS } from '../kinds/pipe/wire.js';

/** How the pipe routes behave beyond the profile: the lifecycle's pace and the settings' spelling. */
export interface PipeRouteOptions {
  behaviour: PipeBehaviour;
  settingsPrefix: string;
}

export const DEFAULT_PIPE_ROUTE_OPTIONS: PipeRouteOptions = {
  behaviour: { transitionMs: DEFAULT_PIPE_TRANSITION_MS, failShare: 0, random: Math.random },
  settingsPrefix: DEFAULT_SETTINGS_PREFIX,
};

type Handler = (context: RequestContext, service: ServiceRecord) => unknown;
type RawHandler = (context: RequestContext, service: ServiceRecord) => Reply;

/** The managed variant's route builders: each resolves the organization and service before the handler runs. */
export interface ServiceRoutes {
  route(profile: Profile, method: string, suffix: string, handler: Handler): Route;
  rawRoute(profile: Profile, method: string, suffix: string, handler: RawHandler): Route;
}

const param = (context: RequestContext, name: string): string => context.params[name] ?? '';
const pipeId = (context: RequestContext): string => param(context, 'pipeId');

/** Served spelling at the edge: what comes in is renamed before the rules see it, what goes out after. */
interface Edge {
  pipeOut(pipe: PipeResource): PipeResource;
  settingsOut<T>(settings: T): T;
  bodyIn(body: unknown): unknown;
  settingsIn(body: unknown): unknown;
  run<T>(act: () => T): T;
}

function edgeOf(spelling: SettingsSpelling | undefined): Edge {
  if (!spelling)
    return {
      pipeOut: (pipe) => pipe,
      settingsOut: (settings) => settings,
      bodyIn: (body) => body,
      settingsIn: (body) => body,
      run: (act) => act(),
    };
  return {
    pipeOut: (pipe) => (pipe.settings ? { ...pipe, settings: spelling.out(pipe.settings) } : pipe),
    settingsOut: (settings) => spelling.out(settings),
    bodyIn: (body) =>
      body !== null && typeof body === 'object' && 'settings' in body
        ? { ...body, settings: spelling.in((body as { settings: unknown }).settings) }
        : body,
    settingsIn: (body) => spelling.in(body),
    run(act) {
      try {
        return act();
      } catch (error) {
        throw spelling.error(error);
      }
    },
  };
}

/**
 * The seed's pipe routes. Beside the seed's own create (which answers `Provisioning` and stays so),
 * a create in the shape the real service takes today (a family block with its `type` or `format`,
 * or a family the seed does not know) is taken by the current profile's rules and settles as
 * there, so manifests born in Git work against the seed profile too (`npm start`). The state,
 * scaling and CDC routes stay the current profile's only.
 */
function seedPipeRoutes(build: ServiceRoutes, edge: Edge, options: PipeRouteOptions): Route[] {
  const { route } = build;
  const rules = (context: RequestContext): PipeRules => ({ fingerprint: fingerprintWith(context.store.credentials) });
  const currentRules = (context: RequestContext): current.CurrentPipeRules => ({
    fingerprint: fingerprintWith(context.store.credentials),
    behaviour: options.behaviour,
  });
  // Only services that took a create of today's shape have a lifecycle to advance.
  const advance = (service: ServiceRecord, now: number): void => {
    if (service.pipeRuntime) advancePipes(service, now);
  };
  const look = <T>(context: RequestContext, service: ServiceRecord, act: () => T): T => {
    advance(service, context.store.now());
    return act();
  };
  const write = <T>(context: RequestContext, service: ServiceRecord, change: (nowMs: number) => T): T =>
    edge.run(() =>
      context.store.mutate(() => {
        const now = context.store.now();
        advance(service, now);
        return change(now);
      }),
    );
  return [
    route('seed', 'GET', '/pipes', (context, service) =>
      look(context, service, () => [...service.pipes.values()].map(edge.pipeOut)),
    ),
    route('seed', 'POST', '/pipes', (context, service) => {
      const body = edge.bodyIn(context.body);
      if (isCurrentShaped(body))
        return edge.pipeOut(
          write(context, service, (now) => current.createCurrentPipe(service, body, now, currentRules(context))),
        );
      return edge.pipeOut(write(context, service, (now) => createPipe(service, body, now, rules(context))));
    }),
    route('seed', 'GET', '/pipes/{pipeId}', (context, service) =>
      look(context, service, () => edge.pipeOut(requirePipe(service, pipeId(context)))),
    ),
    route('seed', 'PATCH', '/pipes/{pipeId}', (context, service) => {
      const body = edge.bodyIn(context.body);
      return edge.pipeOut(
        write(context, service, (now) => patchPipe(service, pipeId(context), body, now, rules(context))),
      );
    }),
    route('seed', 'DELETE', '/pipes/{pipeId}', (context, service) =>
      write(context, service, () => (deletePipe(service, pipeId(context)), {})),
    ),
  ];
}

/** A create body in the real service's shape of today: a family the seed lacks, or a block naming its `type` or `format`. */
function isCurrentShaped(body: unknown): boolean {
  const source = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)['source'] : undefined;
  if (source === null || typeof source !== 'object') return false;
  return Object.entries(source).some(([family, block]) => {
    if (!isPipeFamily(family)) return false;
    if (!(PIPE_SOURCE_KINDS as readonly string[]).includes(family)) return true;
    return block !== null && typeof block === 'object' && ('type' in block || 'format' in block);
  });
}

function currentPipeRoutes(build: ServiceRoutes, edge: Edge, options: PipeRouteOptions): Route[] {
  const { route, rawRoute } = build;
  const rules = (context: RequestContext): current.CurrentPipeRules => ({
    fingerprint: fingerprintWith(context.store.credentials),
    behaviour: options.behaviour,
  });
  /** Every route sees the pipes as they are now: the state changes that came due are applied first. */
  const read = <T>(context: RequestContext, service: ServiceRecord, look: (nowMs: number) => T): T => {
    const now = context.store.now();
    advancePipes(service, now);
    return edge.run(() => look(now));
  };
  const write = <T>(context: RequestContext, service: ServiceRecord, change: (nowMs: number) => T): T =>
    context.store.mutate(() => read(context, service, change));
  return [
    route('current', 'GET', '/pipes', (context, service) =>
      read(context, service, () => [...service.pipes.values()].map(edge.pipeOut)),
    ),
    route('current', 'POST', '/pipes', (context, service) => {
      const body = edge.bodyIn(context.body);
      return edge.pipeOut(
        write(context, service, (now) => current.createCurrentPipe(service, body, now, rules(context))),
      );
    }),
    route('current', 'GET', '/pipes/{pipeId}', (context, service) =>
      read(context, service, () => edge.pipeOut(requirePipe(service, pipeId(context)))),
    ),
    route('current', 'PATCH', '/pipes/{pipeId}', (context, service) => {
      const body = edge.bodyIn(context.body);
      return edge.pipeOut(
        write(context, service, (now) => current.patchCurrentPipe(service, pipeId(context), body, now, rules(context))),
      );
    }),
    rawRoute('current', 'DELETE', '/pipes/{pipeId}', (context, service) => {
      write(context, service, () => current.deleteCurrentPipe(service, pipeId(context)));
      return managedDone(context.requestId);
    }),
    route('current', 'PATCH', '/pipes/{pipeId}/state', (context, service) =>
      edge.pipeOut(
        write(context, service, (now) =>
          current.changeCurrentPipeState(service, pipeId(context), context.body, now, rules(context)),
        ),
      ),
    ),
    route('current', 'GET', '/pipes/{pipeId}/settings', (context, service) =>
      read(context, service, () => edge.settingsOut(current.currentPipeSettings(service, pipeId(context)))),
    ),
    route('current', 'PUT', '/pipes/{pipeId}/settings', (context, service) => {
      const body = edge.settingsIn(context.body);
      return edge.settingsOut(
        write(context, service, (now) => current.putCurrentPipeSettings(service, pipeId(context), body, now)),
      );
    }),
    route('current', 'PATCH', '/pipes/{pipeId}/scaling', (context, service) =>
      edge.pipeOut(
        write(context, service, (now) => current.scaleCurrentPipe(service, pipeId(context), context.body, now)),
      ),
    ),
    route('current', 'GET', '/pipesCdcScaling', (context, service) =>
      read(context, service, () => cdcScaling.currentCdcScaling(service)),
    ),
    route('current', 'PATCH', '/pipesCdcScaling', (context, service) =>
      write(context, service, (now) => cdcScaling.patchCdcScaling(service, context.body, now, rules(context))),
    ),
  ];
}

/** The pipe routes of a profile. */
export function pipeRoutes(
  profile: Profile,
  build: ServiceRoutes,
  options: PipeRouteOptions = DEFAULT_PIPE_ROUTE_OPTIONS,
): Route[] {
  const edge = edgeOf(settingsSpelling(options.settingsPrefix, profile));
  return profile === 'current' ? currentPipeRoutes(build, edge, options) : seedPipeRoutes(build, edge, options);
}
