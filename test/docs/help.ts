/**
 * The commands and flags stacksync has, as its `--help` tells a reader: the command list of
 * `stacksync --help` and the Options section of each `stacksync COMMAND --help`, with whether a
 * flag takes a value and the values it allows. The documentation's command lines are checked
 * against this, so a flag the help does not show cannot be documented.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { CLI } from '../helpers/workspace.js';

const exec = promisify(execFile);

export interface HelpFlag {
  long: string;
  short: string | undefined;
  /** `<value>` (required) or `[value]` (optional) after the flag. */
  takesValue: boolean;
  /** The values of `(choices: "a", "b")`, when the help lists them. */
  choices: string[] | undefined;
}

/** The help's command names (`validate`, `plan`, …), without `help` itself. */
export function parseHelpCommands(help: string): string[] {
  return sectionLines(help, 'Commands:')
    .map((line) => /^ {2}(\w[\w-]*)\b/.exec(line)?.[1])
    .filter((name): name is string => name !== undefined && name !== 'help');
}

/** The flags of a command's help, each with its wrapped description joined to read its choices. */
export function parseHelpFlags(help: string): HelpFlag[] {
  const entries: string[] = [];
  for (const line of sectionLines(help, 'Options:')) {
    if (/^ {2}-/.test(line)) entries.push(line.trim());
    else if (entries.length > 0 && line.trim() !== '') entries[entries.length - 1] += ` ${line.trim()}`;
  }
  return entries.flatMap((entry) => {
    const flag = /^(?:(-\w), )?(--[\w-]+)(?: ([<[])[^>\]]*[>\]])?/.exec(entry);
    if (!flag) return [];
    const choices = /\(choices: ((?:"[^"]*", )*"[^"]*")/.exec(entry)?.[1];
    return [
      {
        long: flag[2] ?? '',
        short: flag[1],
        takesValue: flag[3] !== undefined,
        choices: choices?.split(', ').map((choice) => choice.slice(1, -1)),
      },
    ];
  });
}

/** The lines of one section (`Options:`, `Commands:`): from its heading to the next blank line. */
function sectionLines(help: string, heading: string): string[] {
  const lines = help.split('\n');
  const start = lines.indexOf(heading);
  if (start < 0) return [];
  const end = lines.findIndex((line, index) => index > start && line.trim() === '');
  return lines.slice(start + 1, end < 0 ? undefined : end);
}

/** The names of a command's `<argument>`s and optional lists `[argument...]`, from its help's Usage line. */
export function parseHelpArguments(help: string): string[] {
  const usage = /^Usage: .*$/m.exec(help)?.[0] ?? '';
  return [...usage.matchAll(/<([\w-]+)>|\[([\w-]+)\.\.\.\]/g)].map((match) => match[1] ?? match[2] ?? '');
}

/** A help's arguments as entries `<name>` beside its flags. */
function positionalOf(help: string): HelpFlag[] {
  return parseHelpArguments(help).map((argument) => ({
    long: `<${argument}>`,
    short: undefined,
    takesValue: false,
    choices: undefined,
  }));
}

/**
 * Every command of the built CLI with its flags, read from `stacksync --help` and `stacksync
 * COMMAND --help`, each with its `<argument>`s (and `[argument...]` lists) as entries `<name>`
 * beside its flags; a command with commands of its own (`state`) adds each as `state show`.
 */
export async function readHelp(): Promise<Map<string, HelpFlag[]>> {
  const run = async (args: string[]): Promise<string> =>
    (
      await exec(process.execPath, [CLI, ...args], {
        env: { PATH: process.env['PATH'] ?? '', HOME: process.env['HOME'] ?? '', NO_COLOR: '1' },
      })
    ).stdout;
  const names = parseHelpCommands(await run(['--help']));
  const helps = await Promise.all(names.map((name) => run([name, '--help'])));
  const commands = new Map(
    names.map((name, index) => [name, [...parseHelpFlags(helps[index] ?? ''), ...positionalOf(helps[index] ?? '')]]),
  );
  const nested = names.flatMap((name, index) => parseHelpCommands(helps[index] ?? '').map((sub) => `${name} ${sub}`));
  const nestedHelps = await Promise.all(nested.map((name) => run([...name.split(' '), '--help'])));
  nested.forEach((name, index) => {
    const help = nestedHelps[index] ?? '';
    commands.set(name, [...parseHelpFlags(help), ...positionalOf(help)]);
  });
  return commands;
}
