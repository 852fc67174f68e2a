/** Milliseconds since the epoch. Services take one so tests can move time instead of sleeping. */
export type Clock = () => number;

export const systemClock: Clock = () => Date.now();

export const isoAt = (ms: number): string => new Date(ms).toISOString();
