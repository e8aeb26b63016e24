/** The message of anything thrown: an Error's message, otherwise its string form (a rejection may carry any value). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Like errorMessage, with the stack where there is one: for CLI and worker output, not for replies. */
export function errorStack(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}
