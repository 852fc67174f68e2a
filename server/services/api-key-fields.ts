import { AppError, validation } from '../errors.js';
import { apiKeyScopes, type ApiKeyScope } from '../principal.js';
import { isValidNamespace } from '../schemas/namespace.js';
import { unsafeTextReason } from '../schemas/safe-text.js';
import { AllowlistEntryError, normaliseAllowlistEntry } from './ip-allowlist.js';

/**
 * The checks of an API key's fields (name, scopes, namespace restrictions, IP allowlist), each
 * returning the canonical value or throwing a validation error that names the field as the API spells
 * it. Pure; the key service applies them on create and on update.
 */

export const API_KEY_NAME_MAX = 200;
export const API_KEY_LIST_MAX = 100;

const scopeSet: ReadonlySet<string> = new Set(apiKeyScopes);

export function validateName(name: unknown): string {
  if (typeof name !== 'string') throw validation('name', 'required');
  const trimmed = name.trim();
  if (trimmed === '') throw validation('name', 'must not be empty');
  if (trimmed.length > API_KEY_NAME_MAX) throw validation('name', `must be at most ${API_KEY_NAME_MAX} characters`);
  const unsafe = unsafeTextReason(trimmed);
  if (unsafe) throw validation('name', unsafe);
  return trimmed;
}

export function validateScopes(scopes: unknown): ApiKeyScope[] {
  if (!Array.isArray(scopes) || scopes.length === 0) throw validation('scopes', 'at least one scope is required');
  for (const [i, s] of scopes.entries()) {
    if (typeof s !== 'string' || !scopeSet.has(s)) {
      throw new AppError('VALIDATION_FAILED', `scopes: unknown scope '${String(s)}' (allowed: ${apiKeyScopes.join(', ')})`, {
        fields: [{ field: `scopes.${i}`, message: `unknown scope '${String(s)}'` }],
      });
    }
  }
  // Canonical order, duplicates dropped.
  return apiKeyScopes.filter((s) => scopes.includes(s));
}

function validateList(
  field: string,
  values: readonly string[] | null | undefined,
  each: (v: string, i: number) => string,
): string[] | null {
  if (values === undefined || values === null) return null;
  if (!Array.isArray(values)) throw validation(field, 'must be an array of strings');
  if (values.length === 0) throw validation(field, 'must not be empty (omit it, or send null, for no restriction)');
  if (values.length > API_KEY_LIST_MAX) throw validation(field, `at most ${API_KEY_LIST_MAX} entries`);
  const out: string[] = [];
  values.forEach((v, i) => {
    const normalised = each(v, i);
    if (!out.includes(normalised)) out.push(normalised);
  });
  return out;
}

export function validateNamespaces(values: readonly string[] | null | undefined): string[] | null {
  return validateList('namespace_restrictions', values, (v, i) => {
    if (typeof v !== 'string' || !isValidNamespace(v)) {
      throw new AppError(
        'VALIDATION_FAILED',
        `namespace_restrictions: '${String(v)}' is not a valid namespace name (1-64 characters: letters, digits, ".", "_", "-", ":", starting with a letter or digit)`,
        {
          fields: [{ field: `namespace_restrictions.${i}`, message: `invalid namespace '${String(v)}'` }],
        },
      );
    }
    return v;
  });
}

export function validateAllowlist(values: readonly string[] | null | undefined): string[] | null {
  return validateList('ip_allowlist', values, (v, i) => {
    try {
      if (typeof v !== 'string') throw new AllowlistEntryError(String(v), 'not a string');
      return normaliseAllowlistEntry(v);
    } catch (err) {
      if (!(err instanceof AllowlistEntryError)) throw err;
      throw new AppError('VALIDATION_FAILED', `ip_allowlist: ${err.message}`, {
        fields: [{ field: `ip_allowlist.${i}`, message: err.message }],
      });
    }
  });
}
