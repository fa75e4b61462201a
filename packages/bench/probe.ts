/** The customer-screen Query the product really sends, read at start-up from its explain extension (for raw.ts). */
import { post } from './measure';
import { body, QUERIES } from './scenarios';
import type { RawQueryShape } from './raw';

export const TABLE_NAME = 'app';

/** The customer-screen Query the product really sends, read from its explain extension. */
export async function probeProductQuery(
  url: string,
  customerId: string,
  headers: Record<string, string>,
): Promise<{ shape: RawQueryShape; explain: unknown }> {
  const answer = await post(url, body(QUERIES.customer, { id: customerId }), { 'x-explain': '1', ...headers });
  const parsed = JSON.parse(answer.text) as {
    extensions?: { dynamodb?: { requests?: Array<{ operation: string; keyCondition: string | null }> } };
  };
  const requests = parsed.extensions?.dynamodb?.requests ?? [];
  const query = requests.find((r) => r.operation === 'Query' && r.keyCondition?.startsWith('PK = "CUSTOMER#'));
  const match = query?.keyCondition ? /\((ascending|descending)(?:, Limit (\d+))?/.exec(query.keyCondition) : null;
  if (!match || !match[2])
    throw new Error(`could not read the customer-screen Query from the explain extension: ${answer.text.slice(0, 500)}`);
  return {
    shape: { tableName: TABLE_NAME, scanIndexForward: match[1] === 'ascending', limit: Number(match[2]) },
    explain: parsed.extensions?.dynamodb,
  };
}
