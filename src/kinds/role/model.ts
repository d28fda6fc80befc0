import type { LiveFlat } from '../shared/flat-live.js';

import { ROLE } from './schema.js';

export { ROLE };

/** A live role: a record, and whether it is one of the service's own predefined roles (never sent back: the update body has no such member). */
export interface LiveRole extends LiveFlat {
  predefined: boolean;
}
