import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, type SignedUpUser } from '../support/auth.js';
import { expectAccessible, newUser, openPage, signInThroughForm, startPortalHarness, type PortalHarness } from '../support/browser.js';
import { createApiKey, waitConsolidated, withKey } from '../support/memory-api.js';

/**
 * The memories page in a real browser against the real service: memories written over REST with an
 * API key, then filtered and searched (the view in the URL, kept across reloads and history),
 * a rollback from the detail, and step-up deletion of selected rows; axe scans at laptop and phone widths.
 */
let harness: PortalHarness;

beforeAll(async () => {
  harness = await startPortalHarness();
});

afterAll(async () => {
  await harness?.close();
});

interface Seeded {
  user: SignedUpUser;
  key: string;
  api: ReturnType<typeof withKey>;
  ids: Record<string, string>;
}

/** A fresh tenant with an API key and the given memories, all consolidated. */
async function seed(memories: Record<string, Record<string, unknown>>): Promise<Seeded> {
  const { server } = harness;
  const user = await newUser(server);
  const key = await createApiKey(server.url, user);
  const api = withKey(server.url, key);
  const ids: Record<string, string> = {};
  for (const [title, body] of Object.entries(memories)) {
    const res = await api('POST', '/memories', { body: { title, ...body } });
    expect(res.status, res.text).toBe(202);
    ids[title] = res.body.memory_id;
  }
  await waitConsolidated(server.url, key);
  return { user, key, api, ids };
}

const memoriesUrl = (s: Seeded, query = '') => `${harness.server.url}/portal/t/${s.user.tenantId}/memories${query}`;
const total = (page: Page) => page.getByTestId('memories-total').textContent();
const titlesInTable = (page: Page) => page.locator('table.data-table tbody .mem-link').allTextContents();

