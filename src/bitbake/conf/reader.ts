// readBuildConfig: BitBake's reading order for a build's configuration (cookerdata.py):
// conf/bblayers.conf, each layer's conf/layer.conf, then conf/bitbake.conf along BBPATH (or a
// built-in excerpt), then what the always-inherited classes set about paths. Classes named in
// INHERIT are not parsed. All file access goes through ConfIO.

import { posix as path } from 'node:path';
import { type CompatEntries, checkLayers, describeLayers, type Layer, type LayerReading } from '../layers.js';
import {
  BUILTIN_BITBAKE_CONF,
  BUILTIN_BITBAKE_CONF_NAME,
  BUILTIN_CLASSES,
  BUILTIN_CLASSES_NAME,
} from './builtin-bitbake-conf.js';
import { DataStore } from './datastore.js';
import { type Environment, inheritedEnvironment } from './environment.js';
import {
  bbpathOf,
  type EvalContext,
  evaluateFile,
  evaluateText,
  newEvalContext,
  resolveInclude,
} from './evaluate.js';
import { splitWords } from './expand.js';
import { checkRenamedVariables } from './renamed.js';
import type { ConfDiagnostic, ConfIO, Location, Statement } from './types.js';

/** Where a value taken from the environment says it came from. */
export const ENVIRONMENT_FILE = '<environment>';

export interface BuildConfig {
  topdir: string;
  data: DataStore;
  layers: Layer[];
  /** Files read, in order (real paths only; built-in texts are not listed). */
  files: string[];
  /** Every statement read, in order, with file:line. */
  statements: Statement[];
  diagnostics: ConfDiagnostic[];
}

/** Regex metacharacters escaped as Python's re.escape does for a path (LAYERDIR_RE). */
const escapeRegex = (s: string): string => s.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');

/**
 * `env` is the invoking user's environment, as data: BitBake takes the variables of its
 * pass-through lists from it (HOME, PATH, BBPATH, BB_ENV_PASSTHROUGH_ADDITIONS …) before reading
 * any file, so `${HOME}` in local.conf expands.
 */
export function readBuildConfig(topdir: string, io: ConfIO, env: Environment = {}): BuildConfig {
  const data = new DataStore();
  const ctx = newEvalContext(io, data);
  const fromEnv: Location = { file: ENVIRONMENT_FILE, line: 0 };
  for (const v of inheritedEnvironment(env)) {
    data.setVar(v.name, v.value, fromEnv);
    if (v.exported) data.setVarFlag(v.name, 'export', '1', fromEnv);
  }
  data.setVar('TOPDIR', topdir);
  const bblayers = path.join(topdir, 'conf', 'bblayers.conf');
  const layers = evaluateFile(ctx, bblayers) ? readLayers(ctx, bblayers) : missingBblayers(ctx, bblayers);
  readBitbakeConf(ctx);
  evaluateText(ctx, BUILTIN_CLASSES, BUILTIN_CLASSES_NAME);
  if (splitWords(data.getVar('INHERIT')?.value).length > 0) {
    ctx.diagnostics.push({
      severity: 'info',
      code: 'classes-not-parsed',
      message: `classes in INHERIT (${data.getVar('INHERIT')?.value.trim()}) are not parsed: a hard = in them would win over local.conf`,
      file: bblayers,
    });
  }
  ctx.diagnostics.push(...checkRenamedVariables(data, ctx.statements, Object.keys(env)));
  data.expandLikeConfigHash();
  ctx.diagnostics.push(...data.diagnostics);
  return {
    topdir,
    data,
    layers,
    files: ctx.files.filter((f) => !f.startsWith('<')),
    statements: ctx.statements,
    diagnostics: ctx.diagnostics,
  };
}

function missingBblayers(ctx: EvalContext, bblayers: string): Layer[] {
  ctx.diagnostics.push({
    severity: 'error',
    code: 'missing-bblayers',
    message: `${bblayers} does not exist`,
    file: bblayers,
    expected: 'a build folder made by oe-init-build-env or bitbake-setup',
  });
  return [];
}

