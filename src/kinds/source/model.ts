/** The Source kind's name. */
import type { Kind } from '../../model/kinds.js';

export const SOURCE = 'Source' satisfies Kind;

export { SOURCE_LACKED_ON_CURRENT } from '../../schema/manifest-stack.js';
