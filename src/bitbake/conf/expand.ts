// Text helpers for `${VAR}` expansion. The loop that looks variables up lives in the datastore;
// these only find and replace references, in linear time.

/** `${NAME}` with BitBake's reference name characters (no `{`, `}`, `$`, `@` inside). */
// Example: 'a${TMPDIR}/b' → one match, name `TMPDIR`.
const VAR_REF = /\$\{([A-Za-z0-9\-_+./~:]+)\}/g;

/** Replace every innermost `${NAME}` through `lookup`; undefined keeps the reference as written. */
export function replaceVarRefs(text: string, lookup: (name: string) => string | undefined): string {
  if (!text.includes('${')) return text;
  return text.replace(VAR_REF, (whole: string, name: string) => lookup(name) ?? whole);
}

/**
 * Limits on one expansion, so that three hostile lines cannot hang or exhaust memory.
 * Depth: BitBake itself fails near 240 nested references (Python's recursion limit, "Failure
 * expanding variable C241 … RecursionError" on BitBake 2.15), so 256 never refuses a conf
 * BitBake reads. Length: real values (`bitbake -e` over poky) stay under 100 kB; 4 Mi characters
 * is far above that and far below V8's string limit, which a 30-level doubling chain reaches.
 */
export const MAX_EXPANSION_DEPTH = 256;
export const MAX_EXPANDED_LENGTH = 4 * 1024 * 1024;

/**
 * Thrown from the innermost failing reference (a cycle, too deep, too long) up to the outermost
 * read, which records the failure: BitBake stops the whole expansion there too (ExpansionError).
 */
export class ExpansionStopped extends Error {}

/** Names of the `${NAME}` references still in `text` (after expansion: the undefined ones). */
export function listVarRefs(text: string): string[] {
  if (!text.includes('${')) return [];
  const names = new Set<string>();
  for (const m of text.matchAll(VAR_REF)) names.add(m[1]!);
  return [...names];
}

/** `${@…}` inline Python: rambake never runs it, so such a value needs BitBake to know. */
export function hasInlinePython(text: string): boolean {
  return text.includes('${@');
}

/**
 * Remove whole words the way BitBake's `:remove` does: split on single blank characters, keep
 * the blanks, drop the words listed. Example: ('a b c', {'b'}) → 'a  c' (two blanks stay).
 */
export function removeWords(value: string, words: ReadonlySet<string>): string {
  if (words.size === 0) return value;
  return value
    .split(/(\s)/)
    .filter((part) => !words.has(part))
    .join('');
}

/** Split on blanks, dropping empty words (Python's `str.split()`). */
export function splitWords(text: string | undefined): string[] {
  if (!text) return [];
  return text.split(/\s+/).filter((w) => w !== '');
}
