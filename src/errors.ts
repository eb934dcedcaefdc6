// Errors a person can act on. The CLI catches RambakeError at the top, prints one line
// `rambake: <where>: <what> (expected …)` and exits with `exitCode`; anything else is a bug
// and only shows a stack trace with --debug.

export const EXIT_OK = 0;
export const EXIT_FINDINGS = 1;
export const EXIT_USAGE = 2;
/** Nothing to analyse yet: no TMPDIR, no buildstats, no recorded run (build something first). */
export const EXIT_NOTHING_YET = 3;

export class RambakeError extends Error {
  readonly exitCode: number;
  readonly hint: string | undefined;
  constructor(message: string, options: { exitCode?: number; hint?: string; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.exitCode = options.exitCode ?? 1;
    this.hint = options.hint;
  }
}

/** A conf file BitBake would refuse (or that rambake cannot read), with its place. */
export class ConfSyntaxError extends RambakeError {
  readonly file: string;
  readonly line: number | undefined;
  readonly expected: string | undefined;
  constructor(file: string, line: number | undefined, what: string, expected?: string) {
    const where = line === undefined ? file : `${file}:${line}`;
    super(`${where}: ${what}${expected ? ` (expected ${expected})` : ''}`, { exitCode: EXIT_USAGE });
    this.file = file;
    this.line = line;
    this.expected = expected;
  }
}

export class NotABuildDirError extends RambakeError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_USAGE, ...(hint ? { hint } : {}) });
  }
}

export class UsageError extends RambakeError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_USAGE, ...(hint ? { hint } : {}) });
  }
}

/** The build has not produced what a command reads yet; not an error in what was asked. */
export class NothingYetError extends RambakeError {
  constructor(message: string, hint?: string) {
    super(message, { exitCode: EXIT_NOTHING_YET, ...(hint ? { hint } : {}) });
  }
}

/** Refusal to mount or unmount where data could be lost. */
export class UnsafeMountError extends RambakeError {}

/** A managed conf block the user edited by hand, a lock held, a write refused. */
export class UnsafeEditError extends RambakeError {}

/** A request rambake will not carry out as asked (a plan that does not fit, a block that loses). */
export class RefusedError extends RambakeError {}

/** A file rambake will not read: a FIFO, a device, a kernel (/proc) file, or too large for its kind. */
export class RefusedFileError extends RambakeError {
  readonly path: string;
  /** What is wrong, without the path. */
  readonly reason: string;
  constructor(path: string, reason: string) {
    super(`${path}: ${reason}`, { exitCode: EXIT_USAGE });
    this.path = path;
    this.reason = reason;
  }
}
