/** The conformance walk of every kind on the seed profile (see `walk.ts`). */
import { checkFixtures, walkEveryKind } from './walk.js';

checkFixtures();
walkEveryKind('seed');
