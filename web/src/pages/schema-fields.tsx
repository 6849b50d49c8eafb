import type { FormField } from '../lib/json-schema-form.ts';

/** Inputs for fields generated from a JSON Schema; every control is labelled and errors are announced. */
export function SchemaFields(props: {
  fields: readonly FormField[];
  values: Record<string, string | boolean>;
  errors: Record<string, string>;
  onChange: (next: Record<string, string | boolean>) => void;
  idPrefix: string;
}) {
  const { fields, values, errors, onChange, idPrefix } = props;
  const set = (name: string, v: string | boolean) => onChange({ ...values, [name]: v });
  return (
    <>
      {fields.map((f) => {
        const id = `${idPrefix}-${f.name}`;
        const err = errors[f.name];
        const describedBy = [f.description ? `${id}-hint` : '', err ? `${id}-err` : ''].filter(Boolean).join(' ') || undefined;
        const hint = f.kind === 'string-list' ? `${f.description ? `${f.description} ` : ''}(comma-separated)` : f.description;
        if (f.kind === 'boolean') {
          return (
            <div className="field" key={f.name}>
              <label className="check" htmlFor={id}>
                <input id={id} type="checkbox" checked={values[f.name] === true} onChange={(e) => set(f.name, e.target.checked)} aria-describedby={describedBy} /> {f.label}
              </label>
              {f.description && (
                <small id={`${id}-hint`} className="muted">
                  {f.description}
                </small>
              )}
            </div>
          );
        }
        const value = typeof values[f.name] === 'string' ? (values[f.name] as string) : '';
        return (
          <div className="field" key={f.name}>
            <label htmlFor={id}>
              {f.label}
              {f.required ? ' *' : ''}
            </label>
            {f.kind === 'enum' ? (
              <select id={id} value={value} onChange={(e) => set(f.name, e.target.value)} aria-describedby={describedBy} aria-invalid={!!err}>
                <option value="">(default)</option>
                {f.options?.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                type={f.kind === 'secret' ? 'password' : f.kind === 'integer' || f.kind === 'number' ? 'number' : 'text'}
                step={f.kind === 'number' ? 'any' : undefined}
                min={f.minimum}
                max={f.maximum}
                value={value}
                autoComplete="off"
                onChange={(e) => set(f.name, e.target.value)}
                aria-describedby={describedBy}
                aria-invalid={!!err}
              />
            )}
            {hint && (
              <small id={`${id}-hint`} className="muted">
                {hint}
              </small>
            )}
            {err && (
              <small id={`${id}-err`} className="field-error" role="alert">
                {err}
              </small>
            )}
          </div>
        );
      })}
    </>
  );
}
