/** The subcommands, in the order `--help` lists them. */
import type { CommandFactory } from './main.js';

export const commandFactories: CommandFactory[] = [];
