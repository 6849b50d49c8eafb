import { type GraphDirectory, serveGraphGroups } from './graph-groups.ts';
import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A Microsoft Graph v1.0 fake for the Teams connector, in Graph's wire format (learn.microsoft.com/graph/api/…):
 * `GET /v1.0/me`, `/me/joinedTeams`, `/teams/{id}`, `/teams/{id}/channels`, `/teams/{id}/channels/{id}/messages`
 * (`$top` ≤ 50, `$expand=replies` with at most `expandLimit` replies and `replies@odata.nextLink`, `@odata.nextLink`
 * with `$skiptoken`), `…/messages/delta` (`$filter=lastModifiedDateTime gt …` in the first request only,
 * `@odata.nextLink` with `$skiptoken`, `@odata.deltaLink` with `$deltatoken`; a reply chain is returned when its root or
 * any reply changed; deleted messages come back with `deletedDateTime`; expired tokens answer 410 `resyncRequired`),
 * `…/messages/{id}/replies`; errors as `{error: {code, message, innerError}}`; 429 `TooManyRequests` with Retry-After;
 * the Microsoft identity platform token endpoint. Graph may return fewer items than `$top`: `pageSize` forces that.
 */
export interface FakeUser {
  readonly id: string;
  readonly displayName: string;
  readonly mail: string;
}
export interface FakeMessage {
  readonly id: string;
  readonly created: string;
  modified: string;
  /** Change sequence: what delta tokens compare. */
  seq: number;
  deleted: string | null;
  messageType: 'message' | 'systemEventMessage';
  subject: string | null;
  body: { contentType: 'html' | 'text'; content: string };
  from: FakeUser | null;
  attachments: { id: string; contentType: string; contentUrl: string | null; name: string | null }[];
  mentions: { id: number; mentionText: string; mentioned: { user: { id: string; displayName: string; userIdentityType: 'aadUser' } } }[];
  replies: FakeMessage[];
}
export interface FakeChannel {
  readonly id: string;
  displayName: string;
  readonly membershipType: 'standard' | 'private' | 'shared';
  messages: FakeMessage[];
  /** A private or shared channel's roster (`/channels/{id}/members`): user ids. */
  members?: string[];
}
export interface FakeTeam {
  readonly id: string;
  readonly displayName: string;
  joined: boolean;
  /** Channels listed for this team (a shared channel is listed by every team it is shared with). */
  channels: FakeChannel[];
}

export const TENANT = '2432b57b-0abd-43db-aa7b-16eadd115d34';
const SEED_AGE_MS = 30 * 86_400_000;

export class FakeGraph extends VendorFake {
  readonly token = 'eyJ0eXAiOiJKV1QiLCJub25jZSI6ImZha2UtdGVhbXMifQ.graph-token';
  readonly me: FakeUser;
  readonly users: FakeUser[];
  readonly teams: FakeTeam[] = [];
  /** Entra ID: each team is a Microsoft 365 group of the same id (`/groups/{id}/transitiveMembers`). */
  readonly directory: GraphDirectory = { users: [], groups: {}, refused: false };
  /** `/channels/{id}/members` answers 403 (ChannelMember.Read.All not granted). */
  channelMembersRefused = false;
  seq = 0;
  /** Bumped by `expireDeltaTokens`: older tokens answer 410. */
  private generation = 0;
  private lastMs = Date.now() - SEED_AGE_MS;
  private issued = 0;

