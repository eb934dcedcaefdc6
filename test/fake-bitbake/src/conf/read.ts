// The order in which BitBake reads a build's configuration (cookerdata.py; bitbake-formats.md
// §2, §12): environment, bblayers.conf, each layer's layer.conf with LAYERDIR, conf/bitbake.conf
// along BBPATH (or the fake's own, which includes site/auto/toolcfg/local and distro confs),
// then the classes' assignments.

import fs from 'node:fs';
import path from 'node:path';
import { ALWAYS_INHERITED, BUILTIN_BITBAKE_CONF, CLASSES } from './builtin.js';
import { ConfParseError, parseConf, type Statement } from './parse.js';
import { Store } from './store.js';

/** BitBake refuses the configuration; `message` is what it prints after `ERROR: `. */
export class ConfError extends Error {}

export interface BuildConf {
  store: Store;
  topdir: string;
  /** Layer folders in BBLAYERS order. */
  layers: string[];
  /** The bitbake.conf that was read, or `builtin`. */
  bitbakeConf: string;
  /** What the fake could not model (Python it cannot run, fragments); printed as comments by -e. */
  notes: string[];
}

const PRESERVED = ['BBPATH', 'BB_PRESERVE_ENV', 'BB_ENV_PASSTHROUGH_ADDITIONS'];
const PRESERVED_EXPORTED = [
  'BB_TASKHASH',
  'HOME',
  'LOGNAME',
  'PATH',
  'PWD',
  'SHELL',
  'USER',
  'LC_ALL',
  'BBSERVER',
];
export const BUILTIN_FILE = '<fake-bitbake>/conf/bitbake.conf';

/** bb.utils.approved_variables: which environment variables reach the datastore. */
function approvedVariables(env: NodeJS.ProcessEnv): string[] {
  if (env.BB_PRESERVE_ENV !== undefined) return Object.keys(env);
  const approved = env.BB_ENV_PASSTHROUGH
    ? [...env.BB_ENV_PASSTHROUGH.split(/\s+/), 'BB_ENV_PASSTHROUGH']
    : [...PRESERVED, ...PRESERVED_EXPORTED];
  if (env.BB_ENV_PASSTHROUGH_ADDITIONS) approved.push(...env.BB_ENV_PASSTHROUGH_ADDITIONS.split(/\s+/));
  return approved.filter((v) => v !== '');
}

export function readBuildConf(cwd: string, env: NodeJS.ProcessEnv): BuildConf {
  const store = new Store();
  const notes: string[] = [];
  for (const name of approvedVariables(env)) {
    const v = env[name];
    if (v === undefined) continue;
    store.set(name, v, { op: 'from env', file: 'environment', line: 0 });
    if (PRESERVED_EXPORTED.includes(name)) store.setFlag(name, 'export', '1');
  }
  const reader = new Reader(store, notes);

  const bblayers = findConfigFile('bblayers.conf', store.get('BBPATH'), cwd);
  if (!bblayers) {
    throw new ConfError(
      'The BBPATH variable is not set and bitbake did not find a conf/bblayers.conf file in the expected location.\nMaybe you accidentally invoked bitbake from the wrong directory?',
    );
  }
  const topdir = path.dirname(path.dirname(bblayers));
  store.set('TOPDIR', topdir, { op: 'set', file: 'cooker', line: 0 });
  reader.file(bblayers);

  const layers = (store.get('BBLAYERS') ?? '').split(/\s+/).filter((l) => l !== '');
  if (layers.length === 0)
    throw new ConfError("The bblayers.conf file doesn't contain any BBLAYERS definition");
  const missing = layers.filter((l) => !fs.statSync(l, { throwIfNoEntry: false })?.isDirectory());
  if (missing.length > 0) {
    throw new ConfError(
      `The following layer directories do not exist:\n${missing.map((l) => `   ${l}`).join('\n')}\nPlease check BBLAYERS in ${bblayers}`,
    );
  }
  const layerDirs = layers.map((l) => l.replace(/\/+$/, ''));
  for (const layer of layerDirs) {
    store.set('LAYERDIR', layer, { op: 'set', file: 'cooker', line: 0 });
    reader.file(path.join(layer, 'conf', 'layer.conf'), 'require');
    // expandVarref: the layer's ${LAYERDIR} becomes its path before the next layer is read.
    store.replaceReference('LAYERDIR', layer);
  }
  store.delete('LAYERDIR');

  const bitbakeConf = searchPath(path.join('conf', 'bitbake.conf'), bbpath(store));
  if (bitbakeConf) reader.file(bitbakeConf);
  else reader.statements(parseConf(BUILTIN_BITBAKE_CONF, BUILTIN_FILE));

  const inherit = (store.get('INHERIT') ?? '').split(/\s+/);
  for (const cls of new Set([...ALWAYS_INHERITED, ...inherit])) {
    const text = CLASSES[cls];
    if (text) reader.statements(parseConf(text, `<fake-bitbake>/classes/${cls}.bbclass`));
  }
  return { store, topdir, layers: layerDirs, bitbakeConf: bitbakeConf ?? 'builtin', notes };
}

