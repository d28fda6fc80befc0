/**
 * Exit codes (docs/reference/cli.md), and the contract of a subcommand: only the CLI decides them.
 */
import type { Command } from 'commander';

/** Success; for `plan`, no changes (or no `--detailed-exitcode`). */
export const EXIT_OK = 0;
/** Bad config or manifests, an API failure, a failed change, a refused prune. */
export const EXIT_ERROR = 1;
/** `--detailed-exitcode` found changes. */
export const EXIT_CHANGES = 2;

/** Each subcommand module exports a factory; it resolves to the exit code the command wants. */
export type CommandFactory = (setExitCode: (code: number) => void) => Command;
