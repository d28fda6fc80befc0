import { WEBHOOK } from './schema.js';

export { WEBHOOK };

/** Members that hold secrets: the URL (readable, compared by value) and the write-only maps. */
export const WEBHOOK_SECRET_MEMBERS = ['url', 'headers', 'queryParams'] as const;
/** The members the service never returns, and clears when the URL or the service changes. */
export const WEBHOOK_WRITE_ONLY = ['headers', 'queryParams'] as const;
