import type { SourceDocument } from '../kit/index.ts';
import type { Directory, OpenAIAuditLog, OpenAIProject, OpenAIProjectKey, OpenAIServiceAccount, OpenAIUser } from './wire.ts';

/* Labels and the OpenAI organisation's directory as documents (users, projects, keys, service accounts, audit). */

// ---- helpers ----

const DASHBOARD = 'https://platform.openai.com';
export const USAGE_URL = `${DASHBOARD}/usage`;
export const API_KEYS_URL = `${DASHBOARD}/settings/organization/api-keys`;
export const ORG_URL = `${DASHBOARD}/settings/organization/general`;

export const iso = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString();
export const dayOf = (unixSeconds: number): string => iso(unixSeconds).slice(0, 10);
const when = (unixSeconds: number): string => `${iso(unixSeconds).slice(0, 16).replace('T', ' ')} UTC`;
const lower = (s: string | null | undefined): string | null => (s ? s.toLowerCase() : null);

/** `1.2 M`, `34.5 k`, `812`: token counts as a person reads them. */
export function compact(n: number): string {
  if (Math.abs(n) >= 1e9) return `${trim(n / 1e9)} B`;
  if (Math.abs(n) >= 1e6) return `${trim(n / 1e6)} M`;
  if (Math.abs(n) >= 1e4) return `${trim(n / 1e3)} k`;
  return String(n);
}
const trim = (x: number): string => (Math.round(x * 10) / 10).toString();
export const usd = (v: number): string => `$${v.toFixed(2)}`;

export const userLabel = (dir: Directory, id: string | null | undefined): string | null => {
  if (!id) return null;
  const u = dir.users[id];
  return u?.email ?? u?.name ?? id;
};
export const projectLabel = (dir: Directory, id: string | null | undefined): string | null => (id ? (dir.projects[id] ?? id) : null);
export const keyLabel = (dir: Directory, id: string | null | undefined): string | null => (id ? (dir.keys[id]?.redacted ?? id) : null);

// ---- directory documents ----

export const userExternalId = (id: string) => `user:${id}`;
export const projectExternalId = (id: string) => `project:${id}`;
export const apiKeyExternalId = (id: string) => `api_key:${id}`;
export const serviceAccountExternalId = (id: string) => `service_account:${id}`;
export const auditExternalId = (id: string) => `audit:${id}`;
/** The account id of an OpenAI user or service account in the identity directory. */
export const openaiAccount = (id: string) => `openai:${id}`;

export function userToDocument(u: OpenAIUser): SourceDocument {
  const who = u.name || u.email || u.id;
  return {
    external_id: userExternalId(u.id),
    title: `OpenAI user ${who}${u.email && u.name ? ` (${u.email.toLowerCase()})` : ''}`,
    content: [
      `Name: ${u.name ?? '—'}`,
      `Email: ${lower(u.email) ?? '—'}`,
      `Organization role: ${u.role ?? '—'}`,
      u.added_at ? `Added: ${when(u.added_at)}` : '',
      u.is_service_account ? 'Service account user' : '',
      `User id: ${u.id}`,
    ]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    author: lower(u.email) ?? undefined,
    document_type: 'openai_user',
    ...(u.added_at ? { created_at: iso(u.added_at), updated_at: iso(u.added_at) } : {}),
    metadata: { openai_id: u.id, email: lower(u.email), role: u.role ?? null },
  };
}

export function projectToDocument(p: OpenAIProject): SourceDocument {
  const archived = p.archived_at ?? null;
  return {
    external_id: projectExternalId(p.id),
    title: `OpenAI project ${p.name ?? p.id}`,
    content: [`Project: ${p.name ?? p.id}`, `Status: ${p.status ?? (archived ? 'archived' : 'active')}`, `Created: ${when(p.created_at)}`, archived ? `Archived: ${when(archived)}` : '', `Project id: ${p.id}`]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    document_type: 'openai_project',
    created_at: iso(p.created_at),
    updated_at: iso(archived ?? p.created_at),
    metadata: { openai_id: p.id, status: p.status ?? null },
  };
}

