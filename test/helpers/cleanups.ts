// Temp copies and mounts a test makes, undone after it, newest first (a mount inside a copy
// goes before the copy).

import { afterEach } from 'vitest';

export type Cleanup = () => void | Promise<void>;

/** A list to push cleanups on; registers the afterEach that runs and empties it. */
export function cleanupsAfterEach(): Cleanup[] {
  const list: Cleanup[] = [];
  afterEach(async () => {
    for (const c of list.splice(0).reverse()) await c();
  });
  return list;
}
