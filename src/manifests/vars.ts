/**
 * Per-target variables: `${NAME}` in a manifest's string values takes the target's `vars` value,
 * so one manifest serves staging and prod. An unset variable is an error at its node, never an
 * empty string (the Flux postBuild story to avoid); `$${…}` is a literal `${…}`. Values from
 * secret references are collected so every output can show them as sensitive. Pure but for the
 * secret reads, which go through the given `SecretIo`.
 */
import { resolveSecret, type SecretIo } from '../config/secrets.js';
import type { SecretRef } from '../model/config.js';
import type { SecretValue } from '../model/desired.js';
import { StacksyncError } from '../errors.js';
import type { Pointer } from '../yaml/positions.js';

/** `$${NAME}` (escaped, kept as `${NAME}`) or `${NAME}`. */
const REFERENCE = /\$(\$?)\{([^}]*)\}/g;
const VAR_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

export interface VarProblem {
  code: 'E_MANIFEST_INVALID' | 'E_SECRET_MISSING';
  pointer: Pointer;
  message: string;
}

export interface Substituted {
  value: unknown;
  problems: VarProblem[];
  /** The secret values substituted, with their HMACs; to be masked in every output. */
  sensitive: SecretValue[];
}

export interface VarContext {
  target: string;
  vars: Readonly<Record<string, SecretRef>>;
  secretIo: Partial<SecretIo>;
  hmac: (value: string) => string;
  /** The variables a `metadata.forEach` item set (already substituted), named when a reference is unset. */
  itemVars?: readonly string[];
}

/** True when some string in `value` has a `${` to look at: the rest need no copy. */
export function mentionsVariables(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('${');
  if (Array.isArray(value)) return value.some(mentionsVariables);
  if (value !== null && typeof value === 'object') return Object.values(value).some(mentionsVariables);
  return false;
}

/** `value` with every `${NAME}` in its strings replaced by the target's value; a copy, the input untouched. */
export function substituteVariables(value: unknown, context: VarContext): Substituted {
  const problems: VarProblem[] = [];
  const sensitive = new Map<string, SecretValue>();
  const resolved = new Map<string, string | undefined>();
  const lookup = (name: string, pointer: Pointer): string | undefined => {
    if (resolved.has(name)) return resolved.get(name);
    const found = resolveVariable(name, pointer, context, problems, sensitive);
    resolved.set(name, found);
    return found;
  };
  const walk = (node: unknown, pointer: Pointer): unknown => {
    if (typeof node === 'string') return node.includes('${') ? substituteString(node, pointer, lookup, problems) : node;
    if (Array.isArray(node)) return node.map((item, index) => walk(item, [...pointer, index]));
    if (node !== null && typeof node === 'object')
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item, [...pointer, key])]));
    return node;
  };
  return { value: walk(value, []), problems, sensitive: [...sensitive.values()] };
}

function substituteString(
  text: string,
  pointer: Pointer,
  lookup: (name: string, pointer: Pointer) => string | undefined,
  problems: VarProblem[],
): string {
  return text.replace(REFERENCE, (whole, escape: string, name: string) => {
    if (escape) return whole.slice(1);
    if (!VAR_NAME.test(name)) {
      problems.push({
        code: 'E_MANIFEST_INVALID',
        pointer,
        message: `\${${name}} is not a variable reference (a name is letters, digits and _; write $\${…} for a literal \${…})`,
      });
      return whole;
    }
    return lookup(name, pointer) ?? whole;
  });
}

function resolveVariable(
  name: string,
  pointer: Pointer,
  context: VarContext,
  problems: VarProblem[],
  sensitive: Map<string, SecretValue>,
): string | undefined {
  const ref = Object.hasOwn(context.vars, name) ? context.vars[name] : undefined;
  if (ref === undefined) {
    const known = Object.keys(context.vars);
    const hint = known.length > 0 ? `its vars are ${known.join(', ')}` : 'it has no vars';
    const items =
      context.itemVars && context.itemVars.length > 0
        ? `is set by no forEach item (they set ${context.itemVars.join(', ')}) and `
        : '';
    problems.push({
      code: 'E_MANIFEST_INVALID',
      pointer,
      message: `\${${name}} ${items}is not set for target ${context.target} (${hint}); an unset variable is never replaced by an empty string`,
    });
    return undefined;
  }
  if (typeof ref === 'string') return ref;
  try {
    const value = resolveSecret(ref, context.secretIo);
    sensitive.set(value, { value, hmac: context.hmac(value) });
    return value;
  } catch (error) {
    if (!(error instanceof StacksyncError) || error.code !== 'E_SECRET_MISSING') throw error;
    problems.push({
      code: 'E_SECRET_MISSING',
      pointer,
      message: `\${${name}} of target ${context.target}: ${error.message}`,
    });
    return undefined;
  }
}