function readLayers(ctx: EvalContext, bblayers: string): Layer[] {
  const { data, io } = ctx;
  const value = data.getVar('BBLAYERS');
  const at = value?.loc ? { file: value.loc.file, line: value.loc.line } : { file: bblayers };
  const entries = splitWords(value?.value);
  if (entries.length === 0) {
    ctx.diagnostics.push({
      severity: 'error',
      code: 'empty-bblayers',
      message: 'BBLAYERS is empty',
      ...at,
      expected: 'BBLAYERS ?= "/path/to/openembedded-core/meta …"',
    });
    return [];
  }
  const readings: LayerReading[] = [];
  const compat = new Map<string, string[]>();
  let coreSeries: string[] = [];
  // BitBake expands `~` in a BBLAYERS entry when HOME passes through the environment.
  const home = data.getVar('HOME')?.loc?.file === ENVIRONMENT_FILE ? data.getVar('HOME')?.value : undefined;
  for (const written of entries) {
    const entry = home && (written === '~' || written.startsWith('~/')) ? home + written.slice(1) : written;
    if (!io.isDir(entry)) {
      ctx.diagnostics.push({
        severity: 'error',
        code: 'missing-layer',
        message: `layer folder ${entry} does not exist (check BBLAYERS)`,
        ...at,
        expected: 'BBLAYERS to list existing layer folders',
      });
      continue;
    }
    const layer = entry.length > 1 ? entry.replace(/\/+$/, '') : entry;
    const before = splitWords(data.getVar('BBFILE_COLLECTIONS')?.value);
    data.setVar('LAYERDIR', layer);
    data.setVar('LAYERDIR_RE', escapeRegex(layer));
    const confFile = path.join(layer, 'conf', 'layer.conf');
    if (!evaluateFile(ctx, confFile)) {
      ctx.diagnostics.push({
        severity: 'error',
        code: 'missing-layer-conf',
        message: `${confFile} does not exist`,
        ...at,
        expected: 'each BBLAYERS entry to be a layer (with conf/layer.conf)',
      });
    }
    bakeReference(data, 'LAYERDIR', layer);
    bakeReference(data, 'LAYERDIR_RE', escapeRegex(layer));
    const after = splitWords(data.getVar('BBFILE_COLLECTIONS')?.value);
    const added = after.slice(before.length);
    readings.push({ path: layer, confFile, collections: added });
    ctx.layerCollections.set(layer, added);
    // BitBake keeps each layer's compat, then deletes it so the next layer cannot copy it.
    for (const c of after) {
      const words = splitWords(data.getVar(`LAYERSERIES_COMPAT_${c}`)?.value);
      if (words.length > 0) {
        compat.set(c, words);
        data.delVar(`LAYERSERIES_COMPAT_${c}`);
      }
    }
    if (coreSeries.length === 0) {
      coreSeries = splitWords(data.getVar('LAYERSERIES_CORENAMES')?.value);
      if (coreSeries.length > 0) data.delVar('LAYERSERIES_CORENAMES');
    }
  }
  data.delVar('LAYERDIR_RE');
  data.delVar('LAYERDIR');
  for (const [c, words] of compat) data.setVar(`LAYERSERIES_COMPAT_${c}`, [...words].sort().join(' '));
  if (coreSeries.length > 0) data.setVar('LAYERSERIES_CORENAMES', [...coreSeries].sort().join(' '));
  const lookup = (name: string) => data.getVar(name)?.value;
  const collections = splitWords(data.getVar('BBFILE_COLLECTIONS')?.value);
  ctx.diagnostics.push(...checkLayers(readings, collections, compat as CompatEntries, coreSeries, lookup));
  return describeLayers(readings, compat, lookup);
}

/** BitBake's expandVarref: after each layer.conf, `${LAYERDIR}` is replaced in every variable. */
function bakeReference(data: DataStore, variable: string, value: string): void {
  const ref = `\${${variable}}`;
  // A variable can only get the reference from its own text or an override variant's (listed too).
  for (const name of data.namesMentioning(ref)) {
    for (const short of [name, ...shortNames(name)]) bakeOne(data, short, ref, value);
  }
}

/** `FOO:o1:o2` → ['FOO:o1', 'FOO']: the variables whose value an override variant can become. */
function shortNames(name: string): string[] {
  const out: string[] = [];
  for (let cut = name.lastIndexOf(':'); cut > 0; cut = name.lastIndexOf(':', cut - 1))
    out.push(name.slice(0, cut));
  return out;
}

function bakeOne(data: DataStore, name: string, ref: string, value: string): void {
  const raw = data.getRaw(name);
  if (raw?.includes(ref)) data.replaceValue(name, raw.split(ref).join(value));
}

function readBitbakeConf(ctx: EvalContext): void {
  const found = resolveInclude(ctx.io, 'conf/bitbake.conf', '<search BBPATH>', bbpathOf(ctx));
  if (found !== undefined && evaluateFile(ctx, found)) return;
  ctx.diagnostics.push({
    severity: 'info',
    code: 'builtin-bitbake-conf',
    message: `no layer on BBPATH provides conf/bitbake.conf: using rambake's built-in excerpt of it`,
    file: BUILTIN_BITBAKE_CONF_NAME,
  });
  evaluateText(ctx, BUILTIN_BITBAKE_CONF, BUILTIN_BITBAKE_CONF_NAME);
}
