import { percent } from './format';

/** A completeness bar with its value as text beside it (the bar is decoration; the text is the meaning). */
export function Completeness({ score }: { score: number }) {
  const clamped = Math.max(0, Math.min(1, score));
  return (
    <span className="kn-completeness">
      <span className="kn-bar" aria-hidden="true">
        <span className="kn-bar-fill" style={{ width: `${clamped * 100}%` }} />
      </span>
      <span>{percent(clamped)}</span>
    </span>
  );
}
