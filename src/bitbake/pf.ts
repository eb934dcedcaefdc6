// PF is `${PN}-${EXTENDPE}${PV}-${PR}` (EXTENDPE is `<PE>_` when PE is set). BitBake never
// stores the parts apart in buildstats, so they are recovered the way OE's own buildstats
// scripts do: PR after the last '-', then PV from the last '-<digit>' of what remains (the
// name is matched greedily), falling back to "after the last '-'" when no part starts with a
// digit.

export interface PFParts {
  pn: string;
  /** PE, when the PF carries an `<epoch>_` before the version. */
  pe?: string;
  pv: string;
  pr: string;
}

// 'gcc-cross-x86_64-14.2.0' → pn 'gcc-cross-x86_64', pv '14.2.0'; '1_2.3' → pe '1', pv '2.3'
const NAME_DIGIT_VERSION = /^(\S+)-(?:(\d{1,5})_)?(\d\S*)$/;
// 'foo-git' → pn 'foo', pv 'git'
const NAME_ANY_VERSION = /^(\S+)-(?:(\d{1,5})_)?([^-]+)$/;

/** Splits a PF such as `linux-yocto-6.12.9+git-r0` into `{ pn, pv, pr }`. */
export function splitPF(pf: string): PFParts {
  const dash = pf.lastIndexOf('-');
  if (dash <= 0) return { pn: pf, pv: '', pr: '' };
  const pr = pf.slice(dash + 1);
  const nameVersion = pf.slice(0, dash);
  const m = NAME_DIGIT_VERSION.exec(nameVersion) ?? NAME_ANY_VERSION.exec(nameVersion);
  if (!m) return { pn: nameVersion, pv: '', pr };
  const parts: PFParts = { pn: m[1]!, pv: m[3]!, pr };
  if (m[2] !== undefined) parts.pe = m[2];
  return parts;
}
