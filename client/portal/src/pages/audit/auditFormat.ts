import type { RouterOutputs } from '../../api';

export type AuditEvent = RouterOutputs['portal']['audit']['events'][number];

export const formatTime = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

/** Who acted: a user, an API key, or the system (neither). */
export function describeActor(actor: AuditEvent['actor']): string {
  if (actor.user_id) return `user ${actor.user_id}`;
  if (actor.key_id) return `API key ${actor.key_id}`;
  return 'system';
}

export const describeTarget = (target: AuditEvent['target']): string => (target ? `${target.type} ${target.id}` : '—');

/** The same rule as the API: an exact type (`auth.login`) or an area ending in "." (`auth.`). */
export const TYPE_PATTERN = /^[a-z][a-z_]*(\.[a-z_]*)?$/;

/** `datetime-local` (the user's local time, no zone) ↔ the RFC 3339 instant the API and the URL hold. */
export function localToIso(local: string, endOfMinute = false): string {
  if (!local) return '';
  const date = new Date(local);
  if (Number.isNaN(date.getTime())) return '';
  // The field has minutes only: an inclusive "to" covers the whole minute it names.
  return new Date(date.getTime() + (endOfMinute ? 59_999 : 0)).toISOString();
}

export function isoToLocal(iso: string): string {
  if (!iso) return '';
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
