/** Text badges (never colour alone): what needs attention about a memory. */
export function FlagBadges({
  injection,
  contradiction,
  dirty,
}: {
  injection: boolean;
  contradiction: string;
  dirty?: boolean | undefined;
}) {
  const badges: { key: string; text: string; tone: 'danger' | 'warn' | 'info' }[] = [];
  if (injection) badges.push({ key: 'injection', text: 'Injection flagged', tone: 'danger' });
  if (contradiction === 'flagged') badges.push({ key: 'contradiction', text: 'Contradiction', tone: 'warn' });
  if (dirty) badges.push({ key: 'queued', text: 'Write queued', tone: 'info' });
  if (badges.length === 0) return <span className="mem-muted">None</span>;
  return (
    <span className="mem-badges">
      {badges.map((b) => (
        <span key={b.key} className={`mem-badge mem-badge-${b.tone}`}>
          {b.text}
        </span>
      ))}
    </span>
  );
}

/** A sensitivity level as text with a marker shape, so it reads without colour. */
export function SensitivityBadge({ value }: { value: string }) {
  return <span className={`mem-badge mem-sens-${value}`}>{value}</span>;
}
