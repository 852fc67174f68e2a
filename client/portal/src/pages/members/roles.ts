/** Role rules the UI mirrors (the server enforces them): only owners grant or touch the owner role. */
export const ROLE_NAMES = ['owner', 'admin', 'member', 'viewer'] as const;
export type RoleName = (typeof ROLE_NAMES)[number];

/** The roles an actor may give. */
export const assignableRoles = (actorRole: string | undefined): RoleName[] =>
  actorRole === 'owner' ? [...ROLE_NAMES] : ROLE_NAMES.filter((r) => r !== 'owner');

/** Making someone owner or admin needs a fresh step-up (`members.promote`). */
export const isPromotion = (role: string) => role === 'owner' || role === 'admin';

export const when = (iso: string) => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' });
