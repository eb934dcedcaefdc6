// The library surface: what the fake BitBake, the benchmarks and other tools import.

export { loadBuildDir } from './bitbake/builddir.js';
export type { BuildDir, BuildPaths, LoadOptions, ResolvedVar, VarSource } from './bitbake/builddir-types.js';
export { BUILD_VARS } from './bitbake/builddir-types.js';
export type { Layer } from './bitbake/layers.js';
