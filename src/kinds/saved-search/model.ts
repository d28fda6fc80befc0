/** The SavedSearch kind's name. */
import type { Kind } from '../../model/kinds.js';

import { SAVED_SEARCH } from './schema.js';

export { SAVED_SEARCH };
