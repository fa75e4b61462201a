/**
 * The development explorer in a real browser: headless Chromium (test/support/browser.ts) at
 * 1440×900 opens `GET /graphql` of the real server over `npm start`'s demo data, pastes Ana's
 * token, runs the customer screen (the page's default query), opens the Table view, and the rows
 * it highlights must be exactly the items the DynamoDB requests on the wire returned: each Query
 * the engine received is replayed against the engine, and its items' keys compared with the
 * highlighted rows. Ana's partition is larger than her screen's Query reads, so the view also
 * draws rows it did not read. The page loads nothing from any other origin (no CDN: it works
 * offline), and its panes keep readable widths and move with the separator.
 *
 * With `SCREENSHOTS=<dir>` it saves the views there (`npm run screenshots` writes the README's
 * docs/images/table-view.png so); otherwise it saves nothing, so a test run changes no file.
 */
import { join } from 'node:path';
import { QueryCommand, type QueryCommandInput } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'puppeteer-core';
import { startStack, type Stack } from './support/stack';
import { tokens } from './support/auth';
import { closeChromium, launchChromium } from './support/browser';
import type { WireRequest } from '@single-table/engine';
import { ANA_ORDERS, loadDemoData } from '../src/ops/demo-data';

const SCREENSHOTS = process.env.SCREENSHOTS;
const VIEWPORT = { width: 1440, height: 900 };
/** The demo data as of a fixed day, so its dates (and a saved picture) do not move run to run. */
const DEMO_DAY = new Date('2026-11-30T10:00:00.000Z');

let stack: Stack;
let ANA: string;
let browser: Browser | undefined;
let page: Page;
const foreign: string[] = [];
const responses: any[] = [];

beforeAll(async () => {
  stack = await startStack();
  ANA = (await loadDemoData(stack.table, DEMO_DAY)).customers[0] as string;
  browser = await launchChromium();
  page = await browser.newPage();
  await page.setViewport({ ...VIEWPORT, deviceScaleFactor: 1 });
  const origin = new URL(stack.server.url).origin;
  page.on('request', (request) => {
    if (!request.url().startsWith(`${origin}/`) && !request.url().startsWith('data:')) foreign.push(request.url());
  });
  page.on('response', async (response) => {
    if (response.request().method() === 'POST' && response.url() === stack.server.url)
      responses.push(await response.json().catch(() => null));
  });
}, 90_000);

afterAll(async () => {
  await closeChromium(browser);
  await stack?.close();
}, 30_000);

