import { SOURCE } from './schema.js';

export { SOURCE };

export { SOURCE_LACKED_ON_CURRENT } from '../../schema/manifest-stack.js';
