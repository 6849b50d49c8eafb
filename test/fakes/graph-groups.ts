import type { FakeReply, FakeRequest, VendorFake } from './kit/index.ts';

/**
 * Microsoft Graph groups for the Graph fakes (SharePoint, Teams): `GET /v1.0/groups/{id}/transitiveMembers/
 * microsoft.graph.user` as Graph answers it — users only (the OData cast), nested groups flattened, `$select` honoured,
 * `$top` ≤ 999 (default 100), `@odata.nextLink` with `$skiptoken`; 404 `Request_ResourceNotFound` for an unknown
 * group; 403 `Authorization_RequestDenied` while `refused` (GroupMember.Read.All not granted).
 */
export interface GraphDirectory {
  /** Every user: `mail` may be null (then `userPrincipalName` is what identifies them). */
  users: { id: string; displayName: string; mail: string | null; userPrincipalName: string }[];
  /** Group id → member ids (users or nested groups). */
  groups: Record<string, string[]>;
  refused: boolean;
}

export function serveGraphGroups(fake: VendorFake, dir: GraphDirectory): void {
  fake.route('GET', '/v1.0/groups/:id/transitiveMembers/microsoft.graph.user', (req: FakeRequest): FakeReply => {
    const id = req.params.id ?? '';
    if (dir.refused) return { status: 403, json: { error: { code: 'Authorization_RequestDenied', message: 'Insufficient privileges to complete the operation.' } } };
    if (!dir.groups[id]) return { status: 404, json: { error: { code: 'Request_ResourceNotFound', message: `Resource '${id}' does not exist or one of its queried reference-property objects are not present.` } } };
    const seen = new Set<string>([id]);
    const users = new Set<string>();
    const walk = (g: string) => {
      for (const m of dir.groups[g] ?? []) {
        if (dir.groups[m] !== undefined) {
          if (!seen.has(m)) {
            seen.add(m);
            walk(m);
          }
        } else users.add(m);
      }
    };
    walk(id);
    const select = req.query.get('$select')?.split(',');
    const all = dir.users
      .filter((u) => users.has(u.id))
      .map((u) => ({ '@odata.type': '#microsoft.graph.user', ...Object.fromEntries(Object.entries(u).filter(([k]) => !select || select.includes(k) || k === 'id')) }));
    const top = Math.min(999, Number(req.query.get('$top') ?? 100) || 100);
    const skip = Number(req.query.get('$skiptoken') ?? 0);
    const more = skip + top < all.length;
    const link = `${fake.url}/v1.0/groups/${encodeURIComponent(id)}/transitiveMembers/microsoft.graph.user?$select=${select?.join(',') ?? ''}&$top=${top}&$skiptoken=${skip + top}`;
    return { json: { '@odata.context': 'https://graph.microsoft.com/v1.0/$metadata#users', value: all.slice(skip, skip + top), ...(more ? { '@odata.nextLink': link } : {}) } };
  });
}