async function until(condition: () => boolean, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The keys of the items a Query on the wire returns, asked again of the engine (the data has not changed). */
async function replay(request: WireRequest): Promise<string[]> {
  const { ReturnConsumedCapacity: _, ...input } = request.body as QueryCommandInput;
  const out = await stack.doc.send(new QueryCommand(input));
  return (out.Items ?? []).map((item) => `${item.PK?.S} ${item.SK?.S}`);
}

describe('the explorer (GET /graphql from a browser, development)', () => {
  it('runs the customer screen and highlights, in the Table view, exactly the items the wire returned', async () => {
    await page.goto(stack.server.url, { waitUntil: 'load', timeout: 30_000 });
    await page.waitForSelector('.graphiql-container .graphiql-execute-button', { timeout: 30_000 });
    await page.type('input[name="token"]', await tokens.customer(ANA));

    stack.engine.wire.reset();
    await page.click('.graphiql-execute-button');
    await until(() => responses.some((response) => response?.data?.me));
    const wire = stack.engine.wire.requests();
    const result = responses.at(-1);
    expect(result.data.me).toMatchObject({ id: ANA, name: 'Ana García' });
    expect(wire.map((request) => request.operation)).toEqual(['Query']); // the screen: one Query
    const plan = result.extensions.dynamodb;
    expect(plan.totals.requests).toBe(wire.length);

    await page.click('.explorer-toggle');
    await page.waitForSelector('[data-testid="table-view"] tr.hit', { timeout: 15_000 });
    await page.waitForFunction(
      () => document.querySelector('[data-testid="table-view"] .tv-state')?.getAttribute('data-loading') === 'false',
    );
    const highlighted = await page.$$eval('[data-testid="table-view"] tr.hit', (rows) =>
      rows.map((row) => `${row.getAttribute('data-pk')} ${row.getAttribute('data-sk')}`),
    );
    const unread = await page.$$eval('[data-testid="table-view"] tr.miss', (rows) => rows.map((row) => row.getAttribute('data-sk')));

    const onTheWire = (await Promise.all(wire.map(replay))).flat();
    expect(highlighted.sort()).toEqual([...onTheWire].sort());
    expect(highlighted).toHaveLength(plan.totals.items);
    // The rows around the read are drawn too, not highlighted: Ana's older orders the screen did not read.
    expect(plan.totals.items).toBeLessThan(1 + 2 + ANA_ORDERS);
    expect(unread.length).toBeGreaterThan(0);
    expect(unread.every((sk) => sk?.startsWith('ORDER#'))).toBe(true);
    expect(foreign).toEqual([]);

    // The README's picture: nothing focused or hovered, no transition midway, and no fold markers
    // (CodeMirror draws them a variable moment after the response), so it is the same run after run.
    await page.addStyleTag({
      content:
        '*, *::before, *::after { transition: none !important; animation: none !important; } .CodeMirror-foldgutter-open::after, .CodeMirror-foldgutter-folded::after { visibility: hidden; }',
    });
    await page.mouse.move(0, VIEWPORT.height - 1);
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await new Promise((resolve) => setTimeout(resolve, 250));
    if (SCREENSHOTS) await page.screenshot({ path: join(SCREENSHOTS, 'table-view.png') as `${string}.png` });
  }, 90_000);

  it('draws a mutation as the items of its transaction, and links to Apollo Sandbox for this endpoint', async () => {
    // The page of the test above: Ana's token typed, the Table view open.
    const mutation = `mutation AddBeach { putAddress(customerId: "${ANA}", input: { label: "beach", street: "Playa 3", city: "Cádiz", postalCode: "11001", country: "ES" }) { label } }`;
    await page.evaluate((text) => {
      const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as {
        CodeMirror: { setValue(v: string): void };
      };
      editor.CodeMirror.setValue(text);
    }, mutation);
    // GraphiQL takes the operation's name from the editor after a moment; the tab shows it then.
    await page.waitForFunction(() => document.querySelector('.graphiql-tabs')?.textContent?.includes('AddBeach'), { timeout: 10_000 });
    const before = responses.length;
    await page.click('.graphiql-execute-button');
    await until(() => responses.length > before);
    const result = responses.at(-1);
    expect(result.data?.putAddress?.label, JSON.stringify(result)).toBe('beach');
    const transaction = result.extensions.dynamodb.requests.find((request: any) => request.operation === 'TransactWriteItems');
    await page.waitForSelector('[data-testid="table-view"] [data-operation="TransactWriteItems"] tr[data-sk]', { timeout: 15_000 });
    const drawn = await page.$$eval('[data-testid="table-view"] [data-operation="TransactWriteItems"] tr[data-sk]', (rows) =>
      rows.map((row) => `${row.getAttribute('data-pk')} ${row.getAttribute('data-sk')}`),
    );
    expect(drawn.sort()).toEqual(transaction.keys.map((key: any) => `${key.PK} ${key.SK}`).sort());
    expect(drawn).toContain(`CUSTOMER#${ANA} PROFILE#ADDRESS#beach`);

    const sandbox = await page.$eval('a.explorer-sandbox', (link) => link.getAttribute('href'));
    expect(sandbox).toBe(`https://studio.apollographql.com/sandbox/explorer?endpoint=${encodeURIComponent(stack.server.url)}`);
    expect(foreign).toEqual([]);
  }, 60_000);
});
