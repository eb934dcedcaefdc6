// The working colon form of an old-syntax name. In the old syntax `_` separated the overrides
// too, so `FOO_append_pn-bar` means "append, when pn-bar is active": the colon form is
// `FOO:append:pn-bar`. Turning only the keyword's `_` into `:` (`FOO:append_pn-bar`) gives a name
// BitBake accepts and never applies, so every `_` after the keyword becomes `:` as well.

const KEYWORD = /_(append|prepend|remove)(?=_|$)/;
/** A name part that reads as an override (lower case, digits, `-`) or a `${PN}`-style reference. */
const OVERRIDE_PART = /^(?:\$\{[^}]+\}|[a-z0-9][a-z0-9\-+.]*)$/;

/**
 * Examples: 'PACKAGECONFIG_append_pn-qemu-native' → 'PACKAGECONFIG:append:pn-qemu-native';
 * 'EXTRA_OECONF_class-native_remove' → 'EXTRA_OECONF:class-native:remove';
 * 'RDEPENDS_${PN}_append' → 'RDEPENDS:${PN}:append'; 'SRC_URI_append' → 'SRC_URI:append';
 * 'do_install_append' → 'do_install:append'; 'pkg_postinst_${PN}_append' → 'pkg_postinst:${PN}:append'.
 */
export function oldSyntaxFix(name: string): string {
  const m = KEYWORD.exec(name);
  if (!m) return name.replace(/_(append|prepend|remove)/, ':$1');
  const before = name.slice(0, m.index);
  const after = name.slice(m.index + m[0].length);
  const conditions = after.split(/[_:]/).filter((p) => p !== '');
  return [convertBase(before), m[1], ...conditions].join(':');
}

/**
 * The part before the keyword: its trailing override-like parts become `:` overrides. A name
 * made only of lower-case parts (a function such as `do_install`) keeps its `_`s, except before
 * a `${…}` reference.
 */
function convertBase(before: string): string {
  // Colons already written stay; only the last colon-separated piece can hold old overrides.
  const colon = before.lastIndexOf(':');
  const head = colon >= 0 ? before.slice(0, colon + 1) : '';
  const parts = before.slice(colon + 1).split('_');
  let baseEnd = parts.length;
  while (baseEnd > 1 && OVERRIDE_PART.test(parts[baseEnd - 1]!)) baseEnd--;
  if (baseEnd === 1 && OVERRIDE_PART.test(parts[0]!)) {
    // All lower case: a function or task name; only `${…}` parts are overrides.
    baseEnd = parts.length;
    while (baseEnd > 1 && parts[baseEnd - 1]!.startsWith('${')) baseEnd--;
  }
  return head + [parts.slice(0, baseEnd).join('_'), ...parts.slice(baseEnd)].join(':');
}
