// The one rule for a TMPDIR path, shared by `plan`/`apply` (a --path that cannot be TMPDIR is
// refused before anything is written or mounted) and `doctor` (a TMPDIR already set that way).

/** BitBake's own length limit for TMPDIR (sanity.bbclass: check_path_length(tmpdir, "TMPDIR", 400)). */
export const MAX_TMPDIR_LENGTH = 400;

/**
 * What BitBake's sanity.bbclass refuses in TMPDIR, checked at every build: `..` anywhere
 * (`val.find('..')`, not only as a folder name), `+`, `@`, `%`, a space, a leading `~` (never
 * expanded), more than 400 characters; and the root folder itself.
 * Example: '/b/tmp+x' → ['"+"']; '/b/tmp' → [].
 */
export function sanityProblems(path: string): string[] {
  const bad: string[] = [];
  if (path.includes('..')) bad.push('".."');
  for (const ch of ['+', '@', '%']) if (path.includes(ch)) bad.push(`"${ch}"`);
  if (path.includes(' ')) bad.push('a space');
  if (path.startsWith('~')) bad.push('a leading "~" (BitBake does not expand it)');
  if (path === '/') bad.push('the root folder');
  if (path.length > MAX_TMPDIR_LENGTH)
    bad.push(`${path.length} characters (BitBake allows ${MAX_TMPDIR_LENGTH})`);
  return bad;
}

/**
 * What cannot go between the quotes of `TMPDIR = "…"` in the managed block: a `"` ends the value
 * (BitBake refuses the line), `$` starts an expansion (`${MACHINE}` would point TMPDIR at another
 * folder than the one mounted), `\` continues or escapes, a line break ends the statement.
 * Example: '/b/${MACHINE}' → ['"$"'].
 */
export function blockValueProblems(path: string): string[] {
  const bad: string[] = [];
  if (path.includes('"')) bad.push('a double quote');
  if (path.includes('$')) bad.push('"$"');
  if (path.includes('\\')) bad.push('a backslash');
  if (/[\n\r]/.test(path)) bad.push('a line break');
  return bad;
}

/** Linux's limits on a path the kernel will look up: PATH_MAX (4096 with its NUL) and NAME_MAX. */
const PATH_MAX_BYTES = 4095;
const NAME_MAX_BYTES = 255;

/**
 * Why no file system call can take `path` (each one fails with ENAMETOOLONG), or undefined.
 * Example: '/' + 'x'.repeat(4999) → 'is 5000 bytes long: …'; '/b/tmp' → undefined.
 */
export function pathLengthProblem(path: string): string | undefined {
  const bytes = Buffer.byteLength(path);
  if (bytes > PATH_MAX_BYTES)
    return `is ${bytes} bytes long: Linux takes no path over ${PATH_MAX_BYTES} bytes (PATH_MAX)`;
  const longest = Math.max(...path.split('/').map((name) => Buffer.byteLength(name)));
  if (longest > NAME_MAX_BYTES)
    return `has a ${longest}-byte folder name: Linux takes none over ${NAME_MAX_BYTES} bytes (NAME_MAX)`;
  return undefined;
}
