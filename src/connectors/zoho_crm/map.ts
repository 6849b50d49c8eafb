import { parseHtml, type SourceAcl, type SourceDocument } from '../kit/index.ts';
import type { ZohoModule } from './schemas.ts';

/** Zoho CRM v2 records (`data[]` of GET /crm/v2/<Module>) and their pure mapping to readable-text documents. */
export type ZohoRecord = Record<string, unknown>;

/** A field as display text: strings, numbers, booleans, a lookup's `name`; null when empty. */
export function field(r: ZohoRecord, name: string): string | null {
  const v = r[name];
  if (v === null || v === undefined || v === '') return null;
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v === 'object' && !Array.isArray(v)) {
    const n = (v as Record<string, unknown>).name;
    return typeof n === 'string' && n ? n : null;
  }
  return null;
}

const lookup = (r: ZohoRecord, name: string): { id?: string; name?: string; email?: string } => {
  const v = r[name];
  return v && typeof v === 'object' && !Array.isArray(v) ? (v as { id?: string; name?: string; email?: string }) : {};
};

interface ModuleSpec {
  readonly documentType: string;
  readonly label: string;
  readonly title: (r: ZohoRecord) => string | null;
  readonly lines: readonly (readonly [string, string])[];
}

export const MODULES: Record<ZohoModule, ModuleSpec> = {
  Leads: {
    documentType: 'lead',
    label: 'Lead',
    title: (r) => field(r, 'Full_Name') ?? ([field(r, 'First_Name'), field(r, 'Last_Name')].filter(Boolean).join(' ') || null),
    lines: [
      ['Company', 'Company'],
      ['Title', 'Designation'],
      ['Email', 'Email'],
      ['Phone', 'Phone'],
      ['Status', 'Lead_Status'],
      ['Source', 'Lead_Source'],
      ['Industry', 'Industry'],
      ['Owner', 'Owner'],
    ],
  },
  Contacts: {
    documentType: 'contact',
    label: 'Contact',
    title: (r) => field(r, 'Full_Name') ?? ([field(r, 'First_Name'), field(r, 'Last_Name')].filter(Boolean).join(' ') || null),
    lines: [
      ['Title', 'Title'],
      ['Account', 'Account_Name'],
      ['Department', 'Department'],
      ['Email', 'Email'],
      ['Phone', 'Phone'],
      ['Owner', 'Owner'],
    ],
  },
  Accounts: {
    documentType: 'account',
    label: 'Account',
    title: (r) => field(r, 'Account_Name'),
    lines: [
      ['Type', 'Account_Type'],
      ['Industry', 'Industry'],
      ['Website', 'Website'],
      ['Phone', 'Phone'],
      ['City', 'Billing_City'],
      ['Country', 'Billing_Country'],
      ['Annual revenue', 'Annual_Revenue'],
      ['Employees', 'Employees'],
      ['Owner', 'Owner'],
    ],
  },
  Deals: {
    documentType: 'deal',
    label: 'Deal',
    title: (r) => field(r, 'Deal_Name'),
    lines: [
      ['Account', 'Account_Name'],
      ['Contact', 'Contact_Name'],
      ['Stage', 'Stage'],
      ['Amount', 'Amount'],
      ['Closing date', 'Closing_Date'],
      ['Probability', 'Probability'],
      ['Type', 'Type'],
      ['Lead source', 'Lead_Source'],
      ['Next step', 'Next_Step'],
      ['Owner', 'Owner'],
    ],
  },
  Notes: {
    documentType: 'note',
    label: 'Note',
    title: (r) => field(r, 'Note_Title'),
    lines: [['Owner', 'Owner']],
  },
};

export const externalId = (module: ZohoModule, id: string): string => `${MODULES[module].documentType}:${id}`;

