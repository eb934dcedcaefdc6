// Apply parsed statements to a datastore, following include/require/include_all through BBPATH
// the way ConfHandler.include does. File access goes through ConfIO only.

import { posix as path } from 'node:path';
import { ConfSyntaxError, RefusedFileError } from '../../errors.js';
import type { DataStore } from './datastore.js';
import { splitWords } from './expand.js';
import { isBBHandlerFile, parseConf } from './parser.js';
import { pythonSets } from './python-sets.js';
import type { ConfDiagnostic, ConfIO, Location, Statement } from './types.js';

export interface EvalContext {
  io: ConfIO;
  data: DataStore;
  /** Files read, in order. */
  files: string[];
  /** Every statement applied, in order, included files inlined where they were included. */
  statements: Statement[];
  diagnostics: ConfDiagnostic[];
  /** Files being read right now (include cycle detection). */
  stack: string[];
  /** Files read at least once (re-inclusion warns). */
  seen: Set<string>;
  /** Layer folder → collection ids it added, for `addfragments`. */
  layerCollections: Map<string, string[]>;
}

export function newEvalContext(io: ConfIO, data: DataStore): EvalContext {
  return {
    io,
    data,
    files: [],
    statements: [],
    diagnostics: [],
    stack: [],
    seen: new Set(),
    layerCollections: new Map(),
  };
}

/** Parse and apply one file's text under `file` (a real path or a `<built-in …>` name). */
export function evaluateText(ctx: EvalContext, text: string, file: string): void {
  const parsed = parseConf(text, file);
  ctx.files.push(file);
  ctx.diagnostics.push(...parsed.diagnostics);
  ctx.seen.add(file);
  ctx.stack.push(file);
  const outerFile = ctx.data.getRaw('FILE');
  ctx.data.setVar('FILE', file);
  try {
    for (const st of parsed.statements) applyStatement(ctx, st);
  } finally {
    ctx.stack.pop();
    if (outerFile !== undefined) ctx.data.setVar('FILE', outerFile);
  }
}

/**
 * Read and apply a file. Returns false when it does not exist (the caller decides whether that
 * matters); an unreadable file becomes an error diagnostic.
 */
export function evaluateFile(ctx: EvalContext, file: string, from?: Location): boolean {
  let text: string | undefined;
  try {
    text = ctx.io.readFile(file);
  } catch (err) {
    const reason =
      err instanceof RefusedFileError
        ? err.reason
        : err instanceof ConfSyntaxError
          ? err.message
          : String(err);
    ctx.diagnostics.push({
      severity: 'error',
      code: 'unreadable-file',
      message: from ? `cannot read ${file}: ${reason}` : `cannot read: ${reason}`,
      file: from?.file ?? file,
      ...(from ? { line: from.line } : {}),
    });
    return true;
  }
  if (text === undefined) return false;
  evaluateText(ctx, text, file);
  return true;
}

export function applyStatement(ctx: EvalContext, st: Statement): void {
  ctx.statements.push(st);
  const { data } = ctx;
  switch (st.kind) {
    case 'assign':
      data.assign(st);
      return;
    case 'export':
      data.setVarFlag(st.name, 'export', '1', st.loc);
      return;
    case 'unset':
      if (st.flag === undefined) data.delVar(st.name, st.loc);
      else data.delVarFlag(st.name, st.flag, st.loc);
      return;
    case 'include':
      if (data.expand(st.paths).needsBitBake) {
        // e.g. oe-core's `require ${@"conf/multiconfig/…" if "${BB_CURRENT_MC}" != "" else ""}`.
        ctx.diagnostics.push({
          severity: 'info',
          code: 'include-needs-bitbake',
          message: `${st.mode} path needs Python to evaluate; not followed: ${st.paths}`,
          file: st.loc.file,
          line: st.loc.line,
        });
        return;
      }
      if (st.mode === 'include_all') {
        const rel = data.expand(st.paths).value.trim();
        for (const dir of bbpathOf(ctx)) includeOne(ctx, path.join(dir, rel), st.loc, 'include');
      } else {
        for (const fn of splitWords(data.expand(st.paths).value)) includeOne(ctx, fn, st.loc, st.mode);
      }
      return;
    case 'addfragments':
      applyFragments(ctx, st.args, st.loc);
      return;
    case 'addpylib':
      // Python library folders matter to BitBake only; rambake records the statement.
      return;
    case 'function':
      applyFunction(ctx, st);
      return;
    case 'def':
      // A def becomes a Python function variable of that name (never run by rambake).
      data.setVar(st.name, st.body.join('\n'), st.loc);
      data.setVarFlag(st.name, 'func', '1', st.loc);
      data.setVarFlag(st.name, 'python', '1', st.loc);
      return;
    case 'directive':
      if (st.keyword === 'inherit' || st.keyword === 'inherit_defer') {
        ctx.diagnostics.push({
          severity: 'info',
          code: 'classes-not-parsed',
          message: `${st.keyword} ${st.args}: classes are not parsed by rambake (a hard = in them would win over local.conf)`,
          file: st.loc.file,
          line: st.loc.line,
        });
      }
      return;
  }
}

/**
 * A named function is a variable holding its body (with func/python flags), as BitBake stores
 * it. An anonymous Python function runs when BitBake finalises the configuration: rambake never
 * runs it, so what it sets is marked as needing BitBake.
 */
