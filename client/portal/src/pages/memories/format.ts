/** Dates as people read them; the ISO value stays in `<time dateTime>`. */
export const formatWhen = (iso: string) => new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });

export const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

export const memoriesCount = (n: number) => plural(n, 'memory', 'memories');

/** A date input's day as the API's RFC 3339 bound: the start of the day, or its last millisecond (UTC). */
export const dayStart = (day: string) => (day ? `${day}T00:00:00.000Z` : undefined);
export const dayEnd = (day: string) => (day ? `${day}T23:59:59.999Z` : undefined);
