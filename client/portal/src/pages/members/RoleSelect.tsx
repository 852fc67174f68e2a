import { useId } from 'react';
import type { RoleName } from './roles';

/** A compact, labelled role picker for a table cell (the label is for screen readers). */
export function RoleSelect({
  label,
  value,
  roles,
  disabled,
  onChange,
}: {
  label: string;
  value: RoleName;
  roles: readonly RoleName[];
  disabled?: boolean;
  onChange: (role: RoleName) => void;
}) {
  const id = useId();
  const options = roles.includes(value) ? roles : [value, ...roles];
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <select id={id} value={value} disabled={disabled} onChange={(e) => onChange(e.target.value as RoleName)}>
        {options.map((r) => (
          <option key={r} value={r}>
            {r}
          </option>
        ))}
      </select>
    </>
  );
}
