// Moving the old DEPLOY_DIR aside: a dated name beside it, the next free one when taken (rename
// would put a folder in place of an empty one of the same name), every file kept.

import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { asideName, dateStamp, moveAside } from '../../src/apply/deploy-aside.js';
import { moveAsideCommand } from '../../src/doctor/hazards.js';
import { cleanupsAfterEach } from '../helpers/cleanups.js';
import { tempDir } from '../helpers/exec.js';

const cleanups = cleanupsAfterEach();
const NOW = new Date('2026-12-03T14:32:05.678Z');

describe('moving an old DEPLOY_DIR aside', () => {
  it('stamps the UTC date and time', () => {
    expect(dateStamp(NOW)).toBe('20261203-143205');
  });

  it('never takes a name that exists, even an empty folder', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const deploy = join(dir.path, 'deploy');
    mkdirSync(join(deploy, 'images'), { recursive: true });
    writeFileSync(join(deploy, 'images', 'core-image.ext4'), 'image');
    mkdirSync(`${deploy}.old-20261203-143205`); // empty: rename(2) would replace it
    expect(await asideName(deploy, NOW)).toBe(`${deploy}.old-20261203-143205-2`);

    const to = await moveAside(deploy, NOW);
    expect(to).toBe(`${deploy}.old-20261203-143205-2`);
    expect(readFileSync(join(to, 'images', 'core-image.ext4'), 'utf8')).toBe('image');
    expect(readdirSync(`${deploy}.old-20261203-143205`)).toEqual([]);
    expect(readdirSync(dir.path).sort()).toEqual([
      'deploy.old-20261203-143205',
      'deploy.old-20261203-143205-2',
    ]);
  });
});

describe('the mv command doctor prints', () => {
  it('moves a folder with blanks, quotes and $(…) in its name when pasted into sh', async () => {
    const dir = tempDir();
    cleanups.push(dir.cleanup);
    const deploy = join(dir.path, "it's $(touch pwned) `x` dep loy");
    mkdirSync(deploy);
    writeFileSync(join(deploy, 'image'), 'kept');
    execFileSync('sh', ['-c', moveAsideCommand(deploy)], { cwd: dir.path });
    const names = readdirSync(dir.path);
    expect(names).toHaveLength(1);
    expect(names[0]).toMatch(/^it's \$\(touch pwned\) `x` dep loy\.old-\d{8}-\d{6}$/);
    expect(readFileSync(join(dir.path, names[0] ?? '', 'image'), 'utf8')).toBe('kept');
  });
});
