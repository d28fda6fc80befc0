/** What a target of today's API does not take, as problems of a manifest at their lines (`src/schema/lacked.ts`). */
import { findLacked, type Lacked } from '../../schema/lacked.js';
import type { DocumentProblem } from '../descriptor.js';

export type { Lacked } from '../../schema/lacked.js';

/** Each lacked member (or value) `spec` holds, as a problem at its line; `api` names the service (`the managed service's API`). */
export function lackedProblems(spec: unknown, lacked: readonly Lacked[], api: string): DocumentProblem[] {
  return findLacked(spec, lacked, api).map(({ pointer, message }) => ({
    code: 'E_MANIFEST_INVALID',
    pointer: ['spec', ...pointer],
    message,
  }));
}
