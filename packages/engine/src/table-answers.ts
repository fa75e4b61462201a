/**
 * CreateTable's and DeleteTable's answers as Amazon gives them, where dynalite 4.0.0 did not (cases
 * of ScyllaDB's Alternator suite, run against Amazon: test_create_table_already_exists,
 * test_delete_table_description):
 *
 * - CreateTable of a table that exists: ResourceInUseException "Table already exists: <name>"
 *   (dynalite's message was empty).
 * - DeleteTable's TableDescription leaves out `KeySchema`, `AttributeDefinitions` and
 *   `CreationDateTime`, which Amazon does not send for a table being deleted.
 */
import { isApiError } from './errors';
import type { OperationHandler } from './operation';

/** CreateTable's handler, its refusal of an existing table worded as Amazon's. */
export function namingExistingTable(handler: OperationHandler): OperationHandler {
  return {
    ...handler,
    execute: async (data: { TableName: string }) => {
      try {
        return await handler.execute(data);
      } catch (err) {
        if (isApiError(err) && err.body.__type.endsWith('#ResourceInUseException') && !err.body.message) {
          err.body.message = `Table already exists: ${data.TableName}`;
        }
        throw err;
      }
    },
  };
}

/** DeleteTable's answer without the members Amazon leaves out of a deleted table's description. */
export function deletedTableAnswer(result: unknown): unknown {
  const description = (result as { TableDescription?: Record<string, unknown> } | undefined)?.TableDescription;
  if (!description) return result;
  const { KeySchema: _keys, AttributeDefinitions: _definitions, CreationDateTime: _created, ...kept } = description;
  return { ...(result as object), TableDescription: kept };
}