/** `https://crm.zoho.<dc>/crm/tab/<Module>/<id>`; a note links to its parent record (notes have no page of their own). */
export function recordUrl(crm: string, module: ZohoModule, r: ZohoRecord): string {
  const base = crm.replace(/\/+$/, '');
  if (module === 'Notes') {
    const parent = lookup(r, 'Parent_Id');
    const parentModule = field(r, '$se_module');
    if (parent.id && parentModule) return `${base}/crm/tab/${encodeURIComponent(parentModule)}/${encodeURIComponent(parent.id)}`;
  }
  return `${base}/crm/tab/${module}/${encodeURIComponent(String(r.id ?? ''))}`;
}

/** The owner: email (lower-cased) where Zoho gives it, and `zoho_crm:<user id>`. */
export function ownerAcl(r: ZohoRecord): SourceAcl {
  const o = lookup(r, 'Owner');
  const users = [...(o.email ? [o.email.toLowerCase()] : []), ...(o.id ? [`zoho_crm:${o.id}`] : [])];
  return users.length > 0 ? { users } : {};
}

export function ownerAuthor(r: ZohoRecord): string | undefined {
  const o = lookup(r, 'Owner');
  if (o.email) return o.email.toLowerCase();
  return o.id ? `zoho_crm:${o.id}` : undefined;
}

const iso = (v: string | null): string | undefined => {
  if (!v) return undefined;
  const d = new Date(v);
  return Number.isNaN(d.getTime()) ? v : d.toISOString();
};

/** Note contents may hold HTML (rich-text notes): rendered to text. */
const noteText = (s: string) => (/<[a-z][\s\S]*>/i.test(s) ? parseHtml(s).content : s);

export function recordToDocument(module: ZohoModule, r: ZohoRecord, crm: string): SourceDocument {
  const spec = MODULES[module];
  const id = String(r.id ?? '');
  const name = spec.title(r) ?? `${spec.label} ${id}`;
  const lines = [`${spec.label}: ${name}`, ...spec.lines.map(([label, f]) => (field(r, f) ? `${label}: ${field(r, f)}` : ''))].filter(Boolean);
  if (module === 'Notes') {
    const parent = lookup(r, 'Parent_Id');
    if (parent.name) lines.splice(1, 0, `On: ${field(r, '$se_module') ?? 'record'} ${parent.name}`);
  }
  const description = module === 'Notes' ? (field(r, 'Note_Content') ? noteText(String(field(r, 'Note_Content'))) : null) : field(r, 'Description');
  const parts = [lines.join('\n'), description ? (module === 'Notes' ? description : `Description: ${description}`) : ''];
  const created = iso(field(r, 'Created_Time'));
  const updated = iso(field(r, 'Modified_Time'));
  const owner = lookup(r, 'Owner');
  const account = lookup(r, 'Account_Name');
  const parent = lookup(r, 'Parent_Id');
  return {
    external_id: externalId(module, id),
    title: module === 'Notes' && !field(r, 'Note_Title') && parent.name ? `Note on ${parent.name}` : name,
    content: parts.filter((s) => s.trim()).join('\n\n'),
    url: recordUrl(crm, module, r),
    author: ownerAuthor(r),
    document_type: spec.documentType,
    ...(created ? { created_at: created } : {}),
    ...(updated ? { updated_at: updated } : {}),
    metadata: {
      zoho_id: id,
      module,
      owner_id: owner.id ?? null,
      owner: owner.name ?? null,
      ...(account.id ? { account_id: account.id, account: account.name ?? null } : {}),
      ...(module === 'Deals' ? { stage: field(r, 'Stage'), amount: typeof r.Amount === 'number' ? r.Amount : null, closing_date: field(r, 'Closing_Date') } : {}),
      ...(module === 'Leads' ? { lead_status: field(r, 'Lead_Status'), company: field(r, 'Company') } : {}),
      ...(module === 'Notes' ? { parent_id: parent.id ?? null, parent_module: field(r, '$se_module') } : {}),
    },
    acl: ownerAcl(r),
  };
}
