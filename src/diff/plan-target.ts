/**
 * The differ's entry: one target's manifests against its live state and state file, as the
 * changes that would bring live in line. Pure: no I/O, no clock, no environment.
 */
import { withUnreadable, type LiveAlert, type LiveState } from '../model/resources.js';
import type { Variant } from '../model/kinds.js';
import type { DesiredAlert, DesiredDashboard, DesiredPipe, DesiredResource } from '../model/desired.js';
import { changeKey, type Change } from '../model/plan.js';
import type { TargetState } from '../model/state.js';
import { doomerOf, planAlerts } from './alerts.js';
import type { AlertOutcome } from './alerts.js';
import { addDependsOn } from './change.js';
import { planDashboards } from './dashboards.js';
import type { DashboardOutcome } from './dashboards.js';
import { sortChanges } from './order.js';
import { planPipes } from './pipes.js';
import { planOrphans, type PrunableKind } from './prune.js';
import { awaitLateCreates } from './settle.js';
import { maskSensitive } from './sensitive.js';
import { suspendChanges } from './suspend.js';
import { planTwins } from './twins.js';

export interface PlanOptions {
  /** Delete inventory resources no manifest names any more (`--prune`, `sync.prune`). */
  prune: boolean;
  /** Take over same-named live resources stacksync did not create (`--adopt`, `sync.adopt`). */
  adopt: boolean;
  /** A manifest of this target failed to load or validate: never prune. */
  blocked: boolean;
  /** The target is suspended (config `suspend`, or `POST /-/suspend`): nothing of it is written. Default false. */
  suspended?: boolean;
  /** `sync.settleWindow` in milliseconds: how long a create may land after it was sent. */
  settleMs: number;
}

export interface PlanTargetInput {
  target: { name: string; variant: Variant };
  /** Desired resources; those of other targets are ignored. */
  desired: readonly DesiredResource[];
  live: LiveState;
  state: TargetState;
  options: PlanOptions;
  /** When the plan is made, milliseconds since the epoch: create intents are judged against it. */
  nowMs: number;
  /** `Kind/key` → why a manifest cannot be planned (a source or webhook name that names nothing): an error row. */
  unresolved?: ReadonlyMap<string, string>;
  /**
   * `Kind/key` of this target's manifests that failed to load but whose kind and name could be
   * read. Their resources are still named by a manifest: the load problem is their one row (an
   * error at its line), never an orphan or a delete.
   */
  broken?: ReadonlySet<string>;
}

export function planTarget(input: PlanTargetInput): Change[] {
  const { target, live, state, options } = input;
  const desired = input.desired.filter((resource) => resource.target === target.name);
  const pipes = desired.filter((r): r is DesiredPipe => r.kind === 'Pipe');
  const dashboardManifests = desired.filter((r): r is DesiredDashboard => r.kind === 'Dashboard');
  const alertManifests = desired.filter((r): r is DesiredAlert => r.kind === 'Alert');

  // 1. Pipes: independent of everything else.
  const unreadable = live.unreadable ?? [];
  const pipeChanges = planPipes({ target: target.name, variant: target.variant, livePipes: live.pipes, unreadable, secretHashes: state.secretHashes }, pipes);

  // 2. Dashboards, whose tile ids the alerts resolve against.
  const unresolved = input.unresolved ?? new Map<string, string>();
  const timing = { nowMs: input.nowMs, settleMs: options.settleMs };
  const dashboards = planDashboards({ target: target.name, live: live.dashboards, unreadable, unresolved, state, timing, adopt: options.adopt }, dashboardManifests);

  // 3. What the inventory holds and no manifest names: deletes when pruning, orphans otherwise.
  const prune = options.prune && !options.blocked && options.suspended !== true;
  // A manifest that failed to load still names its resource: never an orphan, never pruned.
  const keysOf = (kind: PrunableKind, list: readonly DesiredResource[]): Set<string> => {
    const keys = new Set(list.map((r) => r.key));
    for (const key of input.broken ?? []) if (key.startsWith(`${kind}/`)) keys.add(key.slice(kind.length + 1));
    return keys;
  };
  // Unreadable resources are live too: a prune deletes them by id, which needs no shape.
  const named = { Dashboard: withUnreadable('Dashboard', live.dashboards, unreadable), Alert: withUnreadable('Alert', live.alerts, unreadable) };
  const dashboardOrphans = planOrphans(target.name, 'Dashboard', keysOf('Dashboard', dashboardManifests), state, named.Dashboard, prune);
  const alertOrphans = planOrphans(target.name, 'Alert', keysOf('Alert', alertManifests), state, named.Alert, prune);
  const dashboardDeletes = dashboardOrphans.filter((change) => change.action === 'delete');
  const alertDeletes = alertOrphans.filter((change) => change.action === 'delete');

  // 4. Alerts, knowing which live tiles this plan makes disappear.
  const doom = doomedBy(dashboards, dashboardDeletes, live);
  const alerts = planAlerts(
    {
      target: target.name,
      liveAlerts: live.alerts,
      unreadable,
      unresolved,
      liveDashboards: live.dashboards,
      state,
      timing,
      adopt: options.adopt,
      dashboards: new Map(dashboards.map((outcome) => [outcome.key, outcome])),
      ...doom,
    },
    alertManifests,
  );

  // 5. Guard against the server's cascade deletes of alerts.
  const dashboardChanges = new Map([...dashboards.map((o) => o.change), ...dashboardDeletes].map((c) => [c.name, c]));
  orderCascades({ live: live.alerts, alerts, alertDeletes, dashboardDeletes, dashboardChanges, ...doom });

  // 6. Live twins of managed resources: shown as conflicts, never hidden behind the one matched by id.
  const alertChanges = alerts.map((o) => o.change);
  // Pruning, only what prune may not delete (`stacksync.io/prune: disabled`) is left an orphan.
  const orphans = [...dashboardOrphans, ...alertOrphans].filter((change) => change.action === 'orphan');
  const twins = [
    ...planTwins({ target: target.name, kind: 'Dashboard', changes: [...dashboardChanges.values(), ...orphans], live: named.Dashboard, state }),
    ...planTwins({ target: target.name, kind: 'Alert', changes: [...alertChanges, ...alertDeletes, ...orphans], live: named.Alert, state }),
  ];

  // 7. A create whose earlier create may still land waits for it; what is suspended is shown, never written.
  const changes = [...pipeChanges, ...dashboardChanges.values(), ...alertChanges, ...alertDeletes, ...orphans, ...twins];
  awaitLateCreates(changes, state, timing);
  suspendChanges(changes, desired, options.suspended === true);
  // Secret values of variables never leave the differ.
  maskSensitive(changes, desired);

  // 8. A stable order; orphans (no deletes when pruning) join it untouched.
  return sortChanges(changes);
}

