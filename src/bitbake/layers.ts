// Layers as BitBake sees them after bblayers.conf and each layer.conf.

import type { ConfDiagnostic } from './conf/types.js';

export interface Layer {
  /** The BBLAYERS entry, expanded and absolute. */
  path: string;
  /** `<path>/conf/layer.conf`. */
  confFile: string;
  /** BBFILE_COLLECTIONS entries this layer added (usually one). */
  collection?: string;
  priority?: number;
  /** LAYERSERIES_COMPAT_<collection>, split into words. */
  seriesCompat: string[];
  /** LAYERDEPENDS_<collection>, split into words (version constraints kept as written). */
  depends: string[];
  version?: string;
}

/** What the reader saw while parsing one layer's conf/layer.conf. */
export interface LayerReading {
  path: string;
  confFile: string;
  /** BBFILE_COLLECTIONS words this layer.conf added. */
  collections: string[];
}

/** Per collection: LAYERSERIES_COMPAT, captured right after its layer.conf (BitBake deletes it then). */
export type CompatEntries = ReadonlyMap<string, string[]>;

/**
 * Example: 'core (>= 12) openembedded-layer' → ['core (>= 12)', 'openembedded-layer']
 * (BitBake's dependency-list form: a name, optionally followed by a parenthesised constraint).
 */
export function splitLayerDepends(text: string | undefined): string[] {
  const out: string[] = [];
  for (const m of (text ?? '').matchAll(/([^\s()]+)(\s*\([^)]*\))?/g)) out.push(m[0].trim());
  return out;
}

/** The name part of a LAYERDEPENDS entry: `core (>= 12)` → core, `core:12` (old form) → core. */
export function dependsName(entry: string): string {
  return entry.split(/[\s(:]/)[0]!;
}

/** Build the Layer records; `lookup` reads an expanded variable from the final datastore. */
export function describeLayers(
  readings: readonly LayerReading[],
  compat: CompatEntries,
  lookup: (name: string) => string | undefined,
): Layer[] {
  return readings.map((r) => {
    const collection = r.collections[0];
    const layer: Layer = { path: r.path, confFile: r.confFile, seriesCompat: [], depends: [] };
    if (collection === undefined) return layer;
    layer.collection = collection;
    const priority = Number.parseInt(lookup(`BBFILE_PRIORITY_${collection}`) ?? '', 10);
    if (Number.isFinite(priority)) layer.priority = priority;
    layer.seriesCompat = [...(compat.get(collection) ?? [])];
    layer.depends = splitLayerDepends(lookup(`LAYERDEPENDS_${collection}`));
    const version = lookup(`LAYERVERSION_${collection}`);
    if (version !== undefined) layer.version = version;
    return layer;
  });
}

/**
 * BitBake's checks after all layer.conf files (cookerdata.py, cooker.py): duplicate collection ids
 * and series incompatibility are fatal; unset compatibility warns; a dependency on a collection
 * that no layer provides is fatal.
 */
export function checkLayers(
  readings: readonly LayerReading[],
  collections: readonly string[],
  compat: CompatEntries,
  coreSeries: readonly string[],
  lookup: (name: string) => string | undefined,
): ConfDiagnostic[] {
  const out: ConfDiagnostic[] = [];
  const confOf = (c: string): string =>
    readings.find((r) => r.collections.includes(c))?.confFile ?? 'conf/bblayers.conf';
  const seen = new Set<string>();
  for (const c of collections) {
    if (seen.has(c)) {
      out.push({
        severity: 'error',
        code: 'duplicate-collection',
        message: `collection ${c} is defined twice in BBFILE_COLLECTIONS (${readings
          .filter((r) => r.collections.includes(c))
          .map((r) => r.path)
          .join(', ')})`,
        file: confOf(c),
        expected: 'each layer in BBLAYERS once, each with its own collection id',
      });
      continue;
    }
    seen.add(c);
    const series = compat.get(c) ?? [];
    if (series.length === 0) {
      out.push({
        severity: 'warning',
        code: 'layer-compat-unset',
        message: `layer ${c} does not set LAYERSERIES_COMPAT_${c}`,
        file: confOf(c),
        expected: `LAYERSERIES_COMPAT_${c} = "<core series names>"`,
      });
    } else if (coreSeries.length === 0) {
      out.push({
        severity: 'error',
        code: 'layer-incompatible',
        message: `no core layer found to check layer ${c} against (no LAYERSERIES_CORENAMES)`,
        file: confOf(c),
        expected: 'the core layer (openembedded-core/meta) in BBLAYERS',
      });
    } else if (!series.some((s) => coreSeries.includes(s))) {
      out.push({
        severity: 'error',
        code: 'layer-incompatible',
        message: `layer ${c} is compatible with ${series.join(' ')}, but the core layer supports only ${coreSeries.join(' ')}`,
        file: confOf(c),
        expected: `LAYERSERIES_COMPAT_${c} to name one of: ${coreSeries.join(' ')}`,
      });
    }
    for (const dep of splitLayerDepends(lookup(`LAYERDEPENDS_${c}`))) {
      if (collections.includes(dependsName(dep))) continue;
      out.push({
        severity: 'error',
        code: 'layer-depends-missing',
        message: `layer ${c} depends on layer ${dependsName(dep)}, which is not in BBLAYERS`,
        file: confOf(c),
        expected: `a layer with BBFILE_COLLECTIONS += "${dependsName(dep)}" in BBLAYERS`,
      });
    }
  }
  return out;
}