function applyFunction(ctx: EvalContext, st: Extract<Statement, { kind: 'function' }>): void {
  const { data } = ctx;
  if (st.name !== undefined) {
    data.setVar(st.name, [...st.body, ''].join('\n'), st.loc);
    data.setVarFlag(st.name, 'func', '1', st.loc);
    if (st.python) data.setVarFlag(st.name, 'python', '1', st.loc);
    if (st.fakeroot) data.setVarFlag(st.name, 'fakeroot', '1', st.loc);
    return;
  }
  const { targets, computed } = pythonSets(st.body);
  for (const target of targets) data.markSetByPython(target, st.loc);
  if (computed > 0) {
    ctx.diagnostics.push({
      severity: 'info',
      code: 'python-sets-computed-name',
      message: `anonymous Python sets ${computed === 1 ? 'a variable' : `${computed} variables`} by a computed name: only BitBake knows which`,
      file: st.loc.file,
      line: st.loc.line,
    });
  }
}

/** BBPATH entries in order, empty ones skipped. */
export function bbpathOf(ctx: EvalContext): string[] {
  return (ctx.data.getVar('BBPATH')?.value ?? '').split(':').filter((p) => p !== '');
}

/**
 * Where an include of `fn` from `parent` lands: an absolute path as is; a relative one beside the
 * including file first, then along BBPATH; first existing hit wins.
 */
export function resolveInclude(
  io: ConfIO,
  fn: string,
  parent: string,
  bbpath: readonly string[],
): string | undefined {
  if (path.isAbsolute(fn)) return io.isFile(fn) ? fn : undefined;
  // Built-in texts (`<built-in bitbake.conf>`) have no folder to look beside.
  const dirs = parent.startsWith('<') ? [...bbpath] : [path.dirname(parent), ...bbpath];
  for (const dir of dirs) {
    const candidate = path.join(dir, fn);
    if (io.isFile(candidate)) return candidate;
  }
  return undefined;
}

function includeOne(
  ctx: EvalContext,
  fn: string,
  from: Location,
  mode: 'include' | 'require' | 'include fragment',
) {
  if (fn === from.file) return; // BitBake skips a file naming itself literally
  const found = resolveInclude(ctx.io, fn, from.file, bbpathOf(ctx));
  const diag = (severity: ConfDiagnostic['severity'], code: string, message: string, expected?: string) =>
    ctx.diagnostics.push({
      severity,
      code,
      message,
      file: from.file,
      line: from.line,
      ...(expected ? { expected } : {}),
    });
  if (found === undefined) {
    if (mode !== 'include') {
      diag(
        'error',
        mode === 'require' ? 'missing-require' : 'missing-fragment',
        `could not ${mode} file ${fn}`,
        `${fn} beside ${from.file} or under a BBPATH entry (${bbpathOf(ctx).join(':') || 'BBPATH is empty'})`,
      );
    }
    return;
  }
  if (ctx.stack.includes(found)) {
    diag(
      'error',
      'include-cycle',
      `include cycle: ${[...ctx.stack.slice(ctx.stack.indexOf(found)), found].join(' → ')}`,
      'each file included once along any chain of includes',
    );
    return;
  }
  if (!found.endsWith('.conf') && !isBBHandlerFile(found)) {
    // BitBake has a reader for .conf and for .inc/.bb/.bbclass only, and stops on anything else.
    diag('error', 'not-a-bitbake-file', `${found}: not a BitBake file`, 'a .conf or .inc file');
    return;
  }
  if (ctx.seen.has(found)) diag('warning', 'duplicate-inclusion', `${found} is included again`);
  evaluateFile(ctx, found, from);
}

/**
 * `addfragments PREFIX FRAGMENTS_VAR FLAGGED_VARS_VAR BUILTINS_VAR`: each fragment `layer/name`
 * in FRAGMENTS_VAR includes `PREFIX/name.conf` from the layer whose collection is `layer`;
 * a built-in fragment (`machine/qemuarm`) sets its variable (MACHINE) instead.
 */
function applyFragments(ctx: EvalContext, args: string, loc: Location): void {
  const [prefix, fragmentsVar, , builtinsVar] = splitWords(args);
  const { data } = ctx;
  const fragments = splitWords(data.getVar(fragmentsVar!)?.value);
  const builtins = new Map(
    splitWords(data.getVar(builtinsVar!)?.value).map((b) => b.split(':') as [string, string]),
  );
  for (const fragment of fragments) {
    const slash = fragment.indexOf('/');
    if (slash < 0) continue;
    const [layerId, name] = [fragment.slice(0, slash), fragment.slice(slash + 1)];
    const builtinVar = builtins.get(layerId);
    if (builtinVar) {
      data.setVar(builtinVar, name, loc);
      continue;
    }
    const rel = data.expand(`${prefix}/${name}.conf`).value;
    const layer = [...ctx.layerCollections].find(
      ([dir, ids]) => ids.includes(layerId) && ctx.io.isFile(path.join(dir, rel)),
    );
    if (layer) includeOne(ctx, path.join(layer[0], rel), loc, 'include fragment');
    else includeOne(ctx, `${layerId}:${rel}`, loc, 'include fragment');
  }
}
