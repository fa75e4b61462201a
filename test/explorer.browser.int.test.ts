/**
 * The development explorer in a real browser: headless Chromium (test/support/browser.ts) at
 * 1440×900 opens `GET /graphql` of the real server over `npm start`'s demo data, pastes Ana's
 * token, runs the customer screen (the page's default query), opens the Table view, and the rows
 * it highlights must be exactly the items the DynamoDB requests on the wire returned: each Query
 * the engine received is replayed against the engine, and its items' keys compared with the
 * highlighted rows. Ana's partition is larger than her screen's Query reads, so the view also
 * draws rows it did not read. The page loads nothing from any other origin (no CDN: it works
 * offline). At 1440×900 with the Table view open, GraphiQL's editor and result and the Table view's
 * columns keep readable widths, and the separator between them moves with a drag and with keys.
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
import { loadDemoData } from '../src/ops/demo-data';
import { GRAPHIQL_MIN, TABLE_MIN } from '../src/dev/explorer/page/split';
import { ATTRIBUTES_FROM } from '../src/dev/explorer/page/table';

const SCREENSHOTS = process.env.SCREENSHOTS;
const VIEWPORT = { width: 1440, height: 900 };
/** The demo data as of a fixed day, so its dates do not move run to run (its ids, ULIDs, do). */
const DEMO_DAY = new Date('2026-11-30T10:00:00.000Z');

let stack: Stack;
let ANA: string;
let browser: Browser | undefined;
let page: Page;
const foreign: string[] = [];
const failed: string[] = [];
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
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
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

