/** Whose spelling a target speaks, with the default filled in. */
import type { Target } from '../model/config.js';
import { DEFAULT_API_PROFILE, type ApiProfile } from '../schema/enums.js';

/** A target's `api.profile`: the seed's spelling unless it says `current`. */
export function profileOf(target: Pick<Target, 'api'>): ApiProfile {
  return target.api?.profile ?? DEFAULT_API_PROFILE;
}
