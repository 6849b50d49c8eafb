import type { Octokit } from '@octokit/rest';
import type { SourceIdentities } from '../kit/index.ts';
import { call } from './client.ts';
import { repoGroup } from './map.ts';

/** A GitHub account as the identity directory names it: `github:<numeric user id>` (stable across login renames). */
export const githubAccount = (id: number) => `github:${id}`;

interface Collaborator {
  readonly id: number;
  readonly login: string;
  readonly email?: string | null;
  readonly name?: string | null;
}

/**
 * The readers of each private repository: `GET /repos/{owner}/{repo}/collaborators?affiliation=all` lists outside
 * collaborators, direct collaborators, organization members with access through a team (child teams included) or
 * the organization's base permission, and owners: the whole list, so it replaces the `github:<owner/repo>` group.
 * The endpoint needs push access (and `read:org` + `repo` for classic tokens): a 403/404 leaves that repository's
 * group as it was and says so in the sync's `status_reason`, it does not fail the sync. GitHub gives no email here
 * (only a public profile email, which `collaborators` does not carry): accounts are listed for an admin to map.
 */
export async function readCollaborators(gh: Octokit, repos: readonly string[]): Promise<{ identities?: SourceIdentities; notices?: string[] }> {
  if (repos.length === 0) return {};
  const accounts = new Map<number, { account_id: string; email: string | null; display_name: string }>();
  const groups: { group_id: string; members: string[] }[] = [];
  const refused: string[] = [];
  for (const full of repos) {
    const [owner = '', repo = ''] = full.split('/');
    try {
      const list = (await call(() => gh.paginate('GET /repos/{owner}/{repo}/collaborators', { owner, repo, affiliation: 'all', per_page: 100 }))) as unknown as Collaborator[];
      for (const c of list) accounts.set(c.id, { account_id: githubAccount(c.id), email: c.email ? c.email.toLowerCase() : null, display_name: c.login });
      groups.push({ group_id: repoGroup(full), members: list.map((c) => githubAccount(c.id)) });
    } catch (err) {
      const status = (err as { status?: number }).status;
      if (status !== 403 && status !== 404) throw err;
      refused.push(full);
    }
  }
  const notices =
    refused.length > 0
      ? [`GitHub refused the collaborator list of ${refused.length} private repositor${refused.length === 1 ? 'y' : 'ies'} (${refused.slice(0, 5).join(', ')}${refused.length > 5 ? ', …' : ''}): the token needs push access (and read:org + repo scopes); their readers were not updated.`]
      : [];
  return { identities: { accounts: [...accounts.values()], groups }, ...(notices.length > 0 ? { notices } : {}) };
}
