import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addToTenant, bearer, type SignedUpUser } from '../support/auth.js';
import { expectAccessible, launchBrowser, newUser, openPage, signInThroughForm } from '../support/browser.js';
import { createApiKey, withKey } from '../support/memory-api.js';
import { http, startTestServer, type TestServer } from '../support/server.js';

/**
 * The knowledge, members and break-glass pages in a real browser against the real service: data made
 * through the real API (a knowledge key, sign-ups, invitations), actions taken in the UI.
 */
let server: TestServer;
let browser: Browser;
let owner: SignedUpUser;
let api: ReturnType<typeof withKey>;

beforeAll(async () => {
  [server, browser] = await Promise.all([startTestServer(), launchBrowser()]);
  owner = await newUser(server, 'Olga Owner');
  api = withKey(server.url, await createApiKey(server.url, owner, ['knowledge:read', 'knowledge:write']));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
});

const pageUrl = (slug: string, query = '') => `${server.url}/portal/t/${owner.tenantId}/${slug}${query}`;

async function signedIn(user: SignedUpUser, viewport?: { width: number; height: number }) {
  const opened = await openPage(browser, viewport);
  await signInThroughForm(opened.page, server, user);
  return opened;
}

async function createPerson(fields: Record<string, unknown>, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await api('POST', '/v1/knowledge/person', { body: { fields, ...extra } });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

/** Answers the step-up dialog with the user's password. */
async function stepUp(page: Page, user: SignedUpUser, label?: string) {
  const dialog = page.getByRole('dialog', { name: "Confirm it's you" });
  await dialog.getByLabel('Password').fill(user.password);
  if (label) await expectAccessible(page, label);
  await dialog.getByRole('button', { name: 'Confirm' }).click();
  await dialog.waitFor({ state: 'detached' });
}

const statusText = (page: Page) =>
  page
    .getByRole('status')
    .allTextContents()
    .then((t) => t.join(' '));

describe('knowledge page', () => {
  it('shows a REST-created object with completeness and per-field provenance; "Enrich now" fills the log', async () => {
    const id = await createPerson({ name: 'Dana Whitfield', job_title: 'Cartographer' });
    const optedOut = await createPerson({ name: 'Quiet Quentin' }, { do_not_enrich: true });
    const { context, page } = await signedIn(owner);

    await page.goto(pageUrl('knowledge'));
    const list = page.getByRole('table', { name: /person objects, oldest first/ });
    const row = list.getByRole('row').filter({ hasText: 'Dana Whitfield' });
    await row.waitFor();
    expect(await row.textContent()).toMatch(/\d+%.*INCOMPLETE/);
    expect(await page.getByLabel('Type').locator('option:checked').textContent()).toBe('person (2 objects)');
    await expectAccessible(page, 'knowledge list');

    await row.getByRole('button', { name: 'Dana Whitfield' }).click();
    await page.waitForURL((url) => url.searchParams.get('object') === id);
    await page.getByRole('heading', { level: 2, name: 'Dana Whitfield' }).waitFor();
    const fields = page.getByRole('table', { name: 'Fields with provenance and confidence' });
    const jobTitle = fields.getByRole('row').filter({ hasText: 'job_title' });
    await jobTitle.waitFor();
    const cells = await jobTitle.getByRole('cell').allTextContents();
    expect(cells.slice(0, 5)).toEqual(['job_title', 'Cartographer', 'Client input', '1.00', 'client']);
    expect(await page.getByText('No enrichment has run for this object yet.').count()).toBe(1);
    await expectAccessible(page, 'knowledge object');

    // The URL keeps the selected object: a reload shows it again.
    await page.reload();
    await page.getByRole('heading', { level: 2, name: 'Dana Whitfield' }).waitFor();
    await page.getByRole('button', { name: 'Enrich now' }).click();
    await expect.poll(() => statusText(page)).toContain('Enrichment started: ENRICHING');
    const log = page.getByRole('table', { name: 'Enrichment log, oldest first' });
    await expect.poll(() => log.getByRole('row').count(), { timeout: 15_000 }).toBeGreaterThan(1);
    await expect.poll(() => page.getByTestId('kn-object-status').textContent(), { timeout: 15_000 }).not.toBe('ENRICHING');
    expect(await log.getByRole('row').nth(1).textContent()).toMatch(/kg|rule|llm|web/);
    await expect.poll(() => statusText(page)).toMatch(/Finished: the object is (INCOMPLETE|PARTIALLY_COMPLETE|COMPLETE)\./);

    // do_not_enrich: the button is disabled and says why.
    await page.goto(pageUrl('knowledge', `?object=${optedOut}`));
    const enrich = page.getByRole('button', { name: 'Enrich now' });
    await enrich.waitFor();
    expect(await enrich.isDisabled()).toBe(true);
    expect(await page.getByText('This object is marked do_not_enrich').count()).toBe(1);
    await context.close();
  });
});

describe('members page', () => {
  it('an owner invites a signed-up user, changes their role (step-up) and removes them (confirm + step-up)', async () => {
    const invitee = await newUser(server, 'Ivo Invitee');
    const { context, page } = await signedIn(owner);
    await page.goto(pageUrl('members'));
    await page.getByRole('table', { name: 'Members' }).getByRole('row').filter({ hasText: owner.email }).waitFor();
    await expectAccessible(page, 'members (owner)');

    const invite = page.getByRole('region', { name: 'Invite someone' });
    await invite.getByLabel('Email').fill(invitee.email);
    await invite.getByLabel('Role').selectOption('member');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await expect.poll(() => statusText(page)).toContain(`Invitation sent to ${invitee.email} as member.`);
    const pending = page.getByRole('table', { name: 'Pending invitations' });
    await pending.getByRole('row').filter({ hasText: invitee.email }).waitFor();

    // A second invitation, revoked through its confirmation dialog.
    await invite.getByLabel('Email').fill('nobody-yet@example.test');
    await invite.getByRole('button', { name: 'Send invitation' }).click();
    await pending.getByRole('row').filter({ hasText: 'nobody-yet@example.test' }).waitFor();
    await page.getByRole('button', { name: 'Revoke the invitation of nobody-yet@example.test' }).click();
    await page.getByRole('alertdialog').waitFor();
    await expectAccessible(page, 'members: revoke dialog');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Revoke' }).click();
    await expect.poll(() => pending.getByRole('row').filter({ hasText: 'nobody-yet@example.test' }).count()).toBe(0);

    // The invitee accepts over the API, as their own client would.
    const mine = await http(server.url, 'GET', '/auth/invitations', { headers: bearer(invitee.accessToken) });
    const invitationId = mine.body.invitations.find((i: any) => i.tenant_id === owner.tenantId).invitation_id;
    const accepted = await http(server.url, 'POST', `/auth/invitations/${invitationId}/accept`, { headers: bearer(invitee.accessToken) });
    expect(accepted.status, accepted.text).toBe(200);

    await page.reload();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('row').filter({ hasText: invitee.email }).waitFor();
    await page.getByLabel(`Role of ${invitee.email}`).selectOption('admin');
    await stepUp(page, owner, 'members: step-up dialog');
    await expect.poll(() => statusText(page)).toContain(`${invitee.email} is now admin.`);
    await expect.poll(() => page.getByLabel(`Role of ${invitee.email}`).inputValue()).toBe('admin');

    await page.getByRole('button', { name: `Remove ${invitee.email}` }).click();
    await page.getByRole('alertdialog').waitFor();
    await expectAccessible(page, 'members: remove dialog');
    await page.getByRole('alertdialog').getByRole('button', { name: 'Remove' }).click();
    await stepUp(page, owner);
    await expect.poll(() => statusText(page)).toContain(`${invitee.email} was removed.`);
    await expect.poll(() => members.getByRole('row').filter({ hasText: invitee.email }).count()).toBe(0);
    const after = await http(server.url, 'GET', '/auth/members', { headers: bearer(owner.accessToken) });
    expect(after.body.members.map((m: any) => m.email)).not.toContain(invitee.email);
    await context.close();
  });

  it('a member (not admin) sees a read-only list, at phone width; the three pages pass axe there', async () => {
    const member = await newUser(server, 'Mia Member');
    await addToTenant(server.url, owner, member, 'member');
    const { context, page } = await signedIn(member, { width: 390, height: 844 });
    await page.goto(pageUrl('members'));
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('row').filter({ hasText: owner.email }).waitFor();
    await page.getByText('Your role (member) can see the members but not change them.').waitFor();
    expect(await page.getByRole('combobox', { name: /^Role of/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /^Remove/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Send invitation' }).count()).toBe(0);
    expect(await page.getByRole('heading', { name: 'Roles and permissions' }).count()).toBe(1);
    expect(await page.getByRole('list', { name: 'Permissions of viewer' }).getByRole('listitem').count()).toBeGreaterThan(0);
    await expectAccessible(page, 'members (member) at 390px');

    await page.goto(pageUrl('knowledge'));
    await page.getByLabel('Status').waitFor();
    await page.getByRole('status').filter({ hasText: 'Loading objects' }).waitFor({ state: 'detached' });
    await expectAccessible(page, 'knowledge at 390px');
    await page.goto(pageUrl('break-glass'));
    await page.getByRole('button', { name: 'Send request' }).waitFor();
    await expectAccessible(page, 'break-glass at 390px');
    await context.close();
  });
});

describe('break-glass page', () => {
  it('a second owner requests in the UI and the first approves in the UI', async () => {
    const second = await newUser(server, 'Sam Second');
    await addToTenant(server.url, owner, second, 'owner');
    const requester = await signedIn(second);
    await requester.page.goto(pageUrl('break-glass'));
    await requester.page.getByLabel('Reason').fill('Production incident 42: need to rotate every key');
    await requester.page.getByLabel('Duration (minutes)').fill('30');
    await requester.page.getByRole('button', { name: 'Send request' }).click();
    await expect.poll(() => statusText(requester.page)).toContain('Request sent: pending');
    const ownRow = requester.page.getByRole('row').filter({ hasText: 'Production incident 42' });
    await ownRow.waitFor();
    expect(await ownRow.textContent()).toContain('Your own request');
    expect(await ownRow.getByRole('button', { name: /^Approve/ }).count()).toBe(0);
    await requester.context.close();

    const { context, page } = await signedIn(owner);
    await page.goto(pageUrl('break-glass'));
    const row = page.getByRole('row').filter({ hasText: 'Production incident 42' });
    await row.waitFor();
    expect(await row.textContent()).toContain(second.email);
    expect(await row.textContent()).toContain('pending');
    await expectAccessible(page, 'break-glass (owner)');
    await row.getByRole('button', { name: `Approve the request of ${second.email}` }).click();
    const dialog = page.getByRole('alertdialog');
    await dialog.waitFor();
    await expectAccessible(page, 'break-glass: approve dialog');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expect.poll(() => statusText(page)).toContain(`The request of ${second.email} is approved.`);
    await expect.poll(() => row.textContent()).toContain('approved');
    expect(await row.textContent()).toMatch(/Olga Owner|\(you\)/);
    await context.close();
  });
});
