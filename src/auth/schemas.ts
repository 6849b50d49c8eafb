import { z } from 'zod';
import { ROLES } from '../access/index.ts';

const attributeName = z.string().trim().min(1).max(256);

export const attributeMappingSchema = z
  .object({ email: attributeName.optional(), name: attributeName.optional(), groups: attributeName.optional() })
  .strict()
  .describe('IdP attribute (SAML) or claim (OIDC) per user field; `email` may be `NameID`. Unset fields use the common names.');

const httpUrl = z.url({ protocol: /^https?$/ }).max(2000);

export const samlConfigSchema = z.object({
  idp_entity_id: z.string().trim().min(1).max(1000),
  idp_sso_url: httpUrl.describe('the IdP SSO endpoint for the HTTP-Redirect binding'),
  idp_certificate: z.string().min(1).max(20_000).describe('the IdP signing certificate, PEM'),
  attribute_mapping: attributeMappingSchema.optional(),
});
export type SamlConfigInput = z.infer<typeof samlConfigSchema>;

export const oidcConfigSchema = z.object({
  client_id: z.string().trim().min(1).max(500),
  client_secret: z.string().min(1).max(2000).describe('stored encrypted, never returned'),
  issuer_url: httpUrl,
  scopes: z
    .array(z.string().regex(/^[\x21\x23-\x5B\x5D-\x7E]+$/, 'a scope token'))
    .max(50)
    .default(['openid', 'profile', 'email'])
    .refine((s) => ['openid', 'profile', 'email'].every((r) => s.includes(r)), 'scopes must include openid, profile and email'),
  attribute_mapping: attributeMappingSchema.optional(),
});
export type OidcConfigInput = z.infer<typeof oidcConfigSchema>;

export const roleSchema = z.enum(ROLES);

export const groupMappingSchema = z.object({
  group_mapping: z
    .record(z.string().min(1).max(500), roleSchema)
    .refine((m) => Object.keys(m).length <= 1000, 'at most 1000 groups')
    .describe('IdP group name → role'),
  default_role: roleSchema.default('viewer').describe('role of users in no mapped group'),
});
export type GroupMappingInput = z.infer<typeof groupMappingSchema>;

export const runtimeConfigSchema = z
  .object({
    debug_mode: z.boolean(),
    session_ttl_seconds: z.number().int().min(60).max(2_592_000).nullable().optional().describe('null returns to the service default'),
  })
  .strict();
export type RuntimeConfigInput = z.infer<typeof runtimeConfigSchema>;

const problemSchema = z.object({ code: z.string(), message: z.string(), remedy: z.string() });

const mappingView = z.object({ email: z.string().optional(), name: z.string().optional(), groups: z.string().optional() });

export const configViewSchema = z.object({
  tenant_id: z.string(),
  active_provider: z.enum(['saml', 'oidc']).nullable(),
  saml: z
    .object({
      idp_entity_id: z.string(),
      idp_sso_url: z.string(),
      idp_certificate: z.string(),
      certificate: z.object({ subject: z.string(), not_before: z.string(), not_after: z.string(), fingerprint_sha256: z.string() }),
      attribute_mapping: mappingView,
    })
    .nullable(),
  oidc: z
    .object({
      client_id: z.string(),
      issuer_url: z.string(),
      scopes: z.array(z.string()),
      attribute_mapping: mappingView,
      client_secret_set: z.boolean().describe('the secret itself is never returned'),
    })
    .nullable(),
  group_mapping: z.record(z.string(), roleSchema),
  default_role: roleSchema,
  debug_mode: z.boolean(),
  session_ttl_seconds: z.number().int(),
  clock_skew_seconds: z.number().int(),
  service_provider: z.object({
    entity_id: z.string(),
    audience: z.string(),
    acs_url: z.string(),
    metadata_url: z.string(),
    oidc_redirect_uri: z.string(),
    login_url: z.string(),
  }),
  updated_at: z.string().nullable(),
});

export const statusSchema = z.object({
  enabled: z.boolean(),
  provider_type: z.enum(['saml', 'oidc']).nullable(),
  provider_name: z.string().nullable(),
  last_login: z.string().nullable().describe('ISO 8601 UTC timestamp of the last successful sign-in'),
});

export const testReportSchema = z.object({
  test_mode: z.literal(true),
  ok: z.boolean(),
  provider_type: z.enum(['saml', 'oidc']).nullable(),
  checks: z.array(z.object({ name: z.string(), ok: z.boolean(), problems: z.array(problemSchema) })),
  problems: z.array(problemSchema),
  clock_offset_seconds: z.number().nullable(),
  extracted: z.record(z.string(), z.unknown()).nullable(),
  mapped_user: z.record(z.string(), z.unknown()).nullable(),
  user_created: z.literal(false),
  session_created: z.literal(false),
});
