/** The Source kind's name. */
import type { Kind } from '../../model/kinds.js';

export const SOURCE = 'Source' satisfies Kind;
