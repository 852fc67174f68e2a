import { z } from 'zod';

/**
 * Invisible control characters: C0 except tab, line feed and carriage return; DEL; C1. A NUL is the
 * dangerous one: SQLite keeps the bytes of a bound string whole, but its C API reads TEXT as a
 * NUL-terminated string, so libsql hands back only what precedes the NUL (and `length()`, `substr()`
 * and `json_extract()` stop there too) while the index, the injection screen and dedupe saw it all.
 * The others render as nothing and let two strings that look alike differ.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is this pattern's job
const INVISIBLE_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F]/;

/** A lone surrogate has no UTF-8 encoding: storage would silently turn it into U+FFFD. */
const LONE_SURROGATE = /\p{Cs}/u;

const codePoint = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

/** Why `value` cannot be stored as given, or null when it can. */
export function unsafeTextReason(value: string): string | null {
  const control = INVISIBLE_CONTROL.exec(value);
  if (control) return `must not contain control characters (${codePoint(control[0])} at index ${control.index})`;
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate) return `must be valid Unicode (lone surrogate ${codePoint(surrogate[0])} at index ${surrogate.index})`;
  return null;
}

/**
 * The check every free-text string of every input schema carries (`test/unit/safe-text.test.ts`
 * walks every procedure's input and fails on a string without it): refused with 400, never truncated.
 */
export const visibleText = z.superRefine<string>((value, ctx) => {
  const reason = unsafeTextReason(value);
  if (reason) ctx.addIssue({ code: 'custom', message: reason, input: value });
});

/** A string that may hold any visible text, tabs and line breaks, but no invisible control character. */
export const safeText = () => z.string().check(visibleText);

/** An email address as every route takes it (a closed ASCII format already, checked all the same). */
export const emailSchema = z.email().max(320).check(visibleText);

const INVISIBLE_CONTROL_ALL = new RegExp(INVISIBLE_CONTROL.source, 'g');

/**
 * Text a client sent outside any schema (a header) made fit to store: invisible control characters
 * dropped (Node decodes header bytes 0x80-0x9F as C1 controls) and at most `max` UTF-16 code units,
 * cut before a character rather than through a surrogate pair.
 */
export function storableText(value: string, max: number): string {
  const visible = value.replace(INVISIBLE_CONTROL_ALL, '');
  if (visible.length <= max) return visible;
  const cut = /[\uD800-\uDBFF]/.test(visible[max - 1]!) ? max - 1 : max;
  return visible.slice(0, cut);
}
