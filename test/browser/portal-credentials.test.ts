import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, signUp, type SignedUpUser } from '../support/auth.js';
import { expectAccessible, launchBrowser, openPage, signInThroughForm } from '../support/browser.js';
import { withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The API keys page in a real browser against the real service: a key made in the UI works over REST,
 * its secret is shown once and never again, rotate and revoke do what they say, viewers only read.
 */
let server: TestServer;
let browser: Browser;
let owner: SignedUpUser;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  owner = await signUp(server.url);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function openCredentials(user: SignedUpUser, tenantId: string, viewport?: { width: number; height: number }) {
  const { context, page } = await openPage(browser, viewport);
  page.setDefaultTimeout(10_000);
  await signInThroughForm(page, server, user);
  await page.goto(`${server.url}/portal/t/${tenantId}/credentials`);
  await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
  return { context, page };
}

const row = (page: Page, name: string) => page.getByRole('row').filter({ hasText: name });

/** Reads the secret from the dialog that shows it, checks the dialog, then closes it. */
async function takeSecret(page: Page, title: RegExp, axeLabel?: string): Promise<string> {
  const dialog = page.getByRole('dialog', { name: title });
  const secret = await dialog.getByLabel('Secret').inputValue();
  expect(secret).toMatch(/^tmk_/);
  expect(await dialog.textContent()).toContain('shown only this once');
  await dialog.getByRole('button', { name: 'Copy secret' }).waitFor();
  if (axeLabel) await expectAccessible(page, axeLabel);
  await dialog.getByRole('button', { name: 'I have saved it' }).click();
  await dialog.waitFor({ state: 'detached' });
  return secret;
}

const usageWith = async (secret: string) => (await withKey(server.url, secret)('GET', '/usage')).status;

describe('API keys page', () => {
  // Tests run in a shuffled order: each makes the keys it looks for.
  it('creates a key whose secret is shown once and works over REST; rotating replaces it; revoking ends it', async () => {
    const empty = await signUp(server.url);
    const { context, page } = await openCredentials(empty, empty.tenantId);
    await page.getByText('No API keys yet.').waitFor();
    await expectAccessible(page, 'credentials (empty) at 1280px');

    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByRole('checkbox', { name: 'memories:read' }).waitFor();
    await expectAccessible(page, 'credentials create dialog');
    // Nothing chosen wrongly is sent: the form says what is missing.
    await create.getByRole('button', { name: 'Create key' }).click();
    await create.getByText('Give the key a name.').waitFor();
    await create.getByLabel('Name', { exact: true }).fill('ingest worker');
    await create.getByRole('checkbox', { name: 'usage:read' }).check();
    await create.getByLabel('Namespaces (optional)').fill('default, ops');
    await create.getByRole('button', { name: 'Create key' }).click();

    const secret = await takeSecret(page, /API key ingest worker created/, 'credentials secret dialog');
    // Keyboard users land back on the button that started it.
    await expect.poll(() => page.evaluate(() => (globalThis as any).document.activeElement?.textContent)).toBe('Create API key');
    // The key is real: it reads usage, writes a memory, and holds exactly the scopes picked.
    expect(await usageWith(secret)).toBe(200);
    expect((await withKey(server.url, secret)('POST', '/memories', { body: { content: 'from the portal key' } })).status).toBe(202);
    expect((await withKey(server.url, secret)('GET', '/v1/knowledge/objects')).status).toBe(403);

    const created = row(page, 'ingest worker');
    await created.waitFor();
    expect(await created.textContent()).toContain(secret.slice(0, 12));
    expect(await created.textContent()).toContain('ops');
    expect(await created.textContent()).toContain('Active');
    // Shown once: not in the page once closed, nor after a reload.
    expect(await page.content()).not.toContain(secret);
    await page.reload();
    await row(page, 'ingest worker').waitFor();
    expect(await page.content()).not.toContain(secret);
    await expectAccessible(page, 'credentials (one key) at 1280px');

    // Rotate: confirm, see the new secret once; the old one stops at once.
    await page.getByRole('button', { name: 'Rotate ingest worker' }).click();
    await page.getByRole('alertdialog', { name: 'Rotate ingest worker?' }).getByRole('button', { name: 'Rotate key' }).click();
    const rotated = await takeSecret(page, /New secret for ingest worker/);
    expect(rotated).not.toBe(secret);
    expect(await usageWith(secret)).toBe(401);
    expect(await usageWith(rotated)).toBe(200);
    expect(await page.content()).not.toContain(rotated);

    // Revoke: confirm; the row says so and the key answers 401.
    await page.getByRole('button', { name: 'Revoke ingest worker' }).click();
    const revoke = page.getByRole('alertdialog', { name: 'Revoke ingest worker?' });
    await expectAccessible(page, 'credentials revoke confirmation');
    await revoke.getByRole('button', { name: 'Revoke key' }).click();
    await revoke.waitFor({ state: 'detached' });
    await expect.poll(() => row(page, 'ingest worker').textContent()).toContain('Revoked');
    expect(await page.getByRole('button', { name: 'Revoke ingest worker' }).count()).toBe(0);
    expect(await usageWith(rotated)).toBe(401);
    await context.close();
  });

  it('shows an IP allowlist, and the API error when the server refuses a value', async () => {
    const { context, page } = await openCredentials(owner, owner.tenantId);
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Name', { exact: true }).fill('office only');
    await create.getByLabel('IP allowlist (optional)').fill('not-an-address');
    await create.getByRole('button', { name: 'Create key' }).click();
    await create.getByRole('alert').waitFor();
    expect(await create.getByRole('alert').textContent()).toContain('VALIDATION');

    await create.getByLabel('IP allowlist (optional)').fill('203.0.113.0/24\n2001:db8::/32');
    await create.getByRole('button', { name: 'Create key' }).click();
    const secret = await takeSecret(page, /API key office only created/);
    // The loopback test client is outside the allowlist.
    expect([401, 403]).toContain(await usageWith(secret));
    await expect.poll(() => row(page, 'office only').textContent()).toContain('203.0.113.0/24');
    await context.close();
  });

  it('a viewer reads the keys but has no create, rotate or revoke, at phone width too', async () => {
    const viewer = await signUp(server.url);
    await addToTenant(server.url, owner, viewer, 'viewer');
    const made = await http(server.url, 'POST', '/api-keys', {
      headers: bearer(owner.accessToken),
      body: { name: 'made by the owner', scopes: ['memories:read'] },
    });
    expect(made.status).toBe(201);
    const { context, page } = await openCredentials(viewer, owner.tenantId, { width: 390, height: 844 });
    await row(page, 'made by the owner').waitFor();
    await page.getByText('Your role can view keys but not create or change them.').waitFor();
    expect(await page.getByRole('button', { name: 'Create API key' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^(Rotate|Revoke) / }).count()).toBe(0);
    expect(await page.getByRole('columnheader', { name: 'Actions' }).count()).toBe(0);
    await expectAccessible(page, 'credentials (viewer) at 390px');
    await context.close();
  });

  it("a member manages the keys they made, not another's", async () => {
    const member = await signUp(server.url);
    await addToTenant(server.url, owner, member, 'member');
    const made = await http(server.url, 'POST', '/api-keys', {
      headers: bearer(owner.accessToken),
      body: { name: 'the owner key', scopes: ['memories:read'] },
    });
    expect(made.status).toBe(201);
    const { context, page } = await openCredentials(member, owner.tenantId);
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    // A member may not grant what their role lacks.
    expect(await create.getByRole('checkbox', { name: 'knowledge:admin' }).isDisabled()).toBe(true);
    await create.getByLabel('Name', { exact: true }).fill('the member key');
    await create.getByRole('button', { name: 'Create key' }).click();
    await takeSecret(page, /API key the member key created/);
    await row(page, 'the member key').getByRole('button', { name: 'Revoke the member key' }).waitFor();
    expect(await row(page, 'the owner key').getByRole('button').count()).toBe(0);
    await context.close();
  });

  it('at phone width the create and secret dialogs fit and pass axe', async () => {
    const { context, page } = await openCredentials(owner, owner.tenantId, { width: 390, height: 844 });
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Name', { exact: true }).fill('phone key');
    const box = (await create.boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(0);
    expect(box.x + box.width).toBeLessThanOrEqual(390);
    await expectAccessible(page, 'credentials create dialog at 390px');
    await create.getByRole('button', { name: 'Create key' }).click();
    await takeSecret(page, /API key phone key created/, 'credentials secret dialog at 390px');
    await context.close();
  });
});
