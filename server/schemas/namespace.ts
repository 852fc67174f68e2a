import { z } from 'zod';

/**
 * The one rule for memory namespace names, shared by API key restrictions and the memory API:
 * 1 to 64 characters, starting with a letter or digit, then letters, digits, `.`, `_`, `-` or `:`.
 * Case-sensitive. The default namespace is `default`.
 */
export const NAMESPACE_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

export const DEFAULT_NAMESPACE = 'default';

export const namespaceSchema = z
  .string()
  .regex(NAMESPACE_PATTERN, 'namespace must be 1-64 characters: letters, digits, ".", "_", "-", ":", starting with a letter or digit')
  .meta({
    description: 'Namespace name (1-64 characters: letters, digits, ".", "_", "-", ":", starting with a letter or digit)',
    example: 'default',
  });

export function isValidNamespace(name: string): boolean {
  return NAMESPACE_PATTERN.test(name);
}
