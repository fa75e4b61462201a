/**
 * The docs' examples run in order, as written, as a new user runs them: against `npm start`'s demo
 * data, with Ana's token (the one `npm start` prints). The customer screen of docs/development.md,
 * then every mutation the pages show: docs/frontend.md's placeOrder with its variables, then its
 * curl command (the same cart: a replay, the same order back, not a CONFLICT), then docs/model.md's
 * (another cart). The text is read from the pages, so an edited example is the one tested.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStack, type Stack } from './support/stack';
import { bearer, tokens } from './support/auth';
import { loadDemoData } from '../src/ops/demo-data';

/** The code blocks of one language in a page (or in one of its sections), in order. */
function blocks(page: string, language: string, section?: string): string[] {
  let text = readFileSync(new URL(`../docs/${page}`, import.meta.url), 'utf8');
  if (section) text = text.slice(text.indexOf(`## ${section}`), text.indexOf('\n## ', text.indexOf(`## ${section}`)));
  return [...text.matchAll(new RegExp('```' + language + '\\n([\\s\\S]*?)```', 'g'))].map((match) => match[1]!);
}

const SCREEN = blocks('development.md', 'graphql', 'Demo data and the customer screen')[0]!;
const [FRONTEND_MUTATION] = blocks('frontend.md', 'graphql', 'From a frontend');
const [FRONTEND_VARIABLES] = blocks('frontend.md', 'json', 'From a frontend');
const [FRONTEND_CURL] = blocks('frontend.md', 'sh', 'From a frontend');
const MODEL_MUTATION = blocks('model.md', 'graphql').find((block) => block.includes('placeOrder'))!;

let stack: Stack;
let ana: string;
beforeAll(async () => {
  stack = await startStack();
  ana = (await loadDemoData(stack.table)).customers[0]!;
}, 60_000);
afterAll(async () => {
  await stack?.close();
});

async function asAna(body: unknown): Promise<{ status: number; data?: any; errors?: unknown }> {
  const response = await fetch(stack.server.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...bearer(await tokens.customer(ana)) },
    body: JSON.stringify(body),
  });
  return { status: response.status, ...((await response.json()) as object) };
}

describe('the docs examples, in order, against the demo data as Ana', () => {
  let placed: { id: string; totalCents: number };

  it("docs/development.md: the customer screen shows Ana's profile, addresses and newest orders", async () => {
    const { status, data, errors } = await asAna({ query: SCREEN });
    expect({ status, errors }).toEqual({ status: 200, errors: undefined });
    expect(data.me).toMatchObject({ id: ana, name: 'Ana García', addresses: [{ city: 'Madrid' }, { city: 'Madrid' }] });
    expect(data.me.orders.edges).toHaveLength(5);
    expect(data.me.orders.pageInfo.hasNextPage).toBe(true);
  });

  it('docs/frontend.md: its placeOrder with its variables places an order', async () => {
    const { status, data, errors } = await asAna({ query: FRONTEND_MUTATION, variables: JSON.parse(FRONTEND_VARIABLES!) });
    expect({ status, errors }).toEqual({ status: 200, errors: undefined });
    expect(data.placeOrder).toMatchObject({
      status: 'PENDING',
      totalCents: 2500,
      lines: [{ sku: 'MUG-002', quantity: 2, unitPriceCents: 1250 }],
    });
    placed = data.placeOrder;
  });

  it('docs/frontend.md: its curl command, the same cart sent again, returns that same order', async () => {
    expect(FRONTEND_CURL).toMatch(
      /^curl -s http:\/\/localhost:4000\/graphql -H 'content-type: application\/json' -H "authorization: Bearer \$TOKEN" \\\n/,
    );
    const body = JSON.parse(/ -d '([^']*)'/.exec(FRONTEND_CURL!)![1]!);
    const { status, data, errors } = await asAna(body);
    expect({ status, errors }).toEqual({ status: 200, errors: undefined });
    expect(data.placeOrder).toEqual({ id: placed.id, totalCents: placed.totalCents });
  });

  it("docs/model.md: its placeOrder, another cart, places another order at the catalog's prices", async () => {
    const { status, data, errors } = await asAna({ query: MODEL_MUTATION });
    expect({ status, errors }).toEqual({ status: 200, errors: undefined });
    expect(data.placeOrder.id).not.toBe(placed.id);
    expect(data.placeOrder).toMatchObject({
      totalCents: 2 * 1250 + 499,
      lines: [
        { sku: 'MUG-002', quantity: 2, unitPriceCents: 1250 },
        { sku: 'PEN-004', quantity: 1, unitPriceCents: 499 },
      ],
    });
  });
});
