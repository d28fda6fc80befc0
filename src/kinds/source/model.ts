/** The Source kind's name. */
import type { Kind } from '../../model/kinds.js';

import { SOURCE } from './schema.js';

export { SOURCE };

export { SOURCE_LACKED_ON_CURRENT } from '../../schema/manifest-stack.js';
