// A field the builder picked for a draft: the aligned values, what they hold and the name they get.
import type { CandidateField } from './candidate.js';
import type { Concept } from './naming.js';

export interface Named {
  field: CandidateField;
  concept: Concept | undefined;
  name: string;
  /** Found by its place in the prompt alone (prompt-order.ts): no evidence that the records hold it. */
  byPromptOrder?: boolean;
}
