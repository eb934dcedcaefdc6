// Scenario files: test/fake-bitbake/scenarios/<name>.json.

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Scenario } from './types.js';

/** scenarios/ beside src/ and dist/. */
export const SCENARIO_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'scenarios');

export function readScenario(name: string, dir = SCENARIO_DIR): Scenario {
  const file = path.join(dir, `${name}.json`);
  if (!fs.existsSync(file)) {
    const known = fs
      .readdirSync(dir)
      .filter((f) => f.endsWith('.json'))
      .map((f) => f.slice(0, -5));
    throw new Error(`unknown scenario '${name}' (known: ${known.join(', ')})`);
  }
  return JSON.parse(fs.readFileSync(file, 'utf8')) as Scenario;
}
