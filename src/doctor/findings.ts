// A finding: something rambake checked, with what to do about it.

import type { Severity } from '../bitbake/conf/types.js';

export interface Finding {
  id: string;
  severity: Severity;
  message: string;
  file?: string;
  line?: number;
  fix: string;
}

const ORDER: Record<Severity, number> = { error: 0, warning: 1, info: 2 };

export function sortFindings(findings: Finding[]): Finding[] {
  return [...findings].sort((a, b) => ORDER[a.severity] - ORDER[b.severity] || a.id.localeCompare(b.id));
}

export const hasErrors = (findings: Finding[]) => findings.some((f) => f.severity === 'error');
