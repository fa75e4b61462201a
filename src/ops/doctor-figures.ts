/**
 * The doctor's figures: capacity units, rounding and the human formats of counts, shares and sizes,
 * and the code-unit string order that keeps the report stable whatever order the Scan's segments
 * deliver items in. Pure functions, shared by the analysis and the rendering.
 */

/** Code-unit order, as DynamoDB orders string keys (for these ASCII keys), and independent of locale. */
export function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** RCU of one eventually consistent read of `size` bytes (4 KB units, halved). */
export function readUnits(size: number): number {
  return Math.max(0.5, Math.ceil(size / 4096) / 2);
}

export function round1(value: number): number {
  return Math.round(value * 10) / 10;
}

export function round4(value: number): number {
  return Math.round(value * 10000) / 10000;
}

export function pct(share: number): string {
  return `${(share * 100).toFixed(1)}%`;
}

export function num(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

export function bytes(value: number): string {
  if (value < 1024) return `${value} B`;
  if (value < 1024 * 1024) return `${(value / 1024).toFixed(1)} KB`;
  if (value < 1024 ** 3) return `${(value / 1024 / 1024).toFixed(1)} MB`;
  return `${(value / 1024 ** 3).toFixed(2)} GB`;
}

export function clip(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
