/**
 * Saved plans (`plan --out FILE`, `apply --plan FILE`; Terraform's `plan -out` is the model): the
 * JSON plan a reviewer saw, plus a fingerprint of what it was computed from. `apply --plan`
 * computes the plan again and applies it only when the fingerprints agree, so what runs is what
 * was reviewed. Pure: the digests are made by the caller (reconcile/plan-fingerprint.ts); this module
 * owns the file format, reading it back, and telling what differs.
 *
 * The file holds no secret value: the plan shows them as `(sensitive)`, and the fingerprint holds
 * only HMACs under the state's key (the same key the state file's secret hashes use), or, for a
 * plan made before the state had a key, under a key derived for the plan (reconcile/plan-key.ts).
 * A seal, an HMAC under the same key over everything else in the file, makes any edit of it (a
 * member changed, a planned write dropped, the file cut short) a refusal rather than a smaller plan.
 */
import { StacksyncError } from '../errors.js';
import { ACTIONS, type Action, type Plan } from '../model/plan.js';
import { canonicalJson } from '../support/digest.js';
import { planToJson } from './render-json.js';
import { isRecord } from '../support/json.js';

export const SAVED_PLAN_FORMAT = 'stacksync-saved-plan';
/** Bumped when the fingerprint changes meaning; a file of another version is refused. 2: the seal, and `keySalt`. */
export const SAVED_PLAN_VERSION = 2;

/** What the seal's HMAC is taken of, before the file's canonical JSON: no other HMAC input starts so. */
const SEAL_INPUT = 'stacksync: saved plan seal\n';

/** What one planned write was computed against, and what it sends. */
export interface ChangeFingerprint {
  action: Action;
  /** Live id the change writes to; absent for a create. */
  id?: string;
  /** Digest of the live resource planned against (status fields the server moves on its own left out); absent: none. */
  live?: string;
  /** The inventory id stacksync had recorded for it; absent: none. */
  owned?: string;
  /** HMAC of the API writes (bodies included): equal only when apply would send the very same requests. */
  writes: string;
  /** Changes of the plan that must succeed first. */
  dependsOn: string[];
  /** Secret path → HMAC of the value sent (the state file's kind of hash). */
  secrets?: Record<string, string>;
}

export interface PlanFingerprint {
  /** Version of stacksync that made the plan: another one may plan differently. */
  stacksync: string;
  /** A keyed digest of a constant: tells whether apply holds the HMAC key the plan was made with. */
  keyCheck: string;
  /**
   * Present when the plan was made before the state had a key: the salt (hex) of the key derived
   * for it from the planned targets' credentials, which the first apply makes the state key.
   */
  keySalt?: string;
  /** What the plan was asked for; `apply --plan` asks the same. */
  request: { targets: string[]; prune: boolean; adopt: boolean };
  /** Target name → digest of where it points (variant, base URL, organization, service). */
  targets: Record<string, string>;
  /** `target/Kind/name` → digest of the manifest's spec, for every manifest of the planned targets. */
  manifests: Record<string, string>;
  /** Manifest file → digest of its load problems: a broken file must still be broken the same way. */
  problems: Record<string, string>;
  /** `target/Kind/name` → every planned write (create, update, delete, adopt). */
  changes: Record<string, ChangeFingerprint>;
}

export interface SavedPlan {
  /** The plan as `plan --output json` prints it. */
  plan: Record<string, unknown>;
  createdAt: string;
  fingerprint: PlanFingerprint;
  /** The file's seal, and what it is the HMAC of (see {@link sealMatches}). */
  seal: string;
  sealed: string;
}

/** An HMAC under the plan's key (the state's `SecretHasher`). */
export type PlanHasher = (value: string) => string;

/** Masks the secrets of the run in a JSON-like value, member names too (support/redaction.ts). */
export type Mask = <T>(value: T) => T;

/**
 * The fingerprint as a saved plan holds it: masked like the plan (a resource named as a secret
 * is keyed by the mask), but for the request, which apply asks again as it is. `apply --plan`
 * masks the fingerprint it computes the same way before comparing.
 */
export function maskedFingerprint(fingerprint: PlanFingerprint, mask: Mask): PlanFingerprint {
  return { ...mask(fingerprint), request: fingerprint.request };
}

/** The text of a saved plan file: the JSON plan with the fingerprint under `saved`, sealed under `hasher`. */
export function renderSavedPlan(
  plan: Plan,
  fingerprint: PlanFingerprint,
  createdAt: string,
  hasher: PlanHasher,
  mask: Mask = (value) => value,
): string {
  const document = {
    ...mask(planToJson(plan)),
    saved: {
      format: SAVED_PLAN_FORMAT,
      formatVersion: SAVED_PLAN_VERSION,
      createdAt,
      ...maskedFingerprint(fingerprint, mask),
    },
  };
  const seal = hasher(`${SEAL_INPUT}${canonicalJson(document)}`);
  return `${JSON.stringify({ ...document, saved: { ...document.saved, seal } }, null, 2)}\n`;
}

