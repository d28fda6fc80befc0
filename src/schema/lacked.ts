/**
 * Members, and values of members, that a service's newest API description does not have: a
 * manifest for a target that speaks the `current` profile must not send them, and the emulator's
 * `current` profile does not take them (issue 32: for the current profile and everything sent to a
 * real service, the documents win; docs/api-client.md#the-contract-suite). The seed profile keeps
 * the seed spec's API as it is.
 */

/** A member by its path (`source.kafka.tombstoneMode`, `[]` for each item of a list), and, if only some of its values are lacked, those. */
export interface Lacked {
  path: string;
  values?: readonly unknown[];
}

/** Each lacked member (or value) `value` holds, with where it is; `api` names the service (`the managed service's API`). */
export function findLacked(
  value: unknown,
  lacked: readonly Lacked[],
  api: string,
): { pointer: (string | number)[]; message: string }[] {
  return lacked.flatMap(({ path, values }) =>
    found(value, path.split('.'), []).flatMap(([member, pointer]) => {
      if (values !== undefined && !values.includes(member)) return [];
      const what = values === undefined ? `${pointer.at(-1) ?? path}` : JSON.stringify(member);
      return [
        {
          pointer,
          message: `${api} does not offer ${what} (its newest API description lacks it); leave it out for a target with api profile current`,
        },
      ];
    }),
  );
}

/** The values at a path, with their pointers. */
function found(value: unknown, segments: readonly string[], at: (string | number)[]): [unknown, (string | number)[]][] {
  const [head, ...rest] = segments;
  if (head === undefined) return value === undefined ? [] : [[value, at]];
  const list = head.endsWith('[]');
  const member = list ? head.slice(0, -2) : head;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return [];
  const next = (value as Record<string, unknown>)[member];
  if (next === undefined) return [];
  if (!list) return found(next, rest, [...at, member]);
  return Array.isArray(next) ? next.flatMap((item, index) => found(item, rest, [...at, member, index])) : [];
}
