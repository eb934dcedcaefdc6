// Layers as BitBake sees them after bblayers.conf and each layer.conf.

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
