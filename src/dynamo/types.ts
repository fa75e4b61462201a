/** The shapes the seam and its callers share (re-exported by table.ts). */
export type Item = Record<string, unknown>;
export type Key = { PK: string; SK: string };
