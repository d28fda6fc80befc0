/** The message for a name that names nothing in a target's list (a data source, a webhook). */
export function unknownNames(what: string, names: readonly string[], target: string, known: readonly { name: string }[]): string {
  const listed = known.length === 0 ? 'it lists none' : `it has ${known.map((item) => `"${item.name}"`).join(', ')}`;
  const quoted = names.map((name) => `"${name}"`).join(', ');
  return `${what} ${quoted} is not a ${what} of target ${target} (${listed})`;
}
