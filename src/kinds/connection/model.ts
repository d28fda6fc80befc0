/** The Connection kind's name: the database endpoint and credentials sources query through. */
import type { Kind } from '../../model/kinds.js';

import { CONNECTION } from './schema.js';

export { CONNECTION };
