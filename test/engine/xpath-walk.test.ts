// The direct XPath walk against the library on the first half of the real pages (xpath-walk-cases.ts).
import { describeWalk } from './xpath-walk-cases.js';

describeWalk(0, 2);
