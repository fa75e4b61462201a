/**
 * The multi-table baseline's GraphQL server: the product's schema (`typeDefs()` from src/schema),
 * served over the four tables of `tables.ts` the way a competent team would:
 *
 * - per-operation DataLoaders (`access.ts`), so the customers of a page of orders are one
 *   BatchGetItem and a customer asked twice is read once;
 * - look-ahead on the root fields: `customer(id)` starts the addresses and orders reads it can see
 *   in its selection at the same time as the customer's GetItem (3 requests, 1 wave), and
 *   `order(id)` starts the lines Query with the order's GetItem (2 requests, 1 wave);
 *   `Order.customer` does the same for the customer's own children.
 *
 * Read-only: the benchmark measures reads; mutations are not implemented here.
 * Same HTTP integration as src/http/server.ts (node:http + `executeHTTPGraphQLRequest`), the same
 * execution (queries compiled by graphql-jit, src/http/execution.ts), production settings (no
 * introspection, no landing page, no stack traces).
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApolloServer, HeaderMap } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  GraphQLScalarType,
  Kind,
  getArgumentValues,
  isObjectType,
  type FieldNode,
  type GraphQLResolveInfo,
  type SelectionSetNode,
} from 'graphql';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { typeDefs, compiledExecution, type Hedger } from 'single-table-graphql';
import {
  createMultiLoaders,
  MultiTableStore,
  type CustomerRow,
  type MultiLoaders,
  type OrderPage,
  type OrderRow,
  type WindowArgs,
} from './access';

interface Ctx {
  loaders: MultiLoaders;
  store: MultiTableStore;
}

const DateTime = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  serialize: (value) => String(value),
  parseValue: (value) => String(value),
  parseLiteral: (ast) => (ast.kind === Kind.STRING ? ast.value : null) as string,
});

/** The fields selected under the field being resolved (fragments flattened). */
function selectedFields(info: GraphQLResolveInfo): FieldNode[] {
  const out: FieldNode[] = [];
  const visit = (set: SelectionSetNode | undefined) => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === Kind.FIELD) out.push(selection);
      else if (selection.kind === Kind.INLINE_FRAGMENT) visit(selection.selectionSet);
      else visit(info.fragments[selection.name.value]?.selectionSet);
    }
  };
  for (const node of info.fieldNodes) visit(node.selectionSet);
  return out;
}

function windowArgs(info: GraphQLResolveInfo, field: FieldNode): WindowArgs {
  const customerType = info.schema.getType('Customer');
  const definition = isObjectType(customerType) ? customerType.getFields().orders : undefined;
  return definition ? (getArgumentValues(definition, field, info.variableValues) as WindowArgs) : {};
}

/** Starts, in this tick, the reads of a customer's children that the selection asks for. */
function prefetchCustomerChildren(ctx: Ctx, info: GraphQLResolveInfo, customerId: string): void {
  for (const field of selectedFields(info)) {
    const name = field.name.value;
    // The promise is cached by the loader; the field resolver awaits it (and sees its error).
    if (name === 'addresses') ctx.loaders.addresses.load(customerId).catch(() => undefined);
    else if (name === 'orders') {
      let args: WindowArgs;
      try {
        args = windowArgs(info, field);
      } catch {
        continue;
      }
      ctx.loaders.customerOrders.load({ customerId, args }).catch(() => undefined);
    }
  }
}

