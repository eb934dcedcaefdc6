// The one function that puts words into shell text, for every command rambake prints or
// writes (mount lines, `bitbake …`, `rambake run --steps …`, the CI ramdisk script).

/**
 * One word as sh reads it: plain when it is only safe characters, else single-quoted with each
 * `'` closed, escaped and reopened (`it's` → `'it'\''s'`). Nothing inside single quotes is
 * special to sh, so `$(…)`, backquotes, `"`, `\` and blanks stay literal.
 */
export function quoteShellWord(word: string): string {
  if (word !== '' && /^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replaceAll("'", "'\\''")}'`;
}

/** A command line for a person to paste: every word through quoteShellWord. */
export function renderShellCommand(argv: readonly string[]): string {
  return argv.map(quoteShellWord).join(' ');
}
