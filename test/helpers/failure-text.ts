// The message an engine failure shows a person, for tests that check its wording.
import { engineFailureMessage, type EngineFailure } from '../../src/engine/failure-codes.js';

export const failureText = (f: EngineFailure | undefined): string | undefined =>
  f === undefined ? undefined : engineFailureMessage(f);
