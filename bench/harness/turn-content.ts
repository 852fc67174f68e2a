import type { Turn } from './dataset.js';

/**
 * How a dialogue turn becomes a memory's content: the session date and the speaker travel with the
 * text, because questions name speakers and times ("When did Emma go to the woodworking class?").
 * Shared by the HTTP benchmark and the in-process retrieval-quality bench so both measure the same thing.
 */
export function turnContent(t: Turn): string {
  const caption = t.imageCaption ? ` [shares an image: ${t.imageCaption}]` : '';
  return `[${t.sessionDate}] ${t.speaker}: ${t.text}${caption}`;
}
