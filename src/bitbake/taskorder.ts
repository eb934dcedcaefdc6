// `${T}/log.task_order`: one line per task start in that recipe's work directory.
// Times are the builder's local time (`%Y%m%d-%H%M%S.%f`), read here in this process's zone.

import { readText } from '../system/read-file.js';

export interface TaskOrderEntry {
  /** Epoch ms (fractional: microseconds kept). */
  time: number;
  /** `do_x` without `_setscene`. */
  task: string;
  setscene: boolean;
  pid: number;
  /** File name inside `${T}`, e.g. `log.do_compile.30150`. */
  logFile: string;
}

// '20251130-142627.570460 do_package_write_ipk (30150): log.do_package_write_ipk.30150'
//   → { time: <local 2025-11-30 14:26:27.570460>, task: 'do_package_write_ipk', pid: 30150, logFile: 'log.do_package_write_ipk.30150' }
const TASK_ORDER_LINE =
  /^(\d{4})(\d\d)(\d\d)-(\d\d)(\d\d)(\d\d)(?:\.(\d{1,6}))? (do_\S+) \((\d+)\): (\S+)\s*$/;

export function parseTaskOrderLine(line: string): TaskOrderEntry | undefined {
  const m = TASK_ORDER_LINE.exec(line);
  if (!m) return undefined;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as number[];
  const micros = Number((m[7] ?? '0').padEnd(6, '0'));
  const time = new Date(y!, mo! - 1, d!, h!, mi!, s!).getTime() + micros / 1000;
  const name = m[8]!;
  const setscene = name.endsWith('_setscene');
  return {
    time,
    task: setscene ? name.slice(0, -'_setscene'.length) : name,
    setscene,
    pid: Number(m[9]),
    logFile: m[10]!,
  };
}

export interface TaskOrder {
  entries: TaskOrderEntry[];
  /** Non-blank lines that did not parse (a torn last line while the task is starting). */
  skipped: string[];
}

export function parseTaskOrder(text: string): TaskOrder {
  const order: TaskOrder = { entries: [], skipped: [] };
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    const entry = parseTaskOrderLine(line);
    if (entry) order.entries.push(entry);
    else order.skipped.push(line);
  }
  return order;
}

/** Reads `<T>/log.task_order`; undefined when the file does not exist (rm_work keeps temp/). */
export async function readTaskOrder(path: string): Promise<TaskOrder | undefined> {
  const text = await readText(path, 'record');
  return text === undefined ? undefined : parseTaskOrder(text);
}
