/** The conformance walk of every kind on the current profile (see `walk.ts`). */
import { walkEveryKind } from './walk.js';

walkEveryKind('current');
