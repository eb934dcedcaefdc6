// The shapes shared by the conf parser, the evaluator and their users.

export interface Location {
  file: string;
  line: number;
}

export type AssignOp = '=' | '?=' | '??=' | ':=' | '+=' | '=+' | '.=' | '=.';

export type Statement =
  | {
      kind: 'assign';
      loc: Location;
      exported: boolean;
      /** The whole name as written, overrides included: `FOO:append:qemux86`. */
      name: string;
      flag?: string;
      op: AssignOp;
      /** The text between the quotes, unprocessed (backslashes stay). */
      value: string;
    }
  | { kind: 'include'; loc: Location; mode: 'include' | 'require' | 'include_all'; paths: string }
  | { kind: 'export'; loc: Location; name: string }
  | { kind: 'unset'; loc: Location; name: string; flag?: string }
  | { kind: 'addpylib'; loc: Location; dir: string; namespace: string }
  | { kind: 'addfragments'; loc: Location; args: string }
  /**
   * A function block of a .inc/.bb/.bbclass file (BBHandler): `python () {` (anonymous: no name),
   * `python name () {`, `fakeroot name () {`, `name () {` (shell). The body lines as written.
   */
  | { kind: 'function'; loc: Location; name?: string; python: boolean; fakeroot: boolean; body: string[] }
  /** `def name(…):` and its indented body, in a .inc/.bb/.bbclass file. */
  | { kind: 'def'; loc: Location; name: string; body: string[] }
  /** BBHandler-only statements rambake records without acting on them (classes are not parsed). */
  | { kind: 'directive'; loc: Location; keyword: BBDirective; args: string };

export type BBDirective =
  | 'inherit'
  | 'inherit_defer'
  | 'addtask'
  | 'deltask'
  | 'addhandler'
  | 'EXPORT_FUNCTIONS';

export type Severity = 'error' | 'warning' | 'info';

/** Something BitBake would say about a conf file. Errors are fatal to BitBake; the CLI decides. */
export interface ConfDiagnostic {
  severity: Severity;
  /** Stable id, e.g. `unparsed-line`, `old-override-syntax`, `missing-require`, `include-cycle`. */
  code: string;
  message: string;
  file: string;
  line?: number;
  expected?: string;
}

/** The file system as the evaluator sees it; the real one lives at the edge (node-io.ts). */
export interface ConfIO {
  /** The file's text, or undefined when it does not exist. Throws for unreadable files. */
  readFile(path: string): string | undefined;
  isFile(path: string): boolean;
  isDir(path: string): boolean;
}