/** How many items partition `pk` holds, counted by the engine (a consistent Query, paged). */
async function partitionSize(pk: string): Promise<number> {
  let count = 0;
  let ExclusiveStartKey: QueryCommandInput['ExclusiveStartKey'];
  do {
    const out = await stack.doc.send(
      new QueryCommand({
        TableName: stack.tableName,
        ConsistentRead: true,
        Select: 'COUNT',
        KeyConditionExpression: 'PK = :pk',
        ExpressionAttributeValues: { ':pk': { S: pk } },
        ExclusiveStartKey,
      }),
    );
    count += out.Count ?? 0;
    ExclusiveStartKey = out.LastEvaluatedKey;
  } while (ExclusiveStartKey);
  return count;
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
    expect(plan.totals.items).toBeLessThan(await partitionSize(plan.requests[0].partition));
    expect(unread.length).toBeGreaterThan(0);
    expect(unread.every((sk) => sk?.startsWith('ORDER#'))).toBe(true);
    expect(foreign).toEqual([]);
    expect(failed).toEqual([]);

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

  it('keeps GraphiQL and the Table view readable at 1440×900, and resizes them with the separator', async () => {
    // The page of the tests above: the Table view open on the mutation's transaction; run the screen again.
    await page.evaluate(() => localStorage.removeItem('explorer:table-width'));
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('.graphiql-container .graphiql-execute-button', { timeout: 30_000 });
    await page.click('.explorer-toggle');
    await page.evaluate((text) => {
      const editor = document.querySelector('.graphiql-query-editor .CodeMirror') as unknown as {
        CodeMirror: { setValue(v: string): void };
      };
      editor.CodeMirror.setValue(text);
    }, 'query Screen { me { name addresses { label } orders(first: 5) { edges { node { id } } } } }');
    // GraphiQL sends the operation name its active tab shows: wait until that is the new one.
    await page.waitForFunction(() => document.querySelector('.graphiql-tab-active .graphiql-tab-button')?.textContent === 'Screen', {
      timeout: 10_000,
    });
    const sent = responses.length;
    await page.click('.graphiql-execute-button');
    await until(() => responses.length > sent);
    expect(responses.at(-1).errors).toBeUndefined();
    await page.waitForSelector('[data-testid="table-view"] tr.hit', { timeout: 15_000 });

    const widths = () =>
      page.evaluate(() => {
        const width = (selector: string) => Math.round(document.querySelector(selector)?.getBoundingClientRect().width ?? 0);
        return {
          main: width('.explorer-main'),
          graphiql: width('.explorer-graphiql'),
          editor: width('.graphiql-editors'),
          result: width('.graphiql-response'),
          table: width('#explorer-table'),
          separator: Number(document.querySelector('[role="separator"]')?.getAttribute('aria-valuenow')),
        };
      });
    const before = await widths();
    expect(before.main).toBe(VIEWPORT.width);
    expect(before.table).toBeGreaterThanOrEqual(TABLE_MIN);
    expect(before.graphiql).toBeGreaterThanOrEqual(GRAPHIQL_MIN);
    expect(before.editor).toBeGreaterThanOrEqual(300);
    expect(before.result).toBeGreaterThanOrEqual(300);
    expect(before.separator).toBe(before.table);
    // Nothing of a key or an entity is cut off: every sort key and every badge is whole in its cell.
    const clipped = await page.$$eval('[data-testid="table-view"] tr[data-sk]', (rows) =>
      rows.flatMap((row) => {
        const sk = row.querySelector('td.tv-sort') as HTMLElement;
        const badge = row.querySelector('.tv-entity') as HTMLElement;
        const cell = badge.parentElement as HTMLElement;
        const cut = [];
        if (sk.scrollWidth > sk.clientWidth) cut.push(`SK ${sk.textContent}`);
        if (badge.getBoundingClientRect().right > cell.getBoundingClientRect().right - parseFloat(getComputedStyle(cell).paddingRight))
          cut.push(`badge ${badge.textContent}`);
        return cut;
      }),
    );
    expect(clipped).toEqual([]);
    // At the default width, a read's attributes are each row's tooltip (see below for the column).
    expect(before.table).toBeLessThan(ATTRIBUTES_FROM);
    expect(
      await page.$$eval('[data-testid="table-view"] [data-operation="Query"] th', (cells) => cells.map((cell) => cell.textContent)),
    ).toEqual(['PK', 'SK', 'entity']);
    expect(await page.$eval('[data-testid="table-view"] tr[data-sk="PROFILE"]', (row) => row.getAttribute('title'))).toMatch(/^name: /);

    // A drag 100 px to the left widens the Table view by 100 px, and the width outlives a reload.
    const handle = (await page.$('[role="separator"]'))!;
    const box = (await handle.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 50, box.y + box.height / 2, { steps: 5 });
    await page.mouse.move(box.x + box.width / 2 - 100, box.y + box.height / 2, { steps: 5 });
    await page.mouse.up();
    const dragged = await widths();
    expect(dragged.table).toBe(before.table + 100);
    expect(dragged.graphiql).toBe(before.graphiql - 100);
    expect(await page.evaluate(() => localStorage.getItem('explorer:table-width'))).toBe(String(dragged.table));

    // Keys: → narrows by 16 px, Home and End go to the two limits, and neither pane passes its minimum.
    await handle.focus();
    await page.keyboard.press('ArrowRight');
    expect((await widths()).table).toBe(dragged.table - 16);
    await page.keyboard.press('Home');
    expect((await widths()).table).toBe(TABLE_MIN);
    await page.keyboard.press('End');
    const widest = await widths();
    expect(widest.graphiql).toBe(GRAPHIQL_MIN);
    // Wide enough, a read's rows show their attributes in a column; narrower, in the row's tooltip.
    const columns = () =>
      page.$$eval('[data-testid="table-view"] [data-operation="Query"] th', (cells) => cells.map((cell) => cell.textContent));
    expect(widest.table).toBeGreaterThanOrEqual(ATTRIBUTES_FROM);
    expect(await columns()).toEqual(['PK', 'SK', 'entity', 'attributes']);
    if (SCREENSHOTS) {
      await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
      await page.mouse.move(0, VIEWPORT.height - 1);
      await page.screenshot({ path: join(SCREENSHOTS, 'table-view-wide.png') as `${string}.png` });
    }
    expect(widest.table + widest.graphiql).toBeLessThan(widest.main);
    await page.mouse.move(box.x, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x - 2000, box.y + box.height / 2, { steps: 4 });
    await page.mouse.up();
    expect((await widths()).graphiql).toBe(GRAPHIQL_MIN);

    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('.explorer-toggle');
    await page.click('.explorer-toggle');
    expect((await widths()).table).toBe(widest.table);
  }, 60_000);
});
