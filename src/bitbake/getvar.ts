// Asking BitBake itself: `bitbake-getvar --value VAR` prints the expanded value, or exits 1 with
// "The variable 'X' is not defined". It waits behind a running build (the server holds
// bitbake.lock), so it is never called while one runs. argv arrays only, never a shell.

import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';

/** The first executable `name` along PATH, as a shell would find it. */
export function whichSync(name: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export type GetvarAnswer = { defined: true; value: string } | { defined: false } | { failed: string };

export async function bitbakeGetvar(
  exe: string,
  name: string,
  opts: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number },
): Promise<GetvarAnswer> {
  const result = await execa(exe, ['--value', name], {
    cwd: opts.cwd,
    env: opts.env,
    extendEnv: false,
    reject: false,
    stdin: 'ignore',
    timeout: opts.timeoutMs ?? 120_000,
  });
  if (result.exitCode === 0) return { defined: true, value: result.stdout.replace(/\n$/, '') };
  const text = `${result.stderr}\n${result.stdout}`;
  if (/is not defined/.test(text)) return { defined: false };
  const first = text.split('\n').find((l) => l.trim() !== '') ?? `exit code ${result.exitCode}`;
  return { failed: first.trim() };
}
