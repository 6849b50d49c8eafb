// Turns a connector kind's settings JSON Schema (from GET /v1/connectors/catalog) into form fields,
// and the form's text values back into a settings object. Pure functions.

export type FieldKind = 'string' | 'secret' | 'boolean' | 'integer' | 'number' | 'string-list' | 'enum';

export interface FormField {
  readonly name: string;
  readonly label: string;
  readonly kind: FieldKind;
  readonly required: boolean;
  readonly description?: string;
  readonly options?: readonly string[];
  readonly defaultValue?: string | boolean;
  readonly minimum?: number;
  readonly maximum?: number;
}

type Json = Record<string, unknown>;

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function humanize(name: string): string {
  const s = name.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** Non-null variant of `anyOf`/`oneOf` (zod renders optional/nullable fields that way). */
function unwrap(schema: Json): Json {
  const variants = (Array.isArray(schema.anyOf) ? schema.anyOf : Array.isArray(schema.oneOf) ? schema.oneOf : null)?.filter(
    (v): v is Json => isObj(v) && v.type !== 'null',
  );
  if (variants && variants.length === 1 && variants[0]) return { ...schema, ...variants[0] };
  return schema;
}

function typeOf(schema: Json): string | undefined {
  if (typeof schema.type === 'string') return schema.type;
  if (Array.isArray(schema.type)) return schema.type.find((t): t is string => typeof t === 'string' && t !== 'null');
  return undefined;
}

const SECRET_NAME = /token|secret|password|api_?key|private_?key|credential/i;

/** One field per top-level property the form can edit; unsupported shapes (nested objects) are skipped. */
export function fieldsFromSchema(schema: unknown, opts: { secret?: boolean } = {}): FormField[] {
  if (!isObj(schema) || !isObj(schema.properties)) return [];
  const required = new Set(Array.isArray(schema.required) ? schema.required.filter((r): r is string => typeof r === 'string') : []);
  const fields: FormField[] = [];
  for (const [name, raw] of Object.entries(schema.properties)) {
    if (!isObj(raw)) continue;
    const prop = unwrap(raw);
    const type = typeOf(prop);
    const base = {
      name,
      label: typeof prop.title === 'string' ? prop.title : humanize(name),
      required: required.has(name) && prop.default === undefined,
      description: typeof prop.description === 'string' ? prop.description : undefined,
      minimum: typeof prop.minimum === 'number' ? prop.minimum : undefined,
      maximum: typeof prop.maximum === 'number' ? prop.maximum : undefined,
    };
    if (Array.isArray(prop.enum) && prop.enum.every((e) => typeof e === 'string')) {
      fields.push({ ...base, kind: 'enum', options: prop.enum as string[], defaultValue: typeof prop.default === 'string' ? prop.default : undefined });
    } else if (type === 'boolean') {
      fields.push({ ...base, kind: 'boolean', defaultValue: prop.default === true });
    } else if (type === 'integer' || type === 'number') {
      fields.push({ ...base, kind: type, defaultValue: typeof prop.default === 'number' ? String(prop.default) : undefined });
    } else if (type === 'array' && isObj(prop.items) && typeOf(prop.items) === 'string') {
      const def = Array.isArray(prop.default) ? prop.default.filter((d): d is string => typeof d === 'string').join(', ') : undefined;
      fields.push({ ...base, kind: 'string-list', defaultValue: def });
    } else if (type === 'string') {
      const secret = opts.secret === true || prop.writeOnly === true || prop.format === 'password' || SECRET_NAME.test(name);
      fields.push({ ...base, kind: secret ? 'secret' : 'string', defaultValue: typeof prop.default === 'string' ? prop.default : undefined });
    }
  }
  return fields;
}

export type FormValues = Readonly<Record<string, string | boolean>>;

export function initialValues(fields: readonly FormField[]): Record<string, string | boolean> {
  return Object.fromEntries(fields.map((f) => [f.name, f.defaultValue ?? (f.kind === 'boolean' ? false : '')]));
}

/**
 * Converts form values to the object the API expects. Empty optional fields are left out so the
 * server's defaults apply. Returns the problems by field name instead of throwing.
 */
export function valuesToObject(fields: readonly FormField[], values: FormValues): { value: Record<string, unknown>; errors: Record<string, string> } {
  const value: Record<string, unknown> = {};
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.kind === 'boolean') {
      value[f.name] = v === true;
      continue;
    }
    const text = typeof v === 'string' ? v.trim() : '';
    if (text === '') {
      if (f.required) errors[f.name] = `${f.label} is required`;
      continue;
    }
    if (f.kind === 'integer' || f.kind === 'number') {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n))) errors[f.name] = `${f.label} must be ${f.kind === 'integer' ? 'a whole number' : 'a number'}`;
      else if (f.minimum !== undefined && n < f.minimum) errors[f.name] = `${f.label} must be at least ${f.minimum}`;
      else if (f.maximum !== undefined && n > f.maximum) errors[f.name] = `${f.label} must be at most ${f.maximum}`;
      else value[f.name] = n;
    } else if (f.kind === 'string-list') {
      value[f.name] = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
    } else if (f.kind === 'enum' && f.options && !f.options.includes(text)) {
      errors[f.name] = `${f.label} must be one of ${f.options.join(', ')}`;
    } else {
      value[f.name] = text;
    }
  }
  return { value, errors };
}
