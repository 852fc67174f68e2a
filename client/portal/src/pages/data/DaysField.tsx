import { Checkbox, TextField } from '../../ui';
import { RETENTION_MAX_DAYS, type DaysDraft } from './retentionValue';

/** One retention setting: a number of days, or "keep forever" (which disables the number). */
export function DaysField({
  legend,
  explanation,
  draft,
  error,
  onChange,
}: {
  legend: string;
  explanation: string;
  draft: DaysDraft;
  error: string | undefined;
  onChange: (draft: DaysDraft) => void;
}) {
  return (
    <fieldset className="data-fieldset">
      <legend>{legend}</legend>
      <p className="field-hint">{explanation}</p>
      <Checkbox label="Keep forever" checked={draft.forever} onChange={(forever) => onChange({ ...draft, forever })} />
      <TextField
        label={`${legend}: days to keep`}
        type="number"
        inputMode="numeric"
        min={1}
        max={RETENTION_MAX_DAYS}
        step={1}
        value={draft.days}
        disabled={draft.forever}
        onChange={(days) => onChange({ ...draft, days })}
        error={draft.forever ? undefined : error}
      />
    </fieldset>
  );
}
