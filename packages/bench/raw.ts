/**
 * The raw reference for the customer screen: the very `Query` the product sends for it (copied
 * at start-up from the explain extension of a real response: descending on `PK = CUSTOMER#id`,
 * the same `Limit`), sent straight with the same SDK document client, split by sort-key prefix and
 * serialised by hand into the same JSON the GraphQL server returns. A minimal `node:http`
 * endpoint that accepts the same POST body (it only reads `variables.id`), so it is measured the
 * same way. No GraphQL, no DataLoader, no validation beyond the id's shape: the floor that
 * GraphQL and the loaders add to.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface RawQueryShape {
  tableName: string;
  limit: number;
  scanIndexForward: boolean;
}

export interface RawServer {
  url: string;
  http: Server;
  close(): Promise<void>;
}

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;

/** The customer screen's one Query, as the raw endpoint sends it (and replay.ts records it). */
export function screenQuery(query: RawQueryShape, id: string): QueryCommand {
  return new QueryCommand({
    TableName: query.tableName,
    KeyConditionExpression: 'PK = :pk',
    ExpressionAttributeValues: { ':pk': `CUSTOMER#${id}` },
    ScanIndexForward: query.scanIndexForward,
    Limit: query.limit,
    ReturnConsumedCapacity: 'TOTAL',
  });
}
const ADDRESS_PREFIX = 'PROFILE#ADDRESS#';

export async function startRawServer(options: {
  doc: DynamoDBDocumentClient;
  query: RawQueryShape;
  ordersShown: number;
  port?: number;
}): Promise<RawServer> {
  const { doc, query, ordersShown } = options;
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      (async () => {
        let id: unknown;
        try {
          id = JSON.parse(Buffer.concat(chunks).toString('utf8'))?.variables?.id;
        } catch {
          /* below */
        }
        if (typeof id !== 'string' || !ULID.test(id)) {
          res.writeHead(400, { 'content-type': 'application/json' }).end('{"errors":[{"message":"bad id"}]}');
          return;
        }
        const out = await doc.send(screenQuery(query, id));
        const items = out.Items ?? [];
        let profile: Record<string, any> | undefined;
        const addresses: Array<Record<string, any>> = [];
        const orders: Array<Record<string, any>> = [];
        for (const item of items) {
          const sk = String(item.SK);
          if (sk === 'PROFILE') profile = item;
          else if (sk.startsWith(ADDRESS_PREFIX)) addresses.push(item);
          else if (sk.startsWith('ORDER#') && orders.length < ordersShown) orders.push(item);
        }
        let body: string;
        if (!profile) body = '{"data":{"customer":null}}';
        else {
          addresses.sort((a, b) => String(a.label).localeCompare(String(b.label)));
          body = JSON.stringify({
            data: {
              customer: {
                id: profile.id,
                name: profile.name,
                email: profile.email,
                createdAt: profile.createdAt,
                addresses: addresses.map((a) => ({
                  label: a.label,
                  street: a.street,
                  city: a.city,
                  postalCode: a.postalCode,
                  country: a.country,
                })),
                orders: { nodes: orders.map((o) => ({ id: o.id, placedAt: o.placedAt, status: o.status, totalCents: o.totalCents })) },
              },
            },
          });
        }
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) }).end(body);
      })().catch((error: unknown) => {
        console.error('[raw] request failed', error);
        if (!res.headersSent) res.writeHead(500);
        res.end();
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/customer`,
    http,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
    },
  };
}