interface Doom {
  doomedTiles: Map<string, string>;
  doomedDashboards: Map<string, string>;
}

/** Live tiles and dashboards this plan's dashboard writes remove, with the change that removes them. */
function doomedBy(dashboards: readonly DashboardOutcome[], deletes: readonly Change[], live: LiveState): Doom {
  const doomedTiles = new Map<string, string>();
  const doomedDashboards = new Map<string, string>();
  for (const outcome of dashboards) for (const id of outcome.removedTiles.keys()) doomedTiles.set(id, outcome.key);
  for (const change of deletes) {
    const dashboard = live.dashboards.find((item) => item.id === change.id);
    doomedDashboards.set(change.id ?? '', change.name);
    for (const tile of dashboard?.tiles ?? []) doomedTiles.set(tile.id, change.name);
  }
  return { doomedTiles, doomedDashboards };
}

interface CascadeInput extends Doom {
  live: readonly LiveAlert[];
  alerts: readonly AlertOutcome[];
  alertDeletes: readonly Change[];
  dashboardDeletes: readonly Change[];
  /** Dashboard changes (including deletes) by manifest / inventory key. */
  dashboardChanges: ReadonlyMap<string, Change>;
}

/**
 * Orders or flags every live alert a dashboard write would take down: alerts moving off first,
 * deleted alerts before the write (so the delete does not 404), and a warning for the rest.
 */
function orderCascades(input: CascadeInput): void {
  const alertDeleteKeys = input.alertDeletes.map((change) => changeKey('Alert', change.name));
  for (const change of input.dashboardDeletes) addDependsOn(change, ...alertDeleteKeys);
  for (const outcome of input.alerts) {
    const doomer = outcome.movesOffBefore === undefined ? undefined : input.dashboardChanges.get(outcome.movesOffBefore);
    if (doomer) addDependsOn(doomer, changeKey('Alert', outcome.change.name));
  }
  const rescued = new Set(input.alerts.filter((o) => o.rescued && o.live).map((o) => o.live?.id));
  const deleted = new Map(input.alertDeletes.map((change) => [change.id, change]));
  for (const alert of input.live) {
    const doomer = input.dashboardChanges.get(doomerOf(input, alert) ?? '');
    if (!doomer || rescued.has(alert.id)) continue;
    const deletion = deleted.get(alert.id);
    if (deletion) addDependsOn(doomer, changeKey('Alert', deletion.name));
    else doomer.warnings.push(cascadeWarning(doomer, alert));
  }
}

function cascadeWarning(doomer: Change, alert: LiveAlert): string {
  const what = doomer.action === 'delete' ? 'this dashboard' : 'removed tiles';
  return `the server deletes alerts watching ${what}: Alert ${alert.name ?? alert.id}`;
}
