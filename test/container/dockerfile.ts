/**
 * A small Dockerfile reader for tests: instructions with continuation lines joined, grouped into
 * stages. Enough to check what matters without a container engine (none runs here).
 */

export interface Instruction {
  keyword: string;
  /** Everything after the keyword, continuation lines joined with a space. */
  args: string;
  line: number;
}

export interface Stage {
  /** `FROM <image> [AS <name>]`. */
  image: string;
  name?: string;
  instructions: Instruction[];
}

export function parseDockerfile(text: string): { stages: Stage[]; global: Instruction[] } {
  const instructions = toInstructions(text);
  const stages: Stage[] = [];
  const global: Instruction[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'FROM') {
      const match = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(instruction.args);
      if (!match?.[1]) throw new Error(`line ${instruction.line}: cannot read FROM ${instruction.args}`);
      stages.push({ image: match[1], ...(match[2] ? { name: match[2] } : {}), instructions: [] });
      continue;
    }
    const current = stages.at(-1);
    if (current) current.instructions.push(instruction);
    else global.push(instruction);
  }
  return { stages, global };
}

function toInstructions(text: string): Instruction[] {
  const instructions: Instruction[] = [];
  let pending: { parts: string[]; line: number } | undefined;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    // Comments and blank lines may sit inside a continued instruction; they are skipped.
    if (line === '' || line.startsWith('#')) return;
    const continued = line.endsWith('\\');
    const part = continued ? line.slice(0, -1).trim() : line;
    pending ??= { parts: [], line: index + 1 };
    pending.parts.push(part);
    if (continued) return;
    const joined = pending.parts.join(' ');
    const space = joined.search(/\s/);
    instructions.push({
      keyword: (space === -1 ? joined : joined.slice(0, space)).toUpperCase(),
      args: space === -1 ? '' : joined.slice(space + 1).trim(),
      line: pending.line,
    });
    pending = undefined;
  });
  return instructions;
}

/** The JSON (exec) form of ENTRYPOINT/CMD/HEALTHCHECK CMD, or undefined for the shell form. */
export function execForm(args: string): string[] | undefined {
  try {
    const value: unknown = JSON.parse(args);
    return Array.isArray(value) && value.every((item) => typeof item === 'string') ? value : undefined;
  } catch {
    return undefined;
  }
}

/** `COPY [--from=x] [--chown=…] src… dest` → sources, destination and `from`. */
export function copyArgs(args: string): { from?: string; sources: string[]; dest: string } {
  const words = args.split(/\s+/);
  const flags = words.filter((word) => word.startsWith('--'));
  const paths = words.filter((word) => !word.startsWith('--'));
  const from = flags.find((flag) => flag.startsWith('--from='))?.slice('--from='.length);
  const dest = paths.pop() ?? '';
  return { ...(from ? { from } : {}), sources: paths, dest };
}

/** Whether `.dockerignore` patterns exclude `path` (plain names, `*` and `**` globs; no `!`). */
export function ignoredBy(patterns: readonly string[], path: string): boolean {
  return patterns.some((pattern) => {
    const regex = new RegExp(
      `^${pattern
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*\//g, '(?:.*/)?')
        .replace(/\*/g, '[^/]*')}(?:/.*)?$`,
    );
    return regex.test(path);
  });
}

export function dockerignorePatterns(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'));
}
