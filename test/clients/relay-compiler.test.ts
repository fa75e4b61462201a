/**
 * Relay can use the schema: the real `relay-compiler` (21) compiles, against the committed
 * snapshot `schema.graphql`, a customer fragment paging its orders with `@connection` and
 * `@refetchable` (so a Node interface and `node(id:)`, and a PageInfo with `startCursor` and
 * `hasPreviousPage`), and a `@refetchable` order fragment. The same fragments fail against the
 * brief's contract alone, which had neither, and a broken fragment fails: the check is not vacuous.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const repo = resolve(import.meta.dirname, '../..');
const compiler = join(repo, 'node_modules/.bin/relay-compiler');
const projects: string[] = [];

const CUSTOMER_SCREEN = `
  fragment CustomerScreen_customer on Customer
  @refetchable(queryName: "CustomerScreenOrdersPaginationQuery")
  @argumentDefinitions(count: { type: "Int", defaultValue: 5 }, cursor: { type: "String" }) {
    id
    name
    addresses { id label city }
    orders(first: $count, after: $cursor) @connection(key: "CustomerScreen_orders") {
      edges { node { id placedAt status totalCents } }
    }
  }
`;
const ORDER_CARD = `
  fragment CustomerScreen_order on Order @refetchable(queryName: "OrderCardRefetchQuery") {
    id
    status
    totalCents
  }
`;

/** A tiny Relay project in a temporary directory: its config names `schema`, its one source file holds `fragments`. */
function compile(schema: string, fragments: readonly string[]): { status: number | null; output: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'relay-'));
  projects.push(dir);
  mkdirSync(join(dir, 'src'));
  writeFileSync(join(dir, 'relay.config.json'), JSON.stringify({ src: './src', schema: relative(dir, schema), language: 'typescript' }));
  const source = fragments.map((text, i) => `export const fragment${i} = graphql\`${text}\`;`).join('\n');
  writeFileSync(join(dir, 'src/CustomerScreen.ts'), `declare function graphql(text: TemplateStringsArray): unknown;\n${source}\n`);
  const run = spawnSync(compiler, [], { cwd: dir, encoding: 'utf8', timeout: 60_000 });
  return { status: run.status, output: `${run.stdout}${run.stderr}`, dir };
}

afterAll(() => {
  for (const dir of projects) rmSync(dir, { recursive: true, force: true });
});

describe('relay-compiler against schema.graphql', () => {
  it('compiles a @connection fragment and @refetchable fragments, generating their artifacts', () => {
    const { status, output, dir } = compile(join(repo, 'schema.graphql'), [CUSTOMER_SCREEN, ORDER_CARD]);
    expect(status, output).toBe(0);
    const generated = join(dir, 'src/__generated__');
    for (const artifact of [
      'CustomerScreen_customer.graphql.ts',
      'CustomerScreenOrdersPaginationQuery.graphql.ts',
      'CustomerScreen_order.graphql.ts',
      'OrderCardRefetchQuery.graphql.ts',
    ])
      expect(existsSync(join(generated, artifact)), artifact).toBe(true);
    // The refetch query goes through node(id:), and the connection pages with the complete PageInfo.
    const pagination = readFileSync(join(generated, 'CustomerScreenOrdersPaginationQuery.graphql.ts'), 'utf8');
    expect(pagination).toContain('node(id: $id)');
    expect(pagination).toMatch(/pageInfo \{\\n\s+endCursor\\n\s+hasNextPage\\n\s+\}/);
  });

  it("fails against the brief's contract alone, whose PageInfo lacks startCursor and hasPreviousPage", () => {
    const { status, output } = compile(join(repo, 'test/contract/brief-contract.graphql'), [
      CUSTOMER_SCREEN.replace('addresses { id', 'addresses {'),
    ]);
    expect(status).not.toBe(0);
    expect(output).toContain("to expose a 'pageInfo { hasPreviousPage }' field");
    expect(output).toContain("to expose a 'pageInfo { startCursor }' field");
  });

  it('fails on a broken fragment (a connection that is not one, a field that does not exist)', () => {
    const notAConnection = `fragment CustomerScreen_addresses on Customer { addresses @connection(key: "CustomerScreen_addresses") { id } }`;
    expect(compile(join(repo, 'schema.graphql'), [notAConnection]).status).not.toBe(0);
    const unknownField = `fragment CustomerScreen_customer on Customer { id nickname }`;
    const { status, output } = compile(join(repo, 'schema.graphql'), [unknownField]);
    expect(status).not.toBe(0);
    expect(output).toContain('nickname');
  });
});
