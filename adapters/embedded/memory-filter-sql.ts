import type { MemoryFilterQuery } from '../../server/ports/memories.js';

/** `?, ?, …` for n parameters. */
function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

/** SQLite LIKE pattern matching `text` literally (escape character `\`). */
function likeLiteral(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The WHERE clause of a memory list, count or bulk-deletion batch (one translation of the filters, so
 * what a list shows is what a deletion by the same filter takes). Null: an empty namespace list selects nothing.
 */
export function whereOf(tenantId: string, q: MemoryFilterQuery): { clause: string; params: unknown[] } | null {
  if (q.namespaces !== null && q.namespaces.length === 0) return null;
  const where = ['tenant_id = ?'];
  const params: unknown[] = [tenantId];
  if (q.namespaces !== null) {
    where.push(`namespace IN (${placeholders(q.namespaces.length)})`);
    params.push(...q.namespaces);
  }
  if (q.text) {
    where.push("(title LIKE ? ESCAPE '\\' OR content LIKE ? ESCAPE '\\')");
    const pattern = likeLiteral(q.text);
    params.push(pattern, pattern);
  }
  const equal: [string, string | undefined][] = [
    ['type', q.type],
    ['sensitivity', q.sensitivity],
    ['status', q.status],
    ['contradiction_status', q.contradiction],
  ];
  for (const [column, value] of equal) {
    if (!value) continue;
    where.push(`${column} = ?`);
    params.push(value);
  }
  if (q.from) {
    where.push('created_at >= ?');
    params.push(q.from);
  }
  if (q.to) {
    where.push('created_at <= ?');
    params.push(q.to);
  }
  if (!q.includeMerged) where.push('merged_into IS NULL');
  return { clause: where.join(' AND '), params };
}
