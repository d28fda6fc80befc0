/**
 * An Alert manifest's rules beyond its schema: a tile alert names a Dashboard manifest of its
 * target and a tile of it, resolved to ids at apply time, so a new dashboard and its alert can be
 * applied in one run. And the desired alert it becomes.
 */
import type { Static } from 'typebox';
import { formatLocation } from '../../errors.js';
import type { DesiredBaseOf, DocumentProblem, KindManifests, ManifestLookup } from '../descriptor.js';
import { isDashboardManifest } from '../dashboard/manifests.js';
import { DASHBOARD } from '../dashboard/model.js';
import type { Variant } from '../../model/kinds.js';
import { ALERT, ALERT_MEMBERS_LACKED, type AlertSpec, type DesiredAlert } from './model.js';
import type { alertDocumentSchema } from './schema.js';

export type AlertManifest = Static<typeof alertDocumentSchema>;

export const alertManifests: KindManifests<DesiredAlert, AlertManifest> = {
  // Live alerts are found by their API name: two manifests with one name would fight over one resource.
  uniqueName: (manifest) => ({
    value: manifest.spec.name,
    pointer: ['spec', 'name'],
    what: (name) => `a ${ALERT} named "${name}"`,
  }),
  checkReferences: (manifest, lookup) => (manifest.spec.source === 'tile' ? tileReference(manifest.spec, lookup) : []),
  checkForTarget: (manifest, { variant }) => lackedMembers(manifest.spec, variant),
  build: (manifest, base) => toDesiredAlert(manifest.spec, base),
};

/** What the target's API does not offer, each at its line (its document lacks it). */
function lackedMembers(spec: AlertSpec, variant: Variant): DocumentProblem[] {
  const lacked = ALERT_MEMBERS_LACKED[variant];
  const offers = `the ${variant} service's API does not offer`;
  const problems: DocumentProblem[] = lacked.alert
    .filter((member) => spec[member] !== undefined)
    .map((member) => ({
      code: 'E_MANIFEST_INVALID',
      pointer: ['spec', member],
      message: `${offers} a list of channels on an alert; give its one channel as channel`,
    }));
  const channels: [AlertSpec['channel'], (string | number)[]][] = [
    [spec.channel, ['spec', 'channel']],
    ...(spec.channels ?? []).map((channel, index): [AlertSpec['channel'], (string | number)[]] => [
      channel,
      ['spec', 'channels', index],
    ]),
  ];
  for (const [channel, at] of channels) {
    if (channel === undefined) continue;
    if (lacked.channelTypes.includes(channel.type))
      problems.push({
        code: 'E_MANIFEST_INVALID',
        pointer: [...at, 'type'],
        message: `${offers} ${channel.type} channels; notify a webhook`,
      });
    for (const member of lacked.channel)
      if (channel[member] !== undefined)
        problems.push({
          code: 'E_MANIFEST_INVALID',
          pointer: [...at, member],
          message: `${offers} ${member} on a channel; leave it out for this target`,
        });
  }
  return problems;
}

function tileReference(spec: AlertSpec, lookup: ManifestLookup): DocumentProblem[] {
  const { dashboard, tile } = spec;
  const found = dashboard === undefined ? undefined : lookup.find(DASHBOARD, dashboard);
  if (!found) {
    const known = lookup.names(DASHBOARD);
    const hint = known.length > 0 && known.length <= 20 ? `; its dashboards are ${known.join(', ')}` : '';
    return [unresolved(['spec', 'dashboard'], `names no Dashboard manifest of ${lookup.targetLabel}${hint}`)];
  }
  if (found.failed || found.manifest === undefined || !isDashboardManifest(found.manifest)) {
    return [
      unresolved(
        ['spec', 'dashboard'],
        `Dashboard ${dashboard} has errors (${formatLocation(found.location)}), so this alert cannot be applied`,
      ),
    ];
  }
  const tiles = (found.manifest.spec.tiles ?? []).map((t) => t.name);
  if (tiles.includes(tile ?? '')) return [];
  const hint = tiles.length > 0 ? `its tiles are ${tiles.join(', ')}` : 'it has no tiles';
  return [unresolved(['spec', 'tile'], `Dashboard ${dashboard} has no tile named ${tile}; ${hint}`)];
}

function unresolved(pointer: DocumentProblem['pointer'], message: string): DocumentProblem {
  return { code: 'E_REF_UNRESOLVED', pointer, message };
}

function toDesiredAlert(spec: AlertSpec, base: DesiredBaseOf): DesiredAlert {
  const alert: DesiredAlert = {
    kind: ALERT,
    ...base,
    name: spec.name,
    threshold: spec.threshold,
    thresholdType: spec.thresholdType,
    interval: spec.interval,
    source: spec.source,
  };
  for (const member of [
    'message',
    'groupBy',
    'dashboard',
    'tile',
    'savedSearchId',
    'savedSearch',
    'note',
    'scheduleStartAt',
  ] as const) {
    if (spec[member] !== undefined) Object.assign(alert, { [member]: spec[member] });
  }
  for (const member of ['thresholdMax', 'numConsecutiveWindows', 'scheduleOffsetMinutes'] as const)
    if (spec[member] !== undefined) alert[member] = spec[member];
  if (spec.channel !== undefined) alert.channel = spec.channel;
  if (spec.channels !== undefined) alert.channels = spec.channels;
  return alert;
}
