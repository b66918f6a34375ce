// What a Run's errorMessage may say about a failure: the reasons we know are told as they are; any
// other exception (a bug, the database, the file system) is logged with the Run id and the Run
// gets a generic message pointing there, never the exception's own text.

/** A reason a Run cannot proceed that its owner can act on; its message is shown as is. */
export class RunSetupError extends Error {}

export function internalRunFailure(runId: number): string {
  return `The Run failed because of an internal error; the operator can find the details in the worker log under run ${runId}.`;
}
