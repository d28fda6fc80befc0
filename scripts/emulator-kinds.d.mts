// Types of scripts/emulator-kinds.mjs, for vitest.config.ts and the test of what it writes.
export const CURRENT_DIR: string;
export const GENERATED_FILE: string;
export function stackKindFiles(dir: string): string[];
export function kindsModuleText(files: readonly string[]): string;
export function writeKindsModule(dir?: string): boolean;