describe('memories page in a browser', () => {
  it('filters and searches with the view in the URL; reload, back and forward restore it', async () => {
    const s = await seed({
      'Alpha runbook': { content: 'How to restart the alpha service: drain, stop, start.', type: 'procedural', sensitivity: 'low' },
      'Beta fact': { content: 'Beta customers are billed yearly.', type: 'semantic', sensitivity: 'high' },
      'Gamma meeting': { content: 'We met the gamma team about the zebra migration.', type: 'episodic', sensitivity: 'medium' },
      'Delta fact': { content: 'Delta ships on Tuesdays.', type: 'semantic', sensitivity: 'low', namespace: 'ops' },
    });
    const { context, page } = await openPage(harness.browser);
    await signInThroughForm(page, harness.server, s.user);
    await page.goto(memoriesUrl(s));
    await expect.poll(() => total(page)).toBe('(4 memories)');
    await expectAccessible(page, 'memories list');

    await page.getByLabel('Type').selectOption('semantic');
    await page.getByLabel('Sensitivity').selectOption('high');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('type') === 'semantic' && url.searchParams.get('sensitivity') === 'high');
    await expect.poll(() => total(page)).toBe('(1 memory)');
    expect(await titlesInTable(page)).toEqual(['Beta fact']);
    expect(await page.getByRole('cell', { name: 'high' }).count()).toBe(1);

    await page.reload();
    await expect.poll(() => total(page)).toBe('(1 memory)');
    expect(await page.getByLabel('Type').inputValue()).toBe('semantic');
    expect(await page.getByLabel('Sensitivity').inputValue()).toBe('high');

    // Text and namespace filters, then back and forward through the history.
    await page.getByLabel('Sensitivity').selectOption('');
    await page.getByLabel('Namespace').fill('ops');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('namespace') === 'ops' && !url.searchParams.has('sensitivity'));
    await expect.poll(() => titlesInTable(page)).toEqual(['Delta fact']);
    await page.goBack();
    await page.waitForURL((url) => url.searchParams.get('sensitivity') === 'high');
    await expect.poll(() => titlesInTable(page)).toEqual(['Beta fact']);
    expect(await page.getByLabel('Namespace').inputValue()).toBe('');
    await page.goForward();
    await expect.poll(() => titlesInTable(page)).toEqual(['Delta fact']);

    // Ranked search with a chosen mode.
    await page.getByRole('button', { name: 'Ranked search' }).click();
    await page.getByLabel('Search query').fill('zebra migration');
    await page.getByLabel('Search mode').selectOption('hybrid+graph');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.waitForURL((url) => url.searchParams.get('view') === 'search' && url.searchParams.get('mode') === 'hybrid+graph');
    await expect.poll(async () => (await titlesInTable(page))[0]).toBe('Gamma meeting');
    expect(await page.getByRole('heading', { name: /Results for “zebra migration”.*hybrid \+ graph/ }).count()).toBe(1);
    const score = await page.locator('table.data-table tbody tr').first().locator('td').nth(1).textContent();
    expect(Number(score)).toBeGreaterThan(0);
    await page.reload();
    await expect.poll(async () => (await titlesInTable(page))[0]).toBe('Gamma meeting');
    expect(await page.getByLabel('Search mode').inputValue()).toBe('hybrid+graph');
    expect(await page.getByLabel('Search query').inputValue()).toBe('zebra migration');
    await context.close();
  });

  it('opens a memory, and rolls back to version 1 after a REST update made version 2', async () => {
    const s = await seed({ 'Office hours': { content: 'The office opens at 9.', type: 'semantic' } });
    const id = s.ids['Office hours']!;
    const { context, page } = await openPage(harness.browser);
    await signInThroughForm(page, harness.server, s.user);
    await page.goto(memoriesUrl(s));
    await page.getByRole('button', { name: 'Office hours' }).click();
    await page.waitForURL((url) => url.searchParams.get('open') === id);
    await page.getByText('The office opens at 9.').first().waitFor();

    const put = await s.api('PUT', `/memories/${id}`, {
      body: { title: 'Office hours', content: 'The office opens at 10.', type: 'semantic' },
    });
    expect(put.status, put.text).toBe(202);
    await waitConsolidated(harness.server.url, s.key);
    await page.reload();
    await page.getByRole('cell', { name: '2 (current)' }).waitFor();
    await page.getByText('The office opens at 10.').first().waitFor();
    await expectAccessible(page, 'memory detail');

    await page.getByRole('button', { name: 'Roll back to version 1' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Roll back to version 1?' });
    await confirm.waitFor();
    await expectAccessible(page, 'rollback confirmation');
    await confirm.getByRole('button', { name: 'Roll back' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect
      .poll(() => page.getByTestId('rollback-status').textContent(), { timeout: 15_000 })
      .toBe('Rolled back: version 3 now has the content of version 1.');
    await page.getByRole('cell', { name: '3 (current)' }).waitFor();
    await page.getByRole('cell', { name: 'rollback to version 1' }).waitFor();
    await expect.poll(() => page.locator('.mem-detail > .card pre').first().textContent()).toBe('The office opens at 9.');
    const after = await s.api('GET', `/memories/${id}`);
    expect(after.body).toMatchObject({ version: 3, content: 'The office opens at 9.' });
    await context.close();
  });

  it('deletes two selected memories after step-up (a wrong password first shows an error)', async () => {
    const s = await seed({
      'Keep me': { content: 'This one stays.' },
      'Remove one': { content: 'First to go.' },
      'Remove two': { content: 'Second to go.' },
    });
    const { context, page } = await openPage(harness.browser);
    await signInThroughForm(page, harness.server, s.user);
    await page.goto(memoriesUrl(s));
    await expect.poll(() => total(page)).toBe('(3 memories)');
    await page.getByLabel('Select “Remove one”').check();
    await page.getByLabel('Select “Remove two”').check();
    await page.getByRole('button', { name: 'Delete selected (2)' }).click();

    const stepUp = page.getByRole('dialog', { name: "Confirm it's you" });
    await stepUp.getByLabel('Password').waitFor();
    await expectAccessible(page, 'step-up dialog');
    await stepUp.getByLabel('Password').fill('not-the-password');
    await stepUp.getByRole('button', { name: 'Confirm' }).click();
    await stepUp.getByRole('alert').waitFor();
    expect(await stepUp.getByRole('alert').textContent()).toContain('Could not confirm');
    await stepUp.getByLabel('Password').fill(s.user.password);
    await stepUp.getByRole('button', { name: 'Confirm' }).click();

    const confirm = page.getByRole('alertdialog', { name: 'Delete memories?' });
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('This will delete 2 memories');
    await expectAccessible(page, 'delete confirmation');
    await confirm.getByRole('button', { name: 'Delete 2 memories' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('delete-status').textContent()).toBe('Deleted 2 memories.');
    await expect.poll(() => total(page)).toBe('(1 memory)');
    expect(await titlesInTable(page)).toEqual(['Keep me']);
    for (const title of ['Remove one', 'Remove two']) {
      const res = await s.api('GET', `/memories/${s.ids[title]}`);
      expect(res.status).toBe(404);
    }
    expect((await s.api('GET', `/memories/${s.ids['Keep me']}`)).status).toBe(200);

    // "Everything matching the filter" counts with the filter first; cancelling deletes nothing.
    await page.getByLabel('Text in title or content').fill('keep');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === 'keep');
    await page.getByRole('button', { name: 'Delete all matching' }).click();
    await stepUp.getByLabel('Password').fill(s.user.password);
    await stepUp.getByRole('button', { name: 'Confirm' }).click();
    await confirm.waitFor();
    expect(await confirm.textContent()).toContain('This will delete 1 memory (everything matching the filter)');
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('delete-status').textContent()).toBe('Deletion cancelled.');
    expect((await s.api('GET', `/memories/${s.ids['Keep me']}`)).status).toBe(200);
    await context.close();
  });

  it('a viewer browses but is offered neither deletion nor rollback', async () => {
    const s = await seed({ 'Read only': { content: 'Viewers can read this.' } });
    const viewer = await newUser(harness.server, 'Viewer');
    await addToTenant(harness.server.url, s.user, viewer, 'viewer');
    const { context, page } = await openPage(harness.browser);
    await signInThroughForm(page, harness.server, viewer);
    await page.goto(memoriesUrl(s));
    await expect.poll(() => total(page)).toBe('(1 memory)');
    await page.getByRole('button', { name: 'Read only' }).click();
    await page.getByRole('heading', { name: 'Versions' }).waitFor();
    await page.getByRole('cell', { name: '1 (current)' }).waitFor();
    expect(await page.getByRole('button', { name: /Delete|Roll back/ }).count()).toBe(0);
    await page.getByRole('button', { name: '← All memories' }).click();
    await expect.poll(() => total(page)).toBe('(1 memory)');
    await expect.poll(() => page.locator('#mem-list-heading:focus').count()).toBe(1);
    expect(await page.getByRole('button', { name: /Delete/ }).count()).toBe(0);
    expect(await page.getByRole('checkbox').count()).toBe(0);
    await context.close();
  });

  it('works at phone width: list, detail and the delete step-up have no serious violations', async () => {
    const s = await seed({ 'Phone note': { content: 'Readable on a small screen.', sensitivity: 'medium' } });
    const { context, page } = await openPage(harness.browser, { width: 390, height: 844 });
    await signInThroughForm(page, harness.server, s.user);
    await page.goto(memoriesUrl(s));
    await expect.poll(() => total(page)).toBe('(1 memory)');
    await expectAccessible(page, 'memories list at 390px');
    await page.getByRole('button', { name: 'Phone note' }).click();
    await page.getByRole('heading', { name: 'Phone note' }).waitFor();
    await expectAccessible(page, 'memory detail at 390px');
    // The page's own content fits the screen (wide tables scroll inside their own region).
    const overflow = await page
      .locator('main')
      .evaluate((main: { scrollWidth: number; clientWidth: number }) => main.scrollWidth - main.clientWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await page.getByRole('button', { name: 'Delete this memory' }).click();
    await page.getByRole('dialog', { name: "Confirm it's you" }).getByLabel('Password').waitFor();
    await expectAccessible(page, 'step-up at 390px');
    await page.getByRole('dialog', { name: "Confirm it's you" }).getByRole('button', { name: 'Cancel' }).click();
    await expect.poll(() => page.getByTestId('delete-status').textContent()).toBe('Deletion cancelled.');
    await context.close();
  });
});
