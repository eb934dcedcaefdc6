// Published figures used when no build has been measured yet. Each entry says where its number
// comes from and how sure it is: a first plan from these is a guess to be replaced by one
// measured build (`rambake run`).

import type { PlanScope } from './sizing-types.js';

const GiB = 2 ** 30;
const MiB = 2 ** 20;

export interface PublishedTarget {
  target: string;
  /** Peak bytes the target needs on the tmpfs, per scope, before the margin. */
  peak: Record<PlanScope, number>;
  /** Where the figures come from, one sentence per scope. */
  source: Record<PlanScope, string>;
  /** Memory per compile job when nothing was measured. */
  perJobBytes: number;
  perJobSource: string;
  /** Recipes known to be too big to share a small tmpfs. */
  giants: { pn: string; bytes: number; source: string }[];
  uncertainty: string;
}

const PER_JOB_C = 1 * GiB;
const PER_JOB_C_SOURCE = 'about 1 GiB per C/C++ compile job (estimate; no published figure)';
const PER_JOB_WEBKIT = 2 * GiB;
const PER_JOB_WEBKIT_SOURCE =
  'WebKit needs about 2 GB of RAM per compile job (published), taken as the ceiling';

const SATO: PublishedTarget = {
  target: 'core-image-sato',
  peak: { tmpdir: 22 * GiB, workdir: 12 * GiB },
  source: {
    tmpdir:
      'core-image-sato with rm_work ends with a 22 GiB TMPDIR (Yocto autobuilder, 2026); its peak was 14,230 MiB in 2017, and the manual asks for 39 GB free with rm_work including downloads and sstate, which stay on disk',
    workdir:
      '8 GB of tmpfs WORKDIR was enough for core-image-sato in 2013 (6 GB was too small: a kernel build almost fills it); +50% because builds grew since (TMPDIR peak 14 GiB in 2017, 22 GiB in 2026)',
  },
  perJobBytes: PER_JOB_WEBKIT,
  perJobSource: PER_JOB_WEBKIT_SOURCE,
  giants: [],
  uncertainty: 'published figures from other machines and releases: expect ±30%',
};

const TARGETS: PublishedTarget[] = [
  {
    target: 'core-image-minimal',
    peak: { tmpdir: 12 * GiB, workdir: 8 * GiB },
    source: {
      tmpdir:
        'no published figure for core-image-minimal: estimated at about half of core-image-sato (22 GiB), since the toolchain, glibc and the kernel (a few GB alone) dominate both',
      workdir:
        'estimated: a kernel build alone takes a few GB (a 6 GB tmpfs WORKDIR was almost filled by one in 2013)',
    },
    perJobBytes: PER_JOB_C,
    perJobSource: PER_JOB_C_SOURCE,
    giants: [],
    uncertainty: 'an estimate, not a measurement: expect ±50%',
  },
  SATO,
  {
    target: 'core-image-weston',
    peak: { tmpdir: 18 * GiB, workdir: 10 * GiB },
    source: {
      tmpdir:
        'no published figure for core-image-weston: estimated between core-image-minimal (12 GiB) and core-image-sato (22 GiB)',
      workdir: 'estimated between core-image-minimal and core-image-sato',
    },
    perJobBytes: PER_JOB_C,
    perJobSource: PER_JOB_C_SOURCE,
    giants: [],
    uncertainty: 'an estimate, not a measurement: expect ±50%',
  },
  {
    target: 'world',
    peak: { tmpdir: 48 * GiB, workdir: 32 * GiB },
    source: {
      tmpdir:
        "world builds' TMPDIR is 200-240 GB without rm_work; rm_work keeps about a fifth (core-image-sato: 22 GiB of 110 GiB), so about 48 GiB; in 2013 64 GB of RAM held a whole world build's TMPDIR",
      workdir: 'about two thirds of the TMPDIR estimate (estimate)',
    },
    perJobBytes: PER_JOB_WEBKIT,
    perJobSource: PER_JOB_WEBKIT_SOURCE,
    giants: [
      {
        pn: 'chromium-x11',
        bytes: 10 * GiB,
        source: 'chromium needs about 10 GB of build space (published)',
      },
      {
        pn: 'chromium-ozone-wayland',
        bytes: 10 * GiB,
        source: 'chromium needs about 10 GB of build space (published)',
      },
      {
        pn: 'webkitgtk',
        bytes: 4403 * MiB,
        source: "webkitgtk's -dbg package alone is 4.3 GB (published): its work dir is at least that",
      },
    ],
    uncertainty: 'world depends on the layers present: expect ±50%',
  },
];

/** The published entry for a target; unknown targets get core-image-sato's, with `matched` false. */
export function publishedFor(target: string | undefined): { entry: PublishedTarget; matched: boolean } {
  const name = target ?? SATO.target;
  const entry = TARGETS.find((t) => t.target === name);
  return entry ? { entry, matched: true } : { entry: SATO, matched: false };
}

export const PUBLISHED_TARGETS = TARGETS.map((t) => t.target);
