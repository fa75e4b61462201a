/**
 * DynamoDB answered from memory, for `npm run bench:pipeline` (pipeline.ts): each customer screen's
 * `Query` is sent once to the engine and its answer recorded; the servers under test then get a
 * client that answers the same `Query` with a copy of that answer, without the SDK, a socket or
 * the engine. What remains of a server's CPU is what it adds around its one DynamoDB call: HTTP,
 * GraphQL, the loaders and codecs (the product), or the hand-written split and JSON (raw.ts).
 *
 * Not a DynamoDB: it answers only the recorded customer-screen query (the key, `Limit` and
 * direction recorded) and throws on anything else, so a server that asked for more would fail the run.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { QueryCommand, type DynamoDBDocumentClient, type QueryCommandOutput } from '@aws-sdk/lib-dynamodb';
import { screenQuery, type RawQueryShape } from './raw';

export interface Recording {
  shape: RawQueryShape;
  /** The answer to the screen's Query, by partition key (`CUSTOMER#<id>`), without `$metadata`. */
  answers: Record<string, Omit<QueryCommandOutput, '$metadata'>>;
}

/** Sends the customer screen's Query (`shape`) for each id through `doc` and writes the answers to `file`. */
export async function recordScreens(doc: DynamoDBDocumentClient, shape: RawQueryShape, ids: readonly string[], file: string) {
  const answers: Recording['answers'] = {};
  for (const id of ids) {
    const command = screenQuery(shape, id);
    const pk = command.input.ExpressionAttributeValues![':pk'] as string;
    const { $metadata: _, ...answer } = await doc.send(command);
    if (answer.LastEvaluatedKey && (answer.Count ?? 0) < shape.limit)
      throw new Error(`${pk}: a short page; not a screen replay can answer`);
    answers[pk] = answer;
  }
  writeFileSync(file, JSON.stringify({ shape, answers } satisfies Recording));
}

/** A document client that answers the recorded queries (a fresh copy of the items each time) and refuses anything else. */
export function replayClient(file: string): DynamoDBDocumentClient {
  const { shape, answers } = JSON.parse(readFileSync(file, 'utf8')) as Recording;
  const send = async (command: unknown) => {
    const input = (command as QueryCommand).input;
    const pk = input?.ExpressionAttributeValues?.[':pk'];
    const answer = typeof pk === 'string' ? answers[pk] : undefined;
    const same =
      command instanceof QueryCommand &&
      input.IndexName === undefined &&
      input.ExclusiveStartKey === undefined &&
      input.Limit === shape.limit &&
      (input.ScanIndexForward ?? true) === shape.scanIndexForward;
    if (!answer || !same) throw new Error(`replay: not a recorded customer-screen Query: ${JSON.stringify(input)}`);
    return { ...answer, Items: answer.Items?.map((item) => ({ ...item })), $metadata: {} };
  };
  return { send, destroy() {} } as unknown as DynamoDBDocumentClient;
}
