import { SAVED_SEARCH } from './schema.js';

export { SAVED_SEARCH };