/** A project API key: its name and OpenAI's redacted value (`sk-…abcd`) only, never the secret. */
export function apiKeyToDocument(k: OpenAIProjectKey, project: { id: string; name: string }): SourceDocument {
  const owner = k.owner?.user?.email?.toLowerCase() ?? k.owner?.user?.name ?? (k.owner?.service_account ? `service account ${k.owner.service_account.name ?? k.owner.service_account.id}` : null);
  return {
    external_id: apiKeyExternalId(k.id),
    title: `OpenAI API key ${k.name ?? k.id} (${k.redacted_value})`,
    content: [
      `API key: ${k.name ?? '—'} ${k.redacted_value}`,
      `Project: ${project.name}`,
      `Owner: ${owner ?? '—'}${k.owner?.type ? ` (${k.owner.type})` : ''}`,
      `Created: ${when(k.created_at)}`,
      `Last used: ${k.last_used_at ? when(k.last_used_at) : 'never'}`,
      `Key id: ${k.id}`,
    ].join('\n'),
    url: API_KEYS_URL,
    author: k.owner?.user?.email?.toLowerCase() ?? undefined,
    document_type: 'openai_api_key',
    created_at: iso(k.created_at),
    // Last use is not a change of the key: it stays in metadata so a used key is not re-stored on every sync.
    updated_at: iso(k.created_at),
    metadata: { openai_id: k.id, redacted_value: k.redacted_value, project_id: project.id, owner, last_used_at: k.last_used_at ? iso(k.last_used_at) : null },
  };
}

export function serviceAccountToDocument(s: OpenAIServiceAccount, project: { id: string; name: string }): SourceDocument {
  return {
    external_id: serviceAccountExternalId(s.id),
    title: `OpenAI service account ${s.name ?? s.id}`,
    content: [`Service account: ${s.name ?? s.id}`, `Project: ${project.name}`, `Role: ${s.role ?? '—'}`, `Created: ${when(s.created_at)}`, `Service account id: ${s.id}`].join('\n'),
    url: ORG_URL,
    document_type: 'openai_service_account',
    created_at: iso(s.created_at),
    updated_at: iso(s.created_at),
    metadata: { openai_id: s.id, project_id: project.id, role: s.role ?? null },
  };
}

/** Who did it: the session's user, the API key's user or service account. */
export function auditActor(e: OpenAIAuditLog, dir: Directory): { label: string; email: string | null } {
  const a = e.actor;
  const sessionEmail = lower(a?.session?.user?.email);
  if (a?.session) return { label: `${sessionEmail ?? a.session.user?.id ?? 'unknown user'}${a.session.ip_address ? ` from ${a.session.ip_address}` : ''}`, email: sessionEmail };
  if (a?.api_key) {
    const key = a.api_key.id ? ` with key ${keyLabel(dir, a.api_key.id)}` : '';
    const email = lower(a.api_key.user?.email);
    if (email || a.api_key.user?.id) return { label: `${email ?? a.api_key.user?.id}${key}`, email };
    const sa = a.api_key.service_account?.id;
    if (sa) return { label: `service account ${dir.serviceAccounts[sa] ?? sa}${key}`, email: null };
    return { label: `API key ${keyLabel(dir, a.api_key.id) ?? 'unknown'}`, email: null };
  }
  return { label: 'OpenAI', email: null };
}

/** An audit event: what happened (type), who (actor), when, on what (the type's target object and its details). */
export function auditToDocument(e: OpenAIAuditLog, dir: Directory): SourceDocument {
  const actor = auditActor(e, dir);
  const detail = (e as Record<string, unknown>)[e.type];
  const target = detail && typeof detail === 'object' ? (detail as Record<string, unknown>) : null;
  const targetId = typeof target?.id === 'string' ? target.id : null;
  const project = e.project?.name ?? (e.project?.id ? projectLabel(dir, e.project.id) : null);
  const details = target ? Object.entries(target).filter(([k]) => k !== 'id') : [];
  return {
    external_id: auditExternalId(e.id),
    title: `${e.type} by ${actor.label} — ${when(e.effective_at)}`,
    content: [
      `Event: ${e.type}`,
      `Actor: ${actor.label}`,
      `When: ${when(e.effective_at)}`,
      project ? `Project: ${project}` : '',
      targetId ? `Target: ${targetLabel(targetId, dir)}` : '',
      ...details.map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`),
    ]
      .filter(Boolean)
      .join('\n'),
    url: ORG_URL,
    author: actor.email ?? undefined,
    document_type: 'openai_audit_event',
    created_at: iso(e.effective_at),
    updated_at: iso(e.effective_at),
    metadata: { event_type: e.type, effective_at: e.effective_at, actor: actor.label, actor_email: actor.email, project_id: e.project?.id ?? null, target_id: targetId },
  };
}

function targetLabel(id: string, dir: Directory): string {
  const named = dir.projects[id] ?? dir.keys[id]?.redacted ?? dir.serviceAccounts[id] ?? (dir.users[id] ? userLabel(dir, id) : null);
  return named ? `${named} (${id})` : id;
}
