/**
 * What `stacksync emulator` prints on start: the URL, each organization, service, pipe and team
 * with its credentials, and a curl example per variant. These are the emulator's own fixture
 * credentials; a secret is shown only when the seed in use holds it (a restored data file keeps
 * only hashes).
 */
import type { CurrentEmulatorData, ProfileData } from './model.js';
import type { Seed } from './seed.js';

/** The salted hash the state holds for a secret. */
type Hash = (secret: string) => string;

function knownSecret(seed: Seed, keyId: string, secretHash: string, hash: Hash): string | undefined {
  const key = (seed.organizations ?? []).flatMap((org) => org.keys).find((candidate) => candidate.id === keyId);
  return key && hash(key.secret) === secretHash ? key.secret : undefined;
}

function knownToken(seed: Seed, tokenHash: string, hash: Hash): string | undefined {
  return (seed.teams ?? []).flatMap((team) => team.tokens).find((token) => hash(token) === tokenHash);
}

const NOT_SHOWN = '(not shown: restored from the data file; use the secret it was seeded with)';

type CurrentStack = CurrentEmulatorData['teams'][number];

/** Under the current profile, what resources name by id: the workspace's connections, sources, webhooks and saved searches. */
function stackLines(stack: object, indent: string): string[] {
  if (!('webhooks' in stack)) return [];
  const { connections = [], sources, webhooks, savedSearches } = stack as CurrentStack;
  const line = (label: string, entries: readonly { id: string; name: string }[]) =>
    `${indent}${label} ${entries.map((entry) => `${entry.name} ${entry.id}`).join(', ') || '(none)'}`;
  return [
    line('connections   ', connections),
    line('sources       ', sources),
    line('webhooks      ', webhooks),
    line('saved searches', savedSearches),
  ];
}

/** `pipesSegment`: the name the managed pipe routes are served under (`--paths`). */
export function emulatorBanner(
  url: string,
  state: ProfileData,
  seed: Seed,
  hash: Hash,
  pipesSegment = 'pipes',
): string {
  const profile = state.profile ?? 'seed';
  const lines = [`stacksync emulator listening on ${url}${profile === 'seed' ? '' : ` (profile ${profile})`}`, ''];
  let managedExample: string | undefined;
  for (const org of state.organizations) {
    lines.push(`managed organization ${org.id}`);
    for (const key of org.keys) {
      const secret = knownSecret(seed, key.id, key.secretSha256, hash);
      lines.push(`  key id ${key.id}  secret ${secret ?? NOT_SHOWN}`);
      const service = org.services[0];
      if (!managedExample && secret && service) {
        managedExample = `curl -u '${key.id}:${secret}' ${url}/v1/organizations/${org.id}/services/${service.id}/${pipesSegment}`;
      }
    }
    for (const service of org.services) {
      lines.push(`  service ${service.id} (${service.state})`);
      for (const pipe of service.pipes)
        lines.push(`    pipe ${pipe.id}  ${pipe.name} (${Object.keys(pipe.source)[0] ?? '?'})`);
      lines.push(...stackLines(service, '    '));
    }
  }
  let selfHostedExample: string | undefined;
  for (const team of state.teams) {
    const tokens = team.tokenSha256.map((tokenHash) => knownToken(seed, tokenHash, hash));
    lines.push(`self-hosted team ${team.id}  token ${tokens.map((token) => token ?? NOT_SHOWN).join(', ')}`);
    lines.push(...stackLines(team, '  '));
    const token = tokens.find((candidate) => candidate !== undefined);
    if (!selfHostedExample && token)
      selfHostedExample = `curl -H 'Authorization: Bearer ${token}' ${url}/api/v2/dashboards`;
  }
  lines.push('', 'try:');
  if (managedExample) lines.push(`  ${managedExample}`);
  if (selfHostedExample) lines.push(`  ${selfHostedExample}`);
  lines.push(`  curl ${url}/_emulator/stats`);
  return `${lines.join('\n')}\n`;
}
