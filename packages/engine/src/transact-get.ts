/**
 * TransactGetItems, once validated (transaction-requests.ts) and with the engine's lock held
 * shared: dynalite's own GetItem (key checks, projection) runs for each Get; since no write can
 * land between the reads, the responses are one consistent snapshot. Charged as a transactional
 * read (twice a strongly consistent read) per item, per table (transaction-capacity.ts).
 */
import { db, loadAction, runAction, type Item, type Store } from './dynalite-internals';
import { consumedCapacity, emptyTableCapacity } from './transaction-capacity';
import { loadTables, rejectMultipleOperationsOnOneItem, tableOf, type TransactGetRequest } from './transaction-requests';

const GET_ACTION = loadAction('GetItem');

/**
 * Runs dynalite's GetItem (key checks, projection) for each Get. Holding the shared lock, no write
 * can land between the reads: the responses are one consistent snapshot.
 */
export async function executeTransactGet(store: Store, request: TransactGetRequest): Promise<unknown> {
  const { gets } = request;
  const tables = await loadTables(
    store,
    gets.map((get) => get.TableName),
  );
  const keys = gets.map((get) => {
    const table = tableOf(tables, get);
    const invalid = db.validateKey(get.Key as Item, table);
    if (invalid) throw invalid;
    return `${get.TableName}\u0000${db.createKey(get.Key as Item, table)}`;
  });
  rejectMultipleOperationsOnOneItem(keys);

  // ConsistentRead + TOTAL make dynalite report a strongly consistent read's units (1 per 4 KB).
  const answers = await Promise.all(
    gets.map((get) =>
      runAction<{ Item?: Item; ConsumedCapacity: { CapacityUnits: number } }>(GET_ACTION, store, {
        ...get,
        ConsistentRead: true,
        ReturnConsumedCapacity: 'TOTAL',
      }),
    ),
  );

  const result: Record<string, unknown> = {
    Responses: answers.map((answer) => (answer.Item ? { Item: answer.Item } : {})),
  };
  const consumed = consumedCapacity(
    request.returnConsumedCapacity,
    'ReadCapacityUnits',
    gets.map((get, i) => {
      const capacity = emptyTableCapacity();
      capacity.table = 2 * (answers[i] as (typeof answers)[number]).ConsumedCapacity.CapacityUnits;
      return { tableName: get.TableName, capacity };
    }),
  );
  if (consumed) result.ConsumedCapacity = consumed;
  return result;
}
