/** The SavedSearch kind's name. */
import type { Kind } from '../../model/kinds.js';

export const SAVED_SEARCH = 'SavedSearch' satisfies Kind;