/** cookerdata.findConfigFile: BBPATH entries first, then ./conf, ../conf … up to /. */
function findConfigFile(name: string, bbpathValue: string | undefined, cwd: string): string | undefined {
  const search = (bbpathValue ?? '')
    .split(':')
    .filter((p) => p !== '')
    .map((p) => path.join(p, 'conf', name));
  for (let d = path.resolve(cwd); d !== path.dirname(d); d = path.dirname(d))
    search.push(path.join(d, 'conf', name));
  return search.find((f) => fs.existsSync(f));
}

function bbpath(store: Store): string[] {
  return (store.get('BBPATH') ?? '').split(':').filter((p) => p !== '');
}

function searchPath(rel: string, dirs: string[]): string | undefined {
  for (const d of dirs) {
    const f = path.join(d, rel);
    if (fs.existsSync(f)) return f;
  }
  return undefined;
}

/** Applies statements to the store, following include/require/include_all. */
class Reader {
  constructor(
    private readonly store: Store,
    private readonly notes: string[],
  ) {}

  file(file: string, kind: 'include' | 'require' = 'require', from?: { file: string; line: number }): void {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      if (kind === 'include') return;
      throw from
        ? new ConfParseError(from.file, from.line, `Could not include required file ${file}`)
        : new ConfError(`Unable to open ${file}`);
    }
    this.statements(parseConf(text, file));
  }

  statements(list: Statement[]): void {
    for (const st of list) this.apply(st);
  }

  private apply(st: Statement): void {
    const store = this.store;
    switch (st.kind) {
      case 'assign':
        this.assign(st);
        break;
      case 'export':
        store.setFlag(st.name, 'export', '1');
        break;
      case 'unset':
        if (st.flag) store.deleteFlag(st.name, st.flag);
        else store.delete(st.name);
        break;
      case 'ignored':
        this.notes.push(`${st.file}:${st.line}: not modelled: ${st.text}`);
        break;
      default:
        this.include(st.kind, store.expand(st.path), { file: st.file, line: st.line });
    }
  }

  private assign(st: Extract<Statement, { kind: 'assign' }>): void {
    const store = this.store;
    const expand = (s: string) => store.expand(s);
    if (st.exported) store.setFlag(st.name, 'export', '1');
    if (st.flag !== undefined) {
      const old = store.flag(st.name, st.flag);
      const lazy = st.op === '?=' || st.op === '??=';
      if (!lazy) store.setFlag(st.name, st.flag, combine(st.op, old, st.value, expand));
      else if (old === undefined) store.setFlag(st.name, st.flag, st.value);
      return;
    }
    const at = { file: st.file, line: st.line };
    const old = store.raw(st.name);
    if (st.op === '??=') store.setWeak(st.name, st.value, { ...at, op: 'set??' });
    else if (st.op !== '?=') {
      store.set(st.name, combine(st.op, old, st.value, expand), { ...at, op: OP_NAMES[st.op] ?? 'set' });
    } else if (old === undefined) store.set(st.name, st.value, { ...at, op: 'set?' });
  }

  private include(
    kind: 'include' | 'require' | 'include_all',
    spec: string,
    at: { file: string; line: number },
  ) {
    if (spec.includes('${@')) {
      this.notes.push(
        `${at.file}:${at.line}: ${kind} of ${spec} skipped: Python the fake BitBake cannot run`,
      );
      return;
    }
    const dirs = bbpath(this.store);
    for (const name of spec.split(/\s+/).filter((n) => n !== '')) {
      if (kind === 'include_all') {
        for (const d of dirs) this.file(path.join(d, name), 'include');
        continue;
      }
      // Absolute as is; relative: beside the including file first, then along BBPATH.
      const found = path.isAbsolute(name)
        ? name
        : searchPath(name, [...(at.file.startsWith('<') ? [] : [path.dirname(at.file)]), ...dirs]);
      if (found) this.file(found, kind, at);
      else if (kind === 'require')
        throw new ConfParseError(at.file, at.line, `Could not include required file ${name}`);
    }
  }
}

const OP_NAMES: Record<string, string> = {
  '=': 'set',
  ':=': 'immediate',
  '+=': 'append',
  '=+': 'prepend',
  '.=': 'postdot',
  '=.': 'predot',
};

/** ast.DataNode: the value an operator stores, from the value so far (weak defaults not seen). */
function combine(op: string, old: string | undefined, value: string, expand: (s: string) => string): string {
  switch (op) {
    case ':=':
      return expand(value);
    case '+=':
      return `${old ?? ''} ${value}`;
    case '=+':
      return `${value} ${old ?? ''}`;
    case '.=':
      return `${old ?? ''}${value}`;
    case '=.':
      return `${value}${old ?? ''}`;
    default:
      return value;
  }
}
