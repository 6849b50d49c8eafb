import { type Problem, problem } from './problems.ts';

export interface AttributeMapping {
  readonly email?: string | undefined;
  readonly name?: string | undefined;
  readonly groups?: string | undefined;
}

export interface MappedIdentity {
  readonly email: string;
  readonly name: string | null;
  readonly groups: string[];
}

type Attrs = Readonly<Record<string, unknown>>;

/** IdP attribute names tried, in order, when attribute_mapping names none (SAML friendly names and URIs, OIDC claims). */
const DEFAULTS = {
  email: ['email', 'mail', 'emailAddress', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'urn:oid:0.9.2342.19200300.100.1.3'],
  name: ['displayName', 'name', 'http://schemas.microsoft.com/identity/claims/displayname', 'urn:oid:2.16.840.1.113730.3.1.241'],
  first: ['firstName', 'givenName', 'given_name', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/givenname', 'urn:oid:2.5.4.42'],
  last: ['lastName', 'sn', 'surname', 'family_name', 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/surname', 'urn:oid:2.5.4.4'],
  groups: ['groups', 'memberOf', 'http://schemas.microsoft.com/ws/2008/06/identity/claims/groups', 'urn:oid:1.3.6.1.4.1.5923.1.5.1.1'],
} as const;

function values(v: unknown): string[] {
  if (v === undefined || v === null) return [];
  if (Array.isArray(v)) return v.flatMap(values);
  if (typeof v === 'string') return v.trim() ? [v.trim()] : [];
  if (typeof v === 'number' || typeof v === 'boolean') return [String(v)];
  return [];
}

function first(attrs: Attrs, names: readonly string[]): string | undefined {
  for (const n of names) {
    const v = values(attrs[n])[0];
    if (v) return v;
  }
  return undefined;
}

const EMAIL = /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/;

/**
 * Maps IdP attributes (SAML attributes or OIDC claims) to the user's email, name and groups. `nameId` is the SAML
 * NameID, used for the email when the mapping names no attribute and the NameID is an address. A configured
 * attribute that is absent is a problem (`sso_attribute_not_mapped`) rather than a silent fallback.
 */
export function mapIdentity(attrs: Attrs, mapping: AttributeMapping, nameId?: string): { identity: MappedIdentity } | { problem: Problem } {
  let email: string | undefined;
  if (mapping.email) {
    email = mapping.email === 'NameID' ? nameId : first(attrs, [mapping.email]);
    if (!email) {
      const seen = Object.keys(attrs).slice(0, 20).join(', ') || 'none';
      return { problem: problem('sso_attribute_not_mapped', `attribute_mapping.email names '${mapping.email}', which the IdP did not send (it sent: ${seen})`) };
    }
  } else {
    email = first(attrs, DEFAULTS.email) ?? (nameId && EMAIL.test(nameId) ? nameId : undefined);
    if (!email) {
      const seen = Object.keys(attrs).slice(0, 20).join(', ') || 'none';
      return { problem: problem('sso_attribute_not_mapped', `no email attribute (email, mail) or email NameID in the IdP response (it sent: ${seen})`) };
    }
  }
  email = email.toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) {
    return { problem: problem('sso_attribute_not_mapped', `the mapped email attribute is not an email address`) };
  }
  let name: string | undefined;
  if (mapping.name) {
    name = first(attrs, [mapping.name]);
    if (!name) return { problem: problem('sso_attribute_not_mapped', `attribute_mapping.name names '${mapping.name}', which the IdP did not send`) };
  } else {
    const given = first(attrs, DEFAULTS.first);
    const family = first(attrs, DEFAULTS.last);
    name = first(attrs, DEFAULTS.name) ?? ([given, family].filter(Boolean).join(' ') || undefined);
  }
  let groups: string[];
  if (mapping.groups) {
    // An absent groups attribute is normal for a user in no group: they get the default role.
    groups = values(attrs[mapping.groups]);
  } else {
    groups = DEFAULTS.groups.flatMap((n) => values(attrs[n]));
  }
  return { identity: { email, name: name ? name.slice(0, 500) : null, groups: [...new Set(groups)].slice(0, 500) } };
}
