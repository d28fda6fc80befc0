/** The subcommands, in the order `--help` lists them. */
import { applyCommand } from './apply.js';
import { emulatorCommand } from './emulator.js';
import { exportCommand } from './export.js';
import type { CommandFactory } from './exit.js';
import { planCommand } from './plan.js';
import { pullCommand } from './pull.js';
import { runCommand } from './run.js';
import { stateCommand } from './state.js';
import { statusCommand } from './status.js';
import { validateCommand } from './validate.js';

export const commandFactories: CommandFactory[] = [
  validateCommand,
  planCommand,
  applyCommand,
  runCommand,
  statusCommand,
  stateCommand,
  exportCommand,
  pullCommand,
  emulatorCommand,
];
