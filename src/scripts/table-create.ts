/**
 * `npm run table:create`: creates the table, GSI1 and TTL where missing, against
 * `DYNAMODB_ENDPOINT` or Amazon DynamoDB; changes nothing that exists.
 */
import { readConfig } from '../config';
import { createDocumentClient } from '../dynamo/client';
import { ensureTable } from '../dynamo/definition';

const config = readConfig();
const client = createDocumentClient({ endpoint: config.endpoint, region: config.region });
const result = await ensureTable(client, config.tableName);
const changes = [result.created && 'created the table with GSI1', result.indexAdded && 'added GSI1', result.ttlEnabled && 'enabled TTL on expiresAt'].filter(Boolean);
console.log(`table ${config.tableName} at ${config.endpoint ?? 'Amazon DynamoDB'}: ${changes.length ? changes.join(', ') : 'already as defined, nothing changed'}`);
client.destroy();
