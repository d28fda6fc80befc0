import { CONNECTION } from './schema.js';

export { CONNECTION };