  constructor(readonly opts: { pageSize?: number; expandLimit?: number } = {}) {
    super({
      name: 'Microsoft Graph',
      publicPath: (p) => p.startsWith('/organizations/'),
      unauthorized: () => graphError(401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'),
      rateLimited: () => graphError(429, 'TooManyRequests', 'Too many requests.'),
      // Graph's throttling 503 carries Retry-After (throttling guidance); other 5xx do not.
      serverError: (status) => ({ ...graphError(status, status === 503 ? 'serviceNotAvailable' : 'generalException', 'The service is temporarily unavailable.'), ...(status === 503 ? { headers: { 'retry-after': '1' } } : {}) }),
    });
    this.allow(this.token);
    this.users = [
      { id: '8ea0e38b-efb3-4757-924a-5f94061cf8c2', displayName: 'Robin Kline', mail: 'Robin.Kline@contoso.com' },
      { id: 'ef1c916a-3135-4417-ba27-8eb7bd084193', displayName: 'Jane Smith', mail: 'jane.smith@contoso.com' },
      { id: '1fb8890f-423e-4154-8fbf-db6809bc8756', displayName: 'Omar Haddad', mail: 'omar.haddad@contoso.com' },
    ];
    this.me = this.users[0] as FakeUser;
    this.directory.users = this.users.map((u) => ({ id: u.id, displayName: u.displayName, mail: u.mail, userPrincipalName: u.mail.toLowerCase() }));
    this.graphRoutes();
    serveGraphGroups(this, this.directory);
  }

  /** The next instant (after every earlier one, and not before the wall clock once seeding is over). */
  tick(): string {
    this.lastMs = Math.max(this.lastMs + 1000, this.seeding ? this.lastMs + 1000 : Date.now());
    return new Date(this.lastMs).toISOString();
  }
  seeding = true;

  message(from: FakeUser | null, html: string, extra: Partial<FakeMessage> = {}): FakeMessage {
    const at = this.tick();
    return {
      id: String(Date.parse(at)),
      created: at,
      modified: at,
      seq: ++this.seq,
      deleted: null,
      messageType: 'message',
      subject: null,
      body: { contentType: 'html', content: html },
      from,
      attachments: [],
      mentions: [],
      replies: [],
      ...extra,
    };
  }

  /** Marks a message changed now (edit, deletion, new reply). */
  touch(m: FakeMessage): void {
    m.modified = this.tick();
    m.seq = ++this.seq;
  }

  remove(m: FakeMessage): void {
    this.touch(m);
    m.deleted = m.modified;
    m.body = { contentType: 'html', content: '' };
  }

  /** Every delta link handed out so far stops working (Graph dropped its sync state). */
  expireDeltaTokens(): void {
    this.generation++;
  }

  channel(id: string): FakeChannel | undefined {
    for (const t of this.teams) for (const c of t.channels) if (c.id === id) return c;
    return undefined;
  }

  private graphRoutes(): void {
    this.route('POST', '/organizations/oauth2/v2.0/token', oauthTokenEndpoint(this, { code: 'ms-auth-code', issue: () => ({ access_token: `${this.token}.${++this.issued}`, refresh_token: `rt-${this.issued}`, expires_in: 3600, scope: 'Team.ReadBasic.All Channel.ReadBasic.All ChannelMessage.Read.All User.Read' }) }));
    this.route('GET', '/v1.0/me', () => ({
      json: { '@odata.context': `${this.url}/v1.0/$metadata#users/$entity`, id: this.me.id, displayName: this.me.displayName, mail: this.me.mail, userPrincipalName: this.me.mail.toLowerCase() },
    }));
    this.route('GET', '/v1.0/me/joinedTeams', () => ({
      json: { '@odata.context': `${this.url}/v1.0/$metadata#teams`, '@odata.count': this.teams.filter((t) => t.joined).length, value: this.teams.filter((t) => t.joined).map((t) => this.teamJson(t)) },
    }));
    this.route('GET', '/v1.0/teams/:team', (req) => {
      const t = this.teams.find((x) => x.id === req.params.team);
      return t ? { json: this.teamJson(t) } : graphError(404, 'NotFound', `No team found with Group Id ${req.params.team}`);
    });
    this.route('GET', '/v1.0/teams/:team/channels', (req) => {
      const t = this.teams.find((x) => x.id === req.params.team);
      if (!t) return graphError(404, 'NotFound', `No team found with Group Id ${req.params.team}`);
      return {
        json: {
          '@odata.context': `${this.url}/v1.0/$metadata#teams('${t.id}')/channels`,
          '@odata.count': t.channels.length,
          value: t.channels.map((c) => ({
            id: c.id,
            createdDateTime: '2025-01-01T00:00:00Z',
            displayName: c.displayName,
            description: null,
            email: '',
            webUrl: `https://teams.microsoft.com/l/channel/${encodeURIComponent(c.id)}/${encodeURIComponent(c.displayName)}?groupId=${t.id}&tenantId=${TENANT}`,
            membershipType: c.membershipType,
            tenantId: TENANT,
          })),
        },
      };
    });
    // channel-list-members: conversationMember objects (aadUserConversationMember) with userId and email.
    this.route('GET', '/v1.0/teams/:team/channels/:channel/members', (req) => {
      const c = this.channel(decodeURIComponent(req.params.channel ?? ''));
      if (!c) return graphError(404, 'NotFound', `Channel ${req.params.channel} not found`);
      if (this.channelMembersRefused) return graphError(403, 'Forbidden', 'Missing scope permissions on the request. API requires one of ChannelMember.Read.All, ChannelMember.ReadWrite.All.');
      const ids = c.members ?? [];
      return {
        json: {
          '@odata.context': `${this.url}/v1.0/$metadata#teams('${req.params.team}')/channels('${c.id}')/members`,
          '@odata.count': ids.length,
          value: this.users
            .filter((u) => ids.includes(u.id))
            .map((u) => ({ '@odata.type': '#microsoft.graph.aadUserConversationMember', id: `member-${u.id}`, roles: [], displayName: u.displayName, userId: u.id, email: u.mail, tenantId: TENANT })),
        },
      };
    });
    this.route('GET', '/v1.0/teams/:team/channels/:channel/messages/delta', (req) => this.delta(req));
    this.route('GET', '/v1.0/teams/:team/channels/:channel/messages/:message/replies', (req) => {
      const { team, channel, root, error } = this.locate(req);
      if (error) return error;
      const m = root?.replies ? root : undefined;
      if (!m) return graphError(404, 'NotFound', 'Message not found');
      const top = this.top(req);
      if (typeof top !== 'number') return top;
      const start = this.skip(req);
      const items = m.replies.slice(start, start + top);
      const more = start + top < m.replies.length;
      return {
        json: {
          '@odata.context': `${this.url}/v1.0/$metadata#teams('${team}')/channels('${channel}')/messages('${m.id}')/replies`,
          ...(more ? { '@odata.nextLink': `${this.url}/v1.0/teams/${team}/channels/${channel}/messages/${m.id}/replies?$top=${top}&$skiptoken=${enc({ o: start + top })}` } : {}),
          value: items.map((r) => this.messageJson(team, channel, r, m)),
        },
      };
    });
    this.route('GET', '/v1.0/teams/:team/channels/:channel/messages', (req) => {
      const { team, channel, ch, error } = this.locate(req);
      if (error || !ch) return error ?? graphError(404, 'NotFound', 'Channel not found');
      // A nextLink's $skiptoken carries the first request's $top and $expand, as Graph's do.
      const token = req.query.get('$skiptoken');
      const top = token ? Math.min(Number(dec(token).t), this.opts.pageSize ?? 50) : this.top(req);
      if (typeof top !== 'number') return top;
      const expand = (token ? dec(token).e : req.query.get('$expand')) === 'replies';
      const start = this.skip(req);
      const roots = [...ch.messages].sort((a, b) => b.created.localeCompare(a.created));
      const items = roots.slice(start, start + top);
      const more = start + top < roots.length;
      return {
        json: {
          '@odata.context': `${this.url}/v1.0/$metadata#teams('${team}')/channels('${channel}')/messages`,
          ...(more ? { '@odata.nextLink': `${this.url}/v1.0/teams/${team}/channels/${channel}/messages?$skiptoken=${enc({ o: start + top, t: top, e: expand ? 'replies' : '' })}` } : {}),
          value: items.map((m) => this.rootJson(team, channel, m, expand)),
        },
      };
    });
  }

  private delta(req: FakeRequest): FakeReply {
    const { team, channel, ch, error } = this.locate(req);
    if (error || !ch) return error ?? graphError(404, 'NotFound', 'Channel not found');
    const skip = req.query.get('$skiptoken');
    const deltaToken = req.query.get('$deltatoken');
    // A round: the change sequence it starts after (null = initial round), its filter, expand and page size.
    let round: { since: number | null; upto: number; from: number | null; e: string; t: number; o: number; g: number };
    if (skip) round = JSON.parse(Buffer.from(skip, 'base64url').toString('utf8')) as typeof round;
    else if (deltaToken) {
      const d = dec(deltaToken);
      round = { since: d.s, upto: this.seq, from: null, e: d.e, t: d.t, o: 0, g: d.g };
    } else {
      const top = this.top(req);
      if (typeof top !== 'number') return top;
      const filter = req.query.get('$filter');
      let from: number | null = null;
      if (filter) {
        const m = /^lastModifiedDateTime gt (\S+)$/.exec(filter);
        if (!m?.[1] || Number.isNaN(Date.parse(m[1]))) return graphError(400, 'BadRequest', `Invalid filter clause: ${filter}`);
        from = Date.parse(m[1]);
      }
      round = { since: null, upto: this.seq, from, e: req.query.get('$expand') ?? '', t: top, o: 0, g: this.generation };
    }
    if (round.g !== this.generation) return graphError(410, 'resyncRequired', 'The delta token is expired and data must be synchronized again.');
    const changedAt = (m: FakeMessage) => Math.max(m.seq, ...m.replies.map((r) => r.seq));
    const modified = (m: FakeMessage) => Math.max(Date.parse(m.modified), ...m.replies.map((r) => Date.parse(r.modified)));
    const chains = ch.messages
      // The round's snapshot: chains changed up to its start (later changes come in the next round).
      .filter((m) => (round.since === null ? !m.deleted : changedAt(m) > (round.since ?? 0)) && changedAt(m) <= round.upto)
      .filter((m) => round.from === null || modified(m) > (round.from ?? 0))
      .sort((a, b) => changedAt(a) - changedAt(b));
    const size = Math.min(round.t, this.opts.pageSize ?? 50);
    const items = chains.slice(round.o, round.o + size);
    const more = round.o + size < chains.length;
    const link = more
      ? { '@odata.nextLink': `${this.url}/v1.0/teams/${team}/channels/${channel}/messages/delta?$skiptoken=${enc({ ...round, o: round.o + size })}` }
      : { '@odata.deltaLink': `${this.url}/v1.0/teams/${team}/channels/${channel}/messages/delta?$deltatoken=${enc({ s: round.upto, e: round.e, t: round.t, g: round.g })}` };
    return { json: { '@odata.context': `${this.url}/v1.0/$metadata#Collection(chatMessage)`, ...link, value: items.map((m) => this.rootJson(team, channel, m, round.e === 'replies')) } };
  }

  private locate(req: FakeRequest): { team: string; channel: string; ch?: FakeChannel; root?: FakeMessage; error?: FakeReply } {
    const team = req.params.team ?? '';
    const channel = req.params.channel ?? '';
    const t = this.teams.find((x) => x.id === team);
    const ch = t?.channels.find((c) => c.id === channel);
    if (!ch) return { team, channel, error: graphError(404, 'NotFound', `Channel ${channel} not found in team ${team}`) };
    const root = req.params.message ? ch.messages.find((m) => m.id === req.params.message) : undefined;
    return { team, channel, ch, ...(root ? { root } : {}) };
  }

  private top(req: FakeRequest): number | FakeReply {
    const raw = req.query.get('$top');
    const top = raw === null ? 20 : Number(raw);
    if (!Number.isInteger(top) || top < 1 || top > 50) return graphError(400, 'BadRequest', `Invalid page size requested: ${raw}. The maximum page size is 50.`);
    return Math.min(top, this.opts.pageSize ?? 50);
  }

  private skip(req: FakeRequest): number {
    const s = req.query.get('$skiptoken');
    return s ? Number(dec(s).o) : 0;
  }

  private teamJson(t: FakeTeam) {
    return { id: t.id, createdDateTime: '2025-01-01T00:00:00Z', displayName: t.displayName, description: `${t.displayName} team`, isArchived: false, tenantId: TENANT, webUrl: `https://teams.microsoft.com/l/team/x?groupId=${t.id}&tenantId=${TENANT}` };
  }

  private rootJson(team: string, channel: string, m: FakeMessage, expand: boolean) {
    const json = this.messageJson(team, channel, m, null);
    if (!expand) return json;
    const limit = this.opts.expandLimit ?? 1000;
    const more = m.replies.length > limit;
    return {
      ...json,
      'replies@odata.context': `${this.url}/v1.0/$metadata#teams('${team}')/channels('${channel}')/messages('${m.id}')/replies`,
      ...(more ? { 'replies@odata.nextLink': `${this.url}/v1.0/teams/${team}/channels/${channel}/messages/${m.id}/replies?$top=50&$skiptoken=${enc({ o: limit })}` } : {}),
      replies: m.replies.slice(0, limit).map((r) => this.messageJson(team, channel, r, m)),
    };
  }

  private messageJson(team: string, channel: string, m: FakeMessage, root: FakeMessage | null) {
    const rootId = root?.id ?? m.id;
    return {
      '@odata.type': '#microsoft.graph.chatMessage',
      id: m.id,
      replyToId: root ? root.id : null,
      etag: String(Date.parse(m.modified)),
      messageType: m.messageType,
      createdDateTime: m.created,
      lastModifiedDateTime: m.modified,
      lastEditedDateTime: m.modified !== m.created && !m.deleted ? m.modified : null,
      deletedDateTime: m.deleted,
      subject: m.subject,
      summary: null,
      chatId: null,
      importance: 'normal',
      locale: 'en-us',
      webUrl: `https://teams.microsoft.com/l/message/${encodeURIComponent(channel)}/${m.id}?groupId=${team}&tenantId=${TENANT}&createdTime=${m.id}&parentMessageId=${rootId}`,
      policyViolation: null,
      eventDetail: m.messageType === 'systemEventMessage' ? { '@odata.type': '#microsoft.graph.membersAddedEventMessageDetail', visibleHistoryStartDateTime: m.created } : null,
      from: m.from && !m.deleted ? { application: null, device: null, user: { '@odata.type': '#microsoft.graph.teamworkUserIdentity', id: m.from.id, displayName: m.from.displayName, userIdentityType: 'aadUser', tenantId: TENANT } } : null,
      body: m.body,
      channelIdentity: { teamId: team, channelId: channel },
      attachments: m.deleted ? [] : m.attachments.map((a) => ({ ...a, content: null, thumbnailUrl: null, teamsAppId: null })),
      mentions: m.deleted ? [] : m.mentions,
      reactions: [],
      messageHistory: [],
    };
  }
}

function graphError(status: number, code: string, message: string): FakeReply {
  return { status, json: { error: { code, message, innerError: { date: new Date().toISOString().slice(0, 19), 'request-id': 'b6ad2e3a-0000-4000-8000-000000000000', 'client-request-id': 'b6ad2e3a-0000-4000-8000-000000000000' } } } };
}
const enc = (o: Record<string, unknown>) => Buffer.from(JSON.stringify(o)).toString('base64url');
/** The fake's own opaque tokens: what `enc` wrote. */
type Token = { o: number; t: number; e: string; s: number; g: number };
const dec = (s: string): Token => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Token;

/**
 * Two joined teams: Engineering (General, a private Incidents channel) and Marketing (General), and a shared Partners
 * channel listed by both. Messages with HTML bodies, mentions, file attachments, replies, a system event and a deleted post.
 */
export async function startFakeGraph(opts: { pageSize?: number; expandLimit?: number } = {}): Promise<FakeGraph> {
  const g = new FakeGraph(opts);
  const [robin, jane, omar] = g.users as [FakeUser, FakeUser, FakeUser];
  const mention = (id: number, u: FakeUser) => ({ id, mentionText: u.displayName, mentioned: { user: { id: u.id, displayName: u.displayName, userIdentityType: 'aadUser' as const } } });

  const engGeneral: FakeChannel = { id: '19:4a95f7d8db4c4e7fae857bcebe0623e6@thread.tacv2', displayName: 'General', membershipType: 'standard', messages: [] };
  const incidents: FakeChannel = { id: '19:0b2e1d3c9a8f4e6b8d7c5a4b3e2f1d0c@thread.tacv2', displayName: 'Incidents', membershipType: 'private', messages: [] };
  const mktGeneral: FakeChannel = { id: '19:9c8b7a6f5e4d4c3b2a1f0e9d8c7b6a5f@thread.tacv2', displayName: 'General', membershipType: 'standard', messages: [] };
  const partners: FakeChannel = { id: '19:7d6c5b4a3f2e4d1c0b9a8f7e6d5c4b3a@thread.tacv2', displayName: 'Partners', membershipType: 'shared', messages: [] };

  const rollout = g.message(robin, '<div><p>Rollout plan for the <b>payments gateway</b> v2: canary on Monday, <at id="0">Jane Smith</at> owns the runbook.</p></div>', {
    subject: 'Payments gateway rollout',
    mentions: [mention(0, jane)],
    attachments: [{ id: 'a1b2c3', contentType: 'reference', contentUrl: 'https://contoso.sharepoint.com/sites/eng/Shared%20Documents/runbook.docx', name: 'runbook.docx' }],
  });
  rollout.replies.push(
    g.message(jane, '<p>Runbook updated with the rollback steps &amp; the on-call rota.</p>'),
    g.message(omar, '<p>Canary dashboards are linked in the wiki.</p>'),
  );
  engGeneral.messages.push(
    g.message(null, '<systemEventMessage/>', { messageType: 'systemEventMessage' }),
    rollout,
    g.message(omar, 'Build farm maintenance window is Saturday 02:00 UTC.', { body: { contentType: 'text', content: 'Build farm maintenance window is Saturday 02:00 UTC.' } }),
    g.message(jane, '<p>Lunch and learn: <i>observability with OpenTelemetry</i> on Thursday.</p>'),
  );
  const gone = g.message(robin, '<p>This post was removed by its author.</p>');
  g.remove(gone);
  engGeneral.messages.push(gone);

  const outage = g.message(omar, '<p>SEV2: checkout latency above 2 s in eu-west. Mitigation: failover to the secondary region.</p>', { subject: 'Checkout latency incident' });
  outage.replies.push(g.message(robin, '<p>Failover complete, latency back under 300 ms.</p>'));
  incidents.messages.push(outage);

  mktGeneral.messages.push(
    g.message(jane, '<p>Spring campaign brief is ready for review.</p>', { attachments: [{ id: 'f9e8', contentType: 'reference', contentUrl: 'https://contoso.sharepoint.com/sites/mkt/brief.pptx', name: 'spring-brief.pptx' }] }),
    g.message(robin, '<p>Press release draft due Friday.</p>'),
  );
  partners.messages.push(g.message(jane, '<p>Fabrikam asked for the API quota increase; answer by end of week.</p>'));

  // Engineering: Robin and Jane (Omar only through the private Incidents channel); Marketing: all three.
  incidents.members = [robin.id, omar.id];
  partners.members = [jane.id];
  g.directory.groups['fbe2bf47-16c8-47cf-b4a5-4b9b187c508b'] = [robin.id, jane.id];
  g.directory.groups['02bd9fd6-8f93-4758-87c3-1fb73740a315'] = [robin.id, jane.id, omar.id];
  g.teams.push(
    { id: 'fbe2bf47-16c8-47cf-b4a5-4b9b187c508b', displayName: 'Contoso Engineering', joined: true, channels: [engGeneral, incidents, partners] },
    { id: '02bd9fd6-8f93-4758-87c3-1fb73740a315', displayName: 'Contoso Marketing', joined: true, channels: [mktGeneral, partners] },
  );
  g.seeding = false;
  return g.start();
}
