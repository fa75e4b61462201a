/**
 * `ReturnValues` as DynamoDB answers them: a write whose requested attributes are none (UPDATED_OLD
 * of attributes the item did not have, UPDATED_NEW of attributes the update removed) answers
 * without an `Attributes` field. dynalite answered `Attributes: {}`, which a client reading
 * `"Attributes" in response` for "there was something" takes for a value.
 */
import type { Action } from 'dynalite/db/index.js';

/** `write` (PutItem, UpdateItem or DeleteItem), its answer without an empty `Attributes`. */
export function withoutEmptyAttributes(write: Action): Action {
  return (store, data, cb) =>
    write(store, data, (err, result) => {
      const answer = result as { Attributes?: Record<string, unknown> } | undefined;
      if (!err && answer?.Attributes && Object.keys(answer.Attributes).length === 0) delete answer.Attributes;
      cb(err, result);
    });
}
