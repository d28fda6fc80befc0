/**
 * Seeded randomness for tests: the same seed gives the same stream, run after run.
 */

/** mulberry32: small, fast and good enough to spread choices and fault draws. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A fault draw for the emulator's `random` option that a test can silence. */
export interface FaultDraws {
  readonly random: () => number;
  /** From now on every draw lands above every fault share: no request meets a fault. */
  quiet(): void;
}

/**
 * Seeded fault draws that can be switched off. Concurrent requests take draws in the order they
 * arrive, so a seed alone does not make a run repeat; a test that checks convergence after
 * surviving faults silences them first, so the check cannot fail by chance.
 */
export function faultDraws(seed: number): FaultDraws {
  const next = seededRandom(seed);
  let quiet = false;
  return {
    random: () => (quiet ? 0.999_999 : next()),
    quiet: () => {
      quiet = true;
    },
  };
}
