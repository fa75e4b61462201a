import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

export interface ClientOptions {
  /** Any DynamoDB-compatible endpoint; absent means Amazon DynamoDB in `region`. */
  endpoint?: string | undefined;
  region: string;
  /** SDK retry budget; throttling errors are retried with the SDK's backoff. */
  maxAttempts?: number;
  /**
   * The environment names credentials (`AWS_ACCESS_KEY_ID` or `AWS_PROFILE`; src/boot/config.ts reads
   * it as `awsCredentialsInEnvironment`). Without them a custom endpoint gets dummy ones.
   */
  credentialsInEnvironment?: boolean;
}

/**
 * One document client per process: it owns the HTTP keep-alive pool, so it is created once and
 * reused by every request (and across Lambda invocations).
 *
 * A local endpoint needs no real credentials; dummy ones are supplied only when an endpoint is
 * given and the environment has none (`credentialsInEnvironment`, from the configuration), so
 * Amazon DynamoDB always uses the default provider chain.
 */
export function createDocumentClient(options: ClientOptions): DynamoDBDocumentClient {
  const config: DynamoDBClientConfig = {
    region: options.region,
    maxAttempts: options.maxAttempts ?? 5,
  };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    if (!options.credentialsInEnvironment) {
      config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
    }
  }
  return DynamoDBDocumentClient.from(new DynamoDBClient(config), {
    marshallOptions: { removeUndefinedValues: true },
  });
}
