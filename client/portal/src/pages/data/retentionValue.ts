/** Retention days as the API takes them: an integer 1–3650, or null to keep forever. */
export const RETENTION_MAX_DAYS = 3650;

/** A days field as the form holds it: keep forever, or the text typed. */
export interface DaysDraft {
  forever: boolean;
  days: string;
}

export const draftOf = (value: number | null): DaysDraft => ({ forever: value === null, days: value === null ? '' : String(value) });

/** The value to send, or the message to show next to the field. */
export function parseDays(draft: DaysDraft): { value: number | null } | { error: string } {
  if (draft.forever) return { value: null };
  const text = draft.days.trim();
  if (!/^\d+$/.test(text)) return { error: `Enter a whole number of days (1–${RETENTION_MAX_DAYS}), or choose “Keep forever”.` };
  const days = Number(text);
  if (days < 1 || days > RETENTION_MAX_DAYS) return { error: `Between 1 and ${RETENTION_MAX_DAYS} days.` };
  return { value: days };
}

export const describeDays = (value: number | null): string => (value === null ? 'Kept forever' : `${value} day${value === 1 ? '' : 's'}`);