/** Whether the file is as `plan` sealed it, under the key `hasher` holds (check the key first: another key fails this too). */
export function sealMatches(saved: SavedPlan, hasher: PlanHasher): boolean {
  return hasher(`${SEAL_INPUT}${saved.sealed}`) === saved.seal;
}

/** `E_PLAN_INVALID`: the file is not as `plan` wrote it. */
export function editedPlan(file: string): StacksyncError {
  return invalid(file, 'was changed after plan wrote it (its seal does not match its content): run plan --out again');
}

/** Reads a saved plan file's text; `E_PLAN_INVALID` naming `file` when it is not one this stacksync reads. */
export function parseSavedPlan(text: string, file: string): SavedPlan {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw invalid(file, `is not JSON (${(error as Error).message})`);
  }
  if (!isRecord(data) || !isRecord(data['saved']))
    throw invalid(file, 'is not a saved plan (no "saved" member); write one with plan --out');
  const { saved, ...plan } = data;
  if (saved['format'] !== SAVED_PLAN_FORMAT)
    throw invalid(file, `is not a saved plan (format ${JSON.stringify(saved['format'])})`);
  if (saved['formatVersion'] !== SAVED_PLAN_VERSION) {
    throw invalid(
      file,
      `has format version ${JSON.stringify(saved['formatVersion'])}; this stacksync reads version ${SAVED_PLAN_VERSION}: run plan --out again`,
    );
  }
  const problem = shapeProblem(saved);
  if (problem) throw invalid(file, `is damaged: ${problem}`);
  const { format: _format, formatVersion: _version, createdAt, seal, ...fingerprint } = saved;
  const sealed = canonicalJson({ ...data, saved: { ...saved, seal: undefined } });
  return {
    plan,
    createdAt: createdAt as string,
    fingerprint: fingerprint as unknown as PlanFingerprint,
    seal: seal as string,
    sealed,
  };
}

function invalid(file: string, what: string): StacksyncError {
  return new StacksyncError('E_PLAN_INVALID', `saved plan ${file} ${what}`, { subject: file, location: { file } });
}

/** What is wrong with the shape of `saved`, or undefined. */
function shapeProblem(saved: Record<string, unknown>): string | undefined {
  const request = saved['request'];
  if (
    typeof saved['createdAt'] !== 'string' ||
    typeof saved['stacksync'] !== 'string' ||
    typeof saved['keyCheck'] !== 'string'
  )
    return 'createdAt, stacksync or keyCheck is missing';
  if (typeof saved['seal'] !== 'string') return 'seal is missing';
  if (
    saved['keySalt'] !== undefined &&
    (typeof saved['keySalt'] !== 'string' || !/^[0-9a-f]{32}$/.test(saved['keySalt']))
  )
    return 'keySalt is not 16 bytes of hex';
  if (
    !isRecord(request) ||
    !isStringArray(request['targets']) ||
    typeof request['prune'] !== 'boolean' ||
    typeof request['adopt'] !== 'boolean'
  )
    return 'request is not {targets, prune, adopt}';
  for (const member of ['targets', 'manifests', 'problems'] as const)
    if (!isStringRecord(saved[member])) return `${member} is not a map of digests`;
  const changes = saved['changes'];
  if (!isRecord(changes)) return 'changes is not a map';
  for (const [ref, change] of Object.entries(changes))
    if (!isChangeFingerprint(change)) return `changes["${ref}"] is not a planned change`;
  return undefined;
}

function isChangeFingerprint(value: unknown): value is ChangeFingerprint {
  if (
    !isRecord(value) ||
    !ACTIONS.includes(value['action'] as Action) ||
    typeof value['writes'] !== 'string' ||
    !isStringArray(value['dependsOn'])
  )
    return false;
  const optional = ['id', 'live', 'owned'].every(
    (member) => value[member] === undefined || typeof value[member] === 'string',
  );
  return optional && (value['secrets'] === undefined || isStringRecord(value['secrets']));
}

// ---------------------------------------------------------------- what differs

/** One reason a saved plan cannot be applied as it is: what it is about, and what changed. */
export interface StaleReason {
  subject: string;
  what: string;
}

/**
 * Reasons the plan computed now is not the plan that was saved: the stacksync version or state
 * key, a target's endpoint, any manifest of the planned targets, and for every planned write its
 * live resource, inventory entry, order, secrets and requests. Writes that are new now (live
 * drift of a resource the plan did not touch) are not a reason: they are simply not applied.
 */
export function staleReasons(saved: PlanFingerprint, now: PlanFingerprint): StaleReason[] {
  return [...setupReasons(saved, now), ...manifestReasons(saved, now), ...changeReasons(saved, now)];
}

