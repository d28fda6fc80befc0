/**
 * Fault injection (`--faults`): grammar `error=0.1,throttle=0.05,latency=20ms,reset=0.02,spike=0.05:200ms,pipefail=0.1`.
 * `error` answers 500 or 503, `throttle` 429 with Retry-After, `reset` cuts the connection,
 * `latency` delays every request, `spike=P:D` delays a share P by D. Shares are drawn from the
 * injected `random`, in a fixed order, so tests script the outcome. `pipefail=P` is not about
 * requests: under the current profile a share P of pipe provisionings (create, start, resync)
 * end `Failed`, drawn when the pipe is provisioned.
 */
import { StacksyncError } from '../errors.js';

export interface FaultSpec {
  error: number;
  throttle: number;
  reset: number;
  latencyMs: number;
  spike: { share: number; delayMs: number };
  /** Share of pipe provisionings that end `Failed` (current profile). */
  pipeFail: number;
}

export type FaultOutcome = 'none' | 'error500' | 'error503' | 'throttle' | 'reset';

export interface FaultDecision {
  delayMs: number;
  outcome: FaultOutcome;
}

export const NO_FAULTS: FaultSpec = {
  error: 0,
  throttle: 0,
  reset: 0,
  latencyMs: 0,
  spike: { share: 0, delayMs: 0 },
  pipeFail: 0,
};

function usage(spec: string, detail: string): StacksyncError {
  return new StacksyncError(
    'E_USAGE',
    `invalid --faults "${spec}": ${detail} (grammar: error=0.1,throttle=0.05,latency=20ms,reset=0.02,spike=0.05:200ms,pipefail=0.1)`,
  );
}

function parseShare(spec: string, name: string, text: string): number {
  const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : NaN;
  if (!(value >= 0 && value <= 1)) throw usage(spec, `${name} must be a share from 0 to 1, got "${text}"`);
  return value;
}

/** `20ms`, `1.5s` or a bare number of milliseconds. */
function parseDuration(spec: string, name: string, text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s)?$/.exec(text);
  if (!match) throw usage(spec, `${name} must be a duration like 20ms or 1s, got "${text}"`);
  return Math.round(Number(match[1]) * (match[2] === 's' ? 1000 : 1));
}

export function parseFaults(spec: string): FaultSpec {
  const faults: FaultSpec = { ...NO_FAULTS, spike: { ...NO_FAULTS.spike } };
  const seen = new Set<string>();
  for (const part of spec
    .split(',')
    .map((text) => text.trim())
    .filter(Boolean)) {
    const [name = '', value] = part.split('=', 2).map((text) => text.trim());
    if (value === undefined || value === '') throw usage(spec, `"${part}" is not name=value`);
    if (seen.has(name)) throw usage(spec, `${name} is given twice`);
    seen.add(name);
    applyFault(spec, faults, name, value);
  }
  if (faults.error + faults.throttle + faults.reset > 1)
    throw usage(spec, 'error + throttle + reset must not exceed 1');
  return faults;
}

function applyFault(spec: string, faults: FaultSpec, name: string, value: string): void {
  switch (name) {
    case 'error':
    case 'throttle':
    case 'reset':
      faults[name] = parseShare(spec, name, value);
      return;
    case 'latency':
      faults.latencyMs = parseDuration(spec, name, value);
      return;
    case 'pipefail':
      faults.pipeFail = parseShare(spec, name, value);
      return;
    case 'spike': {
      const [share = '', delay = ''] = value.split(':', 2);
      faults.spike = {
        share: parseShare(spec, 'spike share', share),
        delayMs: parseDuration(spec, 'spike delay', delay),
      };
      return;
    }
    default:
      throw usage(spec, `unknown fault "${name}"`);
  }
}

export function hasFaults(faults: FaultSpec): boolean {
  return faults.error + faults.throttle + faults.reset + faults.latencyMs + faults.spike.share + faults.pipeFail > 0;
}

/**
 * One request's fate. Draws, each only when its share is non-zero: (1) the outcome — reset,
 * then error, then throttle, by cumulative share; (2) the spike; (3) 500 (< 0.5) or 503 for an error.
 */
export function decideFault(faults: FaultSpec, random: () => number): FaultDecision {
  let outcome: FaultOutcome = 'none';
  if (faults.reset + faults.error + faults.throttle > 0) {
    const draw = random();
    if (draw < faults.reset) outcome = 'reset';
    else if (draw < faults.reset + faults.error) outcome = 'error500';
    else if (draw < faults.reset + faults.error + faults.throttle) outcome = 'throttle';
  }
  let delayMs = faults.latencyMs;
  if (faults.spike.share > 0 && random() < faults.spike.share) delayMs += faults.spike.delayMs;
  if (outcome === 'error500' && random() >= 0.5) outcome = 'error503';
  return { delayMs, outcome };
}
