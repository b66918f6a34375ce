// The direct XPath walk against the library on the second half of the real pages (xpath-walk-cases.ts).
import { describeWalk } from './xpath-walk-cases.js';

describeWalk(1, 2);
