#!/usr/bin/env node
// Writes scenarios/*.json. Sizes are real-world-ish bytes at size scale 1 (the fake scales
// bytes by the size scale and file counts by its square root); durations are seconds.
// Run: node test/fake-bitbake/scripts/gen-scenarios.mjs
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const out = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');
const MB = 1024 * 1024;
const TARGET = 'core2-64-poky-linux';
const NATIVE = 'x86_64-linux';
const MACH = 'qemux86_64-poky-linux';
const ALL = 'all-poky-linux';

/** A recipe whose build tree is `mb` MB; other folders follow real proportions. */
function recipe(pn, pv, kind, mb, deps, extra = {}) {
  const arch = { target: TARGET, native: NATIVE, cross: NATIVE, kernel: MACH, image: MACH, allarch: ALL }[
    kind
  ];
  const f = (n) => Math.max(1, Math.round(n * Math.sqrt(mb)));
  const b = (x) => Math.max(4096, Math.round(x * mb * MB));
  const writes = {
    downloads: [1, b(0.15)],
    sources: [f(30), b(0.3)],
    build: [f(80), b(1)],
    image: [f(20), b(0.2)],
  };
  writes['sysroot-destdir'] = [f(15), b(0.15)];
  writes['license-destdir'] = [2, 8192];
  if (kind !== 'native' && kind !== 'cross') {
    Object.assign(writes, { package: [f(20), b(0.2)], 'packages-split': [f(25), b(0.35)] });
    Object.assign(writes, { pkgdata: [f(4), b(0.005)], 'deploy-ipks': [f(3), b(0.06)] });
  }
  if (kind === 'kernel') {
    delete writes.sources;
    Object.assign(writes, { 'kernel-source': [f(60), b(0.5)], 'kernel-build-artifacts': [f(10), b(0.05)] });
    writes.deploy = [3, b(0.01)];
  }
  if (kind === 'image') {
    for (const k of Object.keys(writes)) delete writes[k];
    Object.assign(writes, {
      rootfs: [f(40), b(1)],
      'image-complete': [3, b(0.6)],
      'license-destdir': [2, 8192],
    });
  }
  const compile = Math.max(2, Math.round(6 * Math.sqrt(mb)));
  return {
    pn,
    pv,
    pr: 'r0',
    arch,
    kind,
    deps,
    ...extra,
    durations: { do_compile: compile, ...(extra.durations ?? {}) },
    writes,
  };
}

function small() {
  const natives = [
    'quilt-native',
    'm4-native',
    'autoconf-native',
    'libtool-native',
    'pkgconfig-native',
    'opkg-utils-native',
  ];
  const nv = {
    'quilt-native': '0.68',
    'm4-native': '1.4.20',
    'autoconf-native': '2.72',
    'libtool-native': '2.5.4',
    'pkgconfig-native': '0.29.2',
    'opkg-utils-native': '0.7.0',
  };
  const rs = natives.map((pn, i) => recipe(pn, nv[pn], 'native', 4, i === 0 ? [] : ['quilt-native']));
  const tools = ['quilt-native', 'autoconf-native', 'libtool-native', 'pkgconfig-native'];
  rs.push(recipe('binutils-cross-x86_64', '2.45', 'cross', 60, ['quilt-native']));
  rs.push(
    recipe('gcc-cross-x86_64', '15.2.0', 'cross', 400, ['binutils-cross-x86_64', 'm4-native'], {
      durations: { do_compile: 180 },
    }),
  );
  const cc = ['gcc-cross-x86_64', 'quilt-native'];
  rs.push(recipe('glibc', '2.42', 'target', 300, [...cc], { durations: { do_compile: 120 } }));
  rs.push(recipe('gcc-runtime', '15.2.0', 'target', 80, [...cc, 'glibc']));
  const libc = [...cc, 'glibc', 'gcc-runtime'];
  const tgt = [
    ['zlib', '1.3.1', 6],
    ['ncurses', '6.5', 40],
    ['busybox', '1.37.0', 30],
    ['base-files', '3.0.14', 1],
    ['netbase', '6.5', 1],
    ['sysvinit', '3.14', 8],
    ['openssl', '3.5.2', 120],
    ['util-linux', '2.41.1', 90],
  ];
  for (const [pn, pv, mb] of tgt) rs.push(recipe(pn, pv, 'target', mb, [...libc, ...tools]));
  rs.find((r) => r.pn === 'openssl').deps.push('zlib');
  rs.find((r) => r.pn === 'util-linux').deps.push('ncurses', 'zlib');
  rs.push(recipe('linux-yocto', '6.12.47+git', 'kernel', 600, [...cc], { durations: { do_compile: 240 } }));
  rs.push(recipe('packagegroup-core-boot', '1.0', 'allarch', 0.1, []));
  const installs = rs.filter((r) => ['target', 'kernel', 'allarch'].includes(r.kind)).map((r) => r.pn);
  rs.push(recipe('core-image-minimal', '1.0', 'image', 40, ['opkg-utils-native'], { rdeps: installs }));
  return rs;
}

