import { z } from 'zod';
import type { ActionDefinition, SourceContext } from '../kit/index.ts';
import { linearRequest } from './client.ts';
import type { LinearCredentials, LinearSettings } from './schemas.ts';

type Ctx = SourceContext<LinearCredentials, LinearSettings>;

const teamRef = z.string().min(1).describe('team key (e.g. "ENG") or id');
const issueRef = z.string().min(1).describe('issue identifier (e.g. "ENG-123") or id');

async function teamId(ctx: Ctx, ref: string): Promise<string> {
  const r = await linearRequest<{ teams: { nodes: { id: string; key: string }[] } }>(ctx, 'query Team($key: String!, $id: ID!) { teams(first: 2, filter: { or: [{ key: { eq: $key } }, { id: { eq: $id } }] }) { nodes { id key } } }', {
    key: ref,
    id: ref,
  });
  const team = r.teams.nodes[0];
  if (!team) throw new Error(`Linear has no team '${ref}' readable with this key`);
  return team.id;
}

// Parameter order matters to the rule planner: the intent's free text fills the first text parameter (title / body).
export const linearActions: ActionDefinition<LinearCredentials, LinearSettings>[] = [
  {
    name: 'create_issue',
    description: 'Create an issue in a Linear team',
    parameters: z.object({ title: z.string().min(1).max(255), team: teamRef, description: z.string().max(100_000).optional() }),
    async run(ctx, params) {
      const p = z.object({ title: z.string(), team: z.string(), description: z.string().optional() }).parse(params);
      const input = { teamId: await teamId(ctx, p.team), title: p.title, ...(p.description ? { description: p.description } : {}) };
      const r = await linearRequest<{ issueCreate: { success: boolean; issue: { id: string; identifier: string; url: string } | null } }>(
        ctx,
        'mutation Create($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id identifier url } } }',
        { input },
      );
      if (!r.issueCreate.success || !r.issueCreate.issue) throw new Error('Linear did not create the issue');
      return { id: r.issueCreate.issue.id, identifier: r.issueCreate.issue.identifier, url: r.issueCreate.issue.url };
    },
  },
  {
    name: 'comment_on_issue',
    description: 'Add a comment to a Linear issue',
    parameters: z.object({ body: z.string().min(1).max(100_000), issue: issueRef }),
    async run(ctx, params) {
      const p = z.object({ body: z.string(), issue: z.string() }).parse(params);
      // issue(id:) accepts an identifier like ENG-123 as well as the uuid.
      const found = await linearRequest<{ issue: { id: string } | null }>(ctx, 'query Issue($id: String!) { issue(id: $id) { id } }', { id: p.issue });
      if (!found.issue) throw new Error(`Linear has no issue '${p.issue}'`);
      const r = await linearRequest<{ commentCreate: { success: boolean; comment: { id: string; url: string } | null } }>(
        ctx,
        'mutation Comment($input: CommentCreateInput!) { commentCreate(input: $input) { success comment { id url } } }',
        { input: { issueId: found.issue.id, body: p.body } },
      );
      if (!r.commentCreate.success || !r.commentCreate.comment) throw new Error('Linear did not add the comment');
      return { comment_id: r.commentCreate.comment.id, url: r.commentCreate.comment.url };
    },
  },
];
