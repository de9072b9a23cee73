/** A command line that does not make sense: printed with the command's help, exit 2. */
export class UsageError extends Error {}
