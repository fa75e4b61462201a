/** Number formatting and design labels shared by the reports (report.ts, report-hedging.ts). */
import type { DesignName } from './results';

export const LABEL: Record<DesignName, string> = { singleTable: 'single table', multiTable: 'multi-table', raw: 'raw SDK + node:http' };

export function fmt(n: number | undefined, digits = 2): string {
  if (n === undefined || Number.isNaN(n)) return '—';
  if (Number.isInteger(n)) return String(n);
  const text = n.toFixed(digits);
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}

export function ratio(a: number | undefined, b: number | undefined): number | undefined {
  if (a === undefined || b === undefined || b === 0) return undefined;
  return Math.round((a / b) * 100) / 100;
}