/** Reasons found before reading anything live: version, key, and where each target points. */
export function setupReasons(
  saved: PlanFingerprint,
  now: Pick<PlanFingerprint, 'stacksync' | 'keyCheck' | 'targets'>,
): StaleReason[] {
  const reasons: StaleReason[] = [];
  if (saved.stacksync !== now.stacksync)
    reasons.push({
      subject: 'stacksync',
      what: `the plan was made by stacksync ${saved.stacksync}; this is ${now.stacksync}`,
    });
  if (saved.keyCheck !== now.keyCheck)
    reasons.push({ subject: 'state key', what: saved.keySalt === undefined ? OTHER_KEY : MADE_BEFORE_THE_KEY });
  for (const [target, endpoint] of Object.entries(saved.targets)) {
    const current = now.targets[target];
    if (current === undefined) reasons.push({ subject: `target ${target}`, what: 'is not in the config any more' });
    else if (current !== endpoint)
      reasons.push({
        subject: `target ${target}`,
        what: 'points elsewhere now (variant, baseUrl, organizationId or serviceId changed)',
      });
  }
  return reasons;
}

const OTHER_KEY =
  'the plan was made with another HMAC key than the state file’s (state.key), so its secrets cannot be checked';
const MADE_BEFORE_THE_KEY =
  'the plan was made before the state had a key, and the state has one now that is not this plan’s (another apply ran first)';

/** Why a plan made before the state had a key cannot be checked when apply's credentials do not give its key. */
export const OTHER_CREDENTIALS: StaleReason = {
  subject: 'state key',
  what:
    'the plan was made before the state had a key, so it is checked with a key derived from the ' +
    'planned targets’ credentials, and those given to apply are not the ones plan had (plan with the ' +
    'credentials apply uses)',
};

function manifestReasons(saved: PlanFingerprint, now: PlanFingerprint): StaleReason[] {
  const reasons: StaleReason[] = [];
  for (const [ref, what] of mapDifferences(saved.manifests, now.manifests))
    reasons.push({ subject: ref, what: `manifest ${what} since the plan` });
  for (const [file, what] of mapDifferences(saved.problems, now.problems)) {
    reasons.push({
      subject: file,
      what:
        what === 'changed'
          ? 'its errors differ from the plan’s'
          : what === 'added'
            ? 'has errors it did not have'
            : 'no longer has the errors it had',
    });
  }
  return reasons;
}

function changeReasons(saved: PlanFingerprint, now: PlanFingerprint): StaleReason[] {
  const reasons: StaleReason[] = [];
  for (const [ref, planned] of Object.entries(saved.changes)) {
    const current = now.changes[ref];
    if (!current) {
      reasons.push({ subject: ref, what: `is no longer a change to make (it was planned as ${planned.action})` });
      continue;
    }
    const what = changeDifference(planned, current);
    if (what) reasons.push({ subject: ref, what });
  }
  return reasons;
}

/** The first difference a person can act on, most telling first. */
function changeDifference(planned: ChangeFingerprint, current: ChangeFingerprint): string | undefined {
  if (planned.action !== current.action) return `would now be ${current.action}, not ${planned.action} as planned`;
  if (planned.live !== current.live)
    return planned.live === undefined
      ? 'exists live now; it did not when planned'
      : current.live === undefined
        ? 'is gone from the live state'
        : 'changed live since the plan (edited outside stacksync?)';
  if (planned.id !== current.id) return `now matches live id ${current.id ?? '(none)'}, not ${planned.id ?? '(none)'}`;
  if (planned.owned !== current.owned) return 'its entry in the state file changed since the plan (another apply ran?)';
  for (const [path, hash] of mapDifferences(planned.secrets ?? {}, current.secrets ?? {})) {
    return `the secret at ${path} ${hash === 'changed' ? 'resolves to another value than the one planned' : hash === 'added' ? 'is new' : 'is gone'}`;
  }
  if (planned.dependsOn.join() !== current.dependsOn.join())
    return `now waits on ${current.dependsOn.join(', ') || 'nothing'}, not ${planned.dependsOn.join(', ') || 'nothing'}`;
  if (planned.writes !== current.writes)
    return 'its requests differ from the planned ones (a resource it refers to changed)';
  return undefined;
}

/** Keys whose value differs between two maps: `added`, `removed` or `changed`, sorted by key. */
function mapDifferences(
  before: Readonly<Record<string, string>>,
  after: Readonly<Record<string, string>>,
): [string, 'added' | 'removed' | 'changed'][] {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
  return keys.flatMap((key): [string, 'added' | 'removed' | 'changed'][] => {
    if (before[key] === after[key]) return [];
    if (before[key] === undefined) return [[key, 'added']];
    return after[key] === undefined ? [[key, 'removed']] : [[key, 'changed']];
  });
}

/** Refs of the saved plan's writes: what `apply --plan` may carry out. */
export function plannedWrites(saved: PlanFingerprint): Set<string> {
  return new Set(Object.keys(saved.changes));
}

/** The reasons as one message, one reason a line. */
export function describeStale(file: string, reasons: readonly StaleReason[]): string {
  const lines = reasons.map((reason) => `  - ${reason.subject}: ${reason.what}`);
  return `saved plan ${file} no longer matches; nothing was applied. Run plan again and review the new plan:\n${lines.join('\n')}`;
}

function isStringArray(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return isRecord(value) && Object.values(value).every((item) => typeof item === 'string');
}