function base(name, description, recipes, extra = {}) {
  return {
    name,
    description,
    target: 'core-image-minimal',
    bbFiles: 912,
    timeScale: 0.002,
    sizeScale: 0.002,
    recipes,
    ...extra,
  };
}

function satoLike() {
  const rs = small();
  rs.pop(); // the small image; sato-like has its own
  let seed = 7;
  const rnd = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const libc = ['gcc-cross-x86_64', 'quilt-native', 'glibc', 'gcc-runtime'];
  const nativeNames = [];
  for (let i = 0; i < 70; i++) {
    const pn = `native-tool${i}-native`;
    rs.push(recipe(pn, `1.${i}`, 'native', Math.round(2 + rnd() * 30), ['quilt-native']));
    nativeNames.push(pn);
  }
  const libs = [];
  for (let i = 0; i < 200; i++) {
    const mb = rnd() < 0.1 ? 50 + rnd() * 250 : 1 + rnd() * 25;
    const deps = [...libc, nativeNames[i % 70], ...libs.filter(() => rnd() < 0.015)];
    const pn = `sato-lib${i}`;
    rs.push(recipe(pn, `${1 + (i % 9)}.${i}`, 'target', Math.round(mb), deps));
    libs.push(pn);
  }
  rs.push(
    recipe('webkitgtk', '2.50.0', 'target', 6000, [...libc, ...libs.slice(0, 30)], {
      durations: { do_compile: 2400 },
    }),
  );
  for (let i = 0; i < 12; i++) rs.push(recipe(`packagegroup-sato-${i}`, '1.0', 'allarch', 0.1, []));
  const installs = rs.filter((r) => ['target', 'kernel', 'allarch'].includes(r.kind)).map((r) => r.pn);
  rs.push({ ...recipe('core-image-sato', '1.0', 'image', 900, ['opkg-utils-native'], { rdeps: installs }) });
  return rs;
}

const scenarios = [
  base(
    'small',
    'core-image-minimal from ~20 recipes: natives, cross gcc, glibc, a kernel, one image; a run takes seconds.',
    small(),
  ),
  base(
    'churn',
    'small, with do_package_qa objects never stored for zlib and busybox (SSTATE_SKIP_CREATION / a pruned cache): run three builds with rm_work; builds 2 and 3 restore do_package by setscene for nothing, build 2 re-runs do_package_write_ipk_setscene once per cleaned recipe.',
    small(),
    {
      sstateSkipCreation: [
        { pn: 'zlib', task: 'do_package_qa' },
        { pn: 'busybox', task: 'do_package_qa' },
      ],
    },
  ),
  base(
    'fail',
    'small, with busybox do_compile failing: the build stops there (-k continues with what does not need it).',
    small(),
    {
      fail: [{ pn: 'busybox', task: 'do_compile' }],
    },
  ),
  base(
    'version-bump',
    'small; from the second build on netbase is at 6.6, leaving the 6.5 WORKDIR behind.',
    small(),
    {
      versionBump: [{ pn: 'netbase', pv: '6.6', fromBuild: 2 }],
    },
  ),
  {
    ...base(
      'sato-like',
      'core-image-sato-like: ~300 recipes with realistic relative sizes (linux-yocto in work-shared, gcc-cross, a webkitgtk giant, many small ones); about a minute, under 2 GB at the default scales.',
      satoLike(),
    ),
    target: 'core-image-sato',
    bbFiles: 2240,
    timeScale: 0.009,
    sizeScale: 0.01,
  },
];
for (const s of scenarios)
  fs.writeFileSync(path.join(out, `${s.name}.json`), `${JSON.stringify(s, null, 1)}\n`);
console.log(`wrote ${scenarios.map((s) => s.name).join(', ')} to ${out}`);