const resolvers = {
  DateTime,
  Query: {
    async customer(_root: unknown, { id }: { id: string }, ctx: Ctx, info: GraphQLResolveInfo) {
      prefetchCustomerChildren(ctx, info, id);
      return ctx.loaders.customers.load(id);
    },
    async customerByEmail(_root: unknown, { email }: { email: string }, ctx: Ctx, info: GraphQLResolveInfo) {
      const customer = await ctx.store.customerByEmail(email);
      if (!customer) return null;
      ctx.loaders.customers.prime(customer.id, customer);
      prefetchCustomerChildren(ctx, info, customer.id);
      return customer;
    },
    async order(_root: unknown, { id }: { id: string }, ctx: Ctx, info: GraphQLResolveInfo) {
      if (selectedFields(info).some((field) => field.name.value === 'lines')) ctx.loaders.lines.load(id).catch(() => undefined);
      return ctx.loaders.orders.load(id);
    },
    ordersByStatus(_root: unknown, { status, first, after }: { status: string; first?: number; after?: string }, ctx: Ctx) {
      return ctx.store.ordersByStatus(status, { first: first ?? null, after: after ?? null });
    },
  },
  Customer: {
    addresses: (customer: CustomerRow, _args: unknown, ctx: Ctx) => ctx.loaders.addresses.load(customer.id),
    orders: (customer: CustomerRow, args: WindowArgs, ctx: Ctx) => ctx.loaders.customerOrders.load({ customerId: customer.id, args }),
  },
  Order: {
    async customer(order: OrderRow, _args: unknown, ctx: Ctx, info: GraphQLResolveInfo) {
      prefetchCustomerChildren(ctx, info, order.customerId);
      const customer = await ctx.loaders.customers.load(order.customerId);
      if (!customer) throw new Error(`order ${order.id} names customer ${order.customerId}, which does not exist`);
      return customer;
    },
    lines: (order: OrderRow, _args: unknown, ctx: Ctx) => ctx.loaders.lines.load(order.id),
  },
  OrderConnection: {
    nodes: (page: OrderPage) => page.orders,
    edges: (page: OrderPage) => page.orders.map((node, index) => ({ node, cursor: page.cursors[index] })),
    pageInfo: (page: OrderPage) => ({ hasNextPage: page.hasNextPage, endCursor: page.cursors.at(-1) ?? null }),
  },
};

export interface MultiTableServer {
  url: string;
  http: Server;
  close(): Promise<void>;
}

export async function startMultiTableServer(options: {
  doc: DynamoDBDocumentClient;
  /** Hedges every read through the product's mechanism (src/dynamo/hedge.ts); default none. */
  hedger?: Hedger | undefined;
  /** The status index's shards (the product's `STATUS_SHARDS`); 1 or absent: unsharded. */
  statusShards?: number | undefined;
  port?: number;
  host?: string;
}): Promise<MultiTableServer> {
  const store = new MultiTableStore(options.doc, options.hedger, options.statusShards);
  const apollo = new ApolloServer<Ctx>({
    // The product's execution engine too (src/http/execution.ts): the comparison is of designs, not of engines.
    gateway: compiledExecution(makeExecutableSchema({ typeDefs: typeDefs(), resolvers })),
    introspection: false,
    includeStacktraceInErrorResponses: false,
    plugins: [ApolloServerPluginLandingPageDisabled()],
  });
  await apollo.start();
  const http = createServer((req, res) => {
    (async () => {
      const body = await readBody(req);
      const headers = new HeaderMap();
      for (const [name, value] of Object.entries(req.headers))
        if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
      let parsed: unknown = body;
      if (body.length > 0 && headers.get('content-type')?.startsWith('application/json')) {
        try {
          parsed = JSON.parse(body);
        } catch {
          /* Apollo answers 400 */
        }
      }
      const response = await apollo.executeHTTPGraphQLRequest({
        httpGraphQLRequest: {
          method: (req.method ?? 'GET').toUpperCase(),
          headers,
          search: new URL(req.url ?? '/', 'http://x').search,
          body: parsed,
        },
        context: async () => ({ store, loaders: createMultiLoaders(store) }),
      });
      for (const [name, value] of response.headers) res.setHeader(name, value);
      res.statusCode = response.status ?? 200;
      if (response.body.kind === 'complete') res.end(response.body.string);
      else {
        for await (const chunk of response.body.asyncIterator) res.write(chunk);
        res.end();
      }
    })().catch((error: unknown) => {
      console.error('[multi-table] request failed', error);
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    http.once('error', reject);
    http.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    http,
    async close() {
      await new Promise<void>((resolve) => {
        http.close(() => resolve());
        http.closeAllConnections();
      });
      await apollo.stop();
    },
  };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}
