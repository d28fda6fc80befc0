/**
 * Pipes born in Git for end-to-end tests: a manifest for any source family and flavour, made from
 * the emulator's valid create bodies (`test/emulator/pipe-fixtures.ts`) with every write-only
 * member turned into a `fromEnv` secret reference, and reads of the live pipes over loopback.
 */
import { stringify } from 'yaml';
import { DEFAULT_SEED_IDS } from '../../src/emulator/index.js';
import { PIPE_WRITE_ONLY_SOURCE_MEMBERS } from '../../src/schema/pipe-create-only.js';
import type { PipeFamily } from '../../src/schema/pipe-sources.js';
import { pipeBody, type Body } from '../emulator/pipe-fixtures.js';

export interface BornPipe {
  /** `metadata.name`. */
  key: string;
  /** API name; default the key. */
  name?: string;
  family: PipeFamily;
  /** The family block; default the fixtures' valid one. */
  block?: Body;
  target?: string;
  /** Spec members laid over the create body (`state`, `scaling`, `settings`, …). */
  spec?: Body;
  annotations?: Record<string, string>;
}

/** The manifest text of a pipe born in Git, and the environment its secret references read. */
export function bornPipeYaml(pipe: BornPipe): { yaml: string; env: Record<string, string> } {
  const body = pipeBody(pipe.family, pipe.name ?? pipe.key, pipe.block ?? undefined);
  const env: Record<string, string> = {};
  const block = body['source'][pipe.family] as Body;
  for (const member of PIPE_WRITE_ONLY_SOURCE_MEMBERS[pipe.family])
    refs(block, member.split('.'), `${pipe.key}_${member}`, env);
  const metadata: Body = {
    name: pipe.key,
    ...(pipe.target ? { target: pipe.target } : {}),
    ...(pipe.annotations ? { annotations: pipe.annotations } : {}),
  };
  const document = { apiVersion: 'stacksync/v1', kind: 'Pipe', metadata, spec: { ...body, ...pipe.spec } };
  return { yaml: stringify(document), env };
}

/** Many pipes in one multi-document text, with the environment of all their secrets. */
export function bornPipesYaml(pipes: readonly BornPipe[]): { yaml: string; env: Record<string, string> } {
  const parts = pipes.map(bornPipeYaml);
  return {
    yaml: parts.map((part) => part.yaml).join('---\n'),
    env: Object.assign({}, ...parts.map((part) => part.env)),
  };
}

/** Replaces the write-only member at `path` with `fromEnv` references (one per field of an object), its values put in `env`. */
function refs(block: Body, path: string[], prefix: string, env: Record<string, string>): void {
  const [head, ...rest] = path;
  if (head === undefined || block[head] === undefined) return;
  if (rest.length > 0) {
    refs(block[head] as Body, rest, prefix, env);
    return;
  }
  const value = block[head];
  const name = (field: string): string => `SECRET_${`${prefix}_${field}`.replace(/[^A-Za-z0-9]/g, '_').toUpperCase()}`;
  if (typeof value === 'string') {
    env[name('value')] = value;
    block[head] = { fromEnv: name('value') };
    return;
  }
  block[head] = Object.fromEntries(
    Object.entries(value as Body).map(([field, secret]) => {
      env[name(field)] = String(secret);
      return [field, { fromEnv: name(field) }];
    }),
  );
}

export interface LivePipeView {
  id: string;
  name: string;
  state: string;
  source: Record<string, Body>;
  scaling?: Record<string, number>;
  destination: Body;
}

/**
 * The live pipes of the default service, as stored (what a GET answers), read from the emulator's
 * dump: no credentials, no faults, no rate limit, and pending state changes already applied by the
 * emulator's last request.
 */
export async function livePipes(url: string): Promise<LivePipeView[]> {
  const ids = DEFAULT_SEED_IDS;
  // A GET first, so the lifecycle's due states are applied before the dump is taken.
  const auth = Buffer.from(`${ids.keyId}:${ids.keySecret}`).toString('base64');
  // Under injected faults a request may be refused before it is handled: try until one is.
  for (let attempt = 0; attempt < 20; attempt++) {
    const status = await fetch(`${url}/v1/organizations/${ids.organizationId}/services/${ids.serviceId}/pipes`, {
      headers: { authorization: `Basic ${auth}` },
    })
      .then(async (response) => (await response.arrayBuffer(), response.status))
      .catch(() => 0);
    if (status === 200) break;
  }
  const dump = (await (await fetch(`${url}/_emulator/dump`)).json()) as {
    organizations: { id: string; services: { id: string; pipes: LivePipeView[] }[] }[];
  };
  const service = dump.organizations
    .find((org) => org.id === ids.organizationId)
    ?.services.find((each) => each.id === ids.serviceId);
  return service?.pipes ?? [];
}

/** The one live pipe of that name; fails when there is none or more than one. */
export async function livePipeNamed(url: string, name: string): Promise<LivePipeView> {
  const found = (await livePipes(url)).filter((pipe) => pipe.name === name);
  if (found.length !== 1) throw new Error(`${found.length} live pipes are named ${name}`);
  return found[0] as LivePipeView;
}
