import { z } from 'zod';
import { listAccounts, listPeople, looksLikeEmail, mapAccountAs, setManualGroupMembers } from '../../identity/index.ts';
import type { App } from '../app.ts';
import { principalOf } from '../auth.ts';
import type { AppDeps } from '../deps.ts';

const account = z.object({
  account_id: z.string().describe('`<connector_type>:<vendor user id>`'),
  connector_id: z.string(),
  display_name: z.string().nullable(),
  email: z.string().nullable().describe('as the vendor reports it'),
  mapped_email: z.string().nullable().describe('set by an admin; wins over email'),
  groups: z.array(z.string()).describe('vendor groups the account is a member of'),
});

const email = z.string().trim().max(320).refine(looksLikeEmail, 'an email address');

/** The identity directory for admins (docs/permissions.md): vendor accounts, hand mappings, hand memberships. */
export async function identityRoutes(app: App, deps: AppDeps): Promise<void> {
  app.get(
    '/v1/identity/people',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'The people retrieval knows: SSO users and the emails vendor accounts resolve to, with their IdP groups, vendor accounts and vendor groups',
        tags: ['access'],
        response: {
          200: z.object({
            people: z.array(
              z.object({
                email: z.string(),
                display_name: z.string().nullable(),
                idp_groups: z.array(z.string()).describe('from the last SSO sign-in'),
                accounts: z.array(z.string()).describe('vendor accounts mapped to this email'),
                vendor_groups: z.array(z.string()).describe('vendor groups of the email or its accounts'),
              }),
            ),
          }),
        },
      },
    },
    async (request) => ({ people: await listPeople(deps.db, principalOf(request).tenantId) }),
  );

  app.get(
    '/v1/identity/accounts',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Vendor accounts the connectors saw; `unresolved=true` lists those no email resolves (their grants reach nobody yet)',
        tags: ['access'],
        querystring: z.object({ unresolved: z.enum(['true', 'false']).default('false') }).strict(),
        response: { 200: z.object({ accounts: z.array(account) }) },
      },
    },
    async (request) => ({ accounts: await listAccounts(deps.db, principalOf(request).tenantId, { unresolvedOnly: request.query.unresolved === 'true' }) }),
  );

  app.put(
    '/v1/identity/accounts/:account_id',
    {
      config: { permission: 'admin' },
      schema: {
        summary: 'Map a vendor account to a person by hand (email null removes the mapping); kept across syncs',
        tags: ['access'],
        params: z.object({ account_id: z.string().min(1).max(600) }),
        body: z.object({ email: email.nullable() }).strict(),
        response: { 200: account },
      },
    },
    async (request) => mapAccountAs(deps.db, principalOf(request), request.params.account_id, request.body.email),
  );

  app.put(
    '/v1/identity/groups/:group_id/members',
    {
      config: { permission: 'admin' },
      schema: {
        summary: "Set a group's members by hand (emails or vendor account ids), for groups no connector mirrors yet (GitHub repositories, Linear teams)",
        description: 'Replaces the hand-set members of the group; members a connector syncs are kept. An empty list removes the hand-set members.',
        tags: ['access'],
        params: z.object({ group_id: z.string().min(1).max(600) }),
        body: z.object({ members: z.array(z.string().trim().min(1).max(600)).max(10_000) }).strict(),
        response: { 200: z.object({ group_id: z.string(), members: z.array(z.string()) }) },
      },
    },
    async (request) => ({
      group_id: request.params.group_id,
      members: await setManualGroupMembers(deps.db, principalOf(request), request.params.group_id, request.body.members),
    }),
  );
}
