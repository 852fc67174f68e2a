/** Display formats shared by the dashboard's cards. */

const integer = new Intl.NumberFormat(undefined, { maximumFractionDigits: 0 });

export const formatCount = (n: number): string => integer.format(n);

const units = ['bytes', 'KB', 'MB', 'GB', 'TB'] as const;

/** 1536 → "1.5 KB": binary multiples, one decimal above bytes. */
export function formatBytes(bytes: number): string {
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${integer.format(value)} bytes` : `${value.toFixed(1)} ${units[unit]}`;
}

export const formatDateTime = (iso: string): string => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const formatDate = (iso: string): string => new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium', timeZone: 'UTC' });

/** "2025-01-31" → "31 Jan" (the day is UTC, as the server counts it). */
export const formatDay = (day: string): string =>
  new Date(`${day}T00:00:00Z`).toLocaleDateString(undefined, { day: 'numeric', month: 'short', timeZone: 'UTC' });
