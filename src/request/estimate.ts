/**
 * The cost of an operation as admission computes it (src/admission/cost.ts) before it runs, and
 * as the request's context carries it (`Context.cost`) to the log line and the plan.
 */
export interface OperationEstimate {
  /** Upper bound of the items read (Query, GetItem, BatchGetItem), whatever the data. */
  reads: number;
  /** `reads` + 1 per resolved object-typed field: what `maxCost` and the read quota count. */
  cost: number;
  /** Upper bound of the items written (the write quota). */
  writes: number;
  /**
   * A subscription's start: an upper bound of the items its root field's `subscribe` reads before
   * the first event (`SUBSCRIBE_READS`); `reads` and `cost` are then per event. 0 for a query or mutation.
   */
  startReads: number;
  /** What the start takes from the read quota: `startReads` (the start sends no response, so nothing more). */
  startCost: number;
  /** Root fields of a mutation (limited by `LIMITS.maxMutationFields`). */
  mutationFields: number;
  /** Root fields that are not introspection (`__schema`, `__type`, `__typename`). */
  dataFields: number;
}
