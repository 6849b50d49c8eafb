import { type FakeReply, type FakeRequest, VendorFake } from './kit/index.ts';

/**
 * A local Cursor Admin API fake speaking the wire format of docs.cursor.com/account/teams/admin-api: the Admin API key
 * as the HTTP Basic username (`-u KEY:`); `GET /teams/members` → `{teamMembers: [{name, email, role}]}`;
 * `POST /teams/spend` (`page`, `pageSize`) → `{teamMemberSpend: [{email, name, role, spendCents, fastPremiumRequests,
 * hardLimitOverrideDollars}], subscriptionCycleStart, totalMembers, totalPages}`; `POST /teams/daily-usage-data`
 * (`startDate`/`endDate` epoch ms, required, at most 90 days) → `{data: [{date, email, isActive, totalLinesAdded, …,
 * mostUsedModel, clientVersion}], period}`; `POST /teams/filtered-usage-events` (`startDate`, `endDate`, `email`,
 * `page`, `pageSize`) → `{totalUsageEventsCount, pagination: {numPages, currentPage, pageSize, hasNextPage,
 * hasPreviousPage}, usageEvents: [{timestamp (ms string), model, kind, maxMode, requestsCosts, isTokenBasedCall,
 * tokenUsage: {inputTokens, outputTokens, cacheWriteTokens, cacheReadTokens, totalCents}, userEmail}], period}`.
 * Cursor documents no error body; the fake answers `{error: "…"}` with the status (401 bad key, 400 bad body, 429
 * with `Retry-After`).
 */
export interface CuMember {
  name: string;
  email: string;
  role: 'owner' | 'member' | 'free-owner';
  spendCents: number;
  fastPremiumRequests: number;
}
export interface CuDaily {
  date: number;
  email: string;
  isActive: boolean;
  agentRequests: number;
  chatRequests: number;
  composerRequests: number;
  totalLinesAdded: number;
  acceptedLinesAdded: number;
  mostUsedModel: string;
  apiKeyReqs: number;
  usageBasedReqs: number;
}
export interface CuEvent {
  timestamp: string;
  model: string;
  kind: string;
  requestsCosts: number;
  isTokenBasedCall: boolean;
  tokenUsage?: { inputTokens: number; outputTokens: number; cacheWriteTokens: number; cacheReadTokens: number; totalCents: number };
  userEmail: string;
}
export interface CursorData {
  members: CuMember[];
  daily: CuDaily[];
  events: CuEvent[];
  cycleStart: number;
}

export interface FakeCursor {
  readonly url: string;
  readonly apiKey: string;
  readonly data: CursorData;
  readonly fake: VendorFake;
  /** Every POST's path and JSON body, in order (the request log keeps no bodies). */
  readonly posts: { path: string; body: Record<string, unknown> }[];
  close(): Promise<void>;
}

export const addDays = (d: string, n: number) => new Date(Date.parse(`${d}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
const ms = (d: string) => Date.parse(`${d}T00:00:00Z`);

/** One usage event at `hour` UTC of `day`. */
export function cursorEvent(day: string, hour: number, email: string, model: string, input: number, output: number, cents: number): CuEvent {
  return {
    timestamp: String(ms(day) + hour * 3_600_000),
    model,
    kind: 'Usage-based',
    requestsCosts: 1,
    isTokenBasedCall: true,
    tokenUsage: { inputTokens: input, outputTokens: output, cacheWriteTokens: Math.round(input / 10), cacheReadTokens: input * 2, totalCents: cents },
    userEmail: email,
  };
}

/** A team of three with `days` complete days before `today` of events (two members, two events each a day) and activity. */
export function seedCursor(today: string, days = 5): CursorData {
  const members: CuMember[] = [
    { name: 'Ada Lovelace', email: 'Ada@Example.com', role: 'owner', spendCents: 2450, fastPremiumRequests: 120 },
    { name: 'Grace Hopper', email: 'grace@example.com', role: 'member', spendCents: 980, fastPremiumRequests: 40 },
    { name: 'Linus T', email: 'linus@example.com', role: 'member', spendCents: 0, fastPremiumRequests: 0 },
  ];
  const daily: CuDaily[] = [];
  const events: CuEvent[] = [];
  for (let i = days; i >= 1; i--) {
    const day = addDays(today, -i);
    events.push(cursorEvent(day, 9, 'ada@example.com', 'claude-4-sonnet', 1200, 400, 12.5));
    events.push(cursorEvent(day, 15, 'ada@example.com', 'claude-4-sonnet', 800, 100, 7.5));
    events.push(cursorEvent(day, 11, 'grace@example.com', 'gpt-5', 5000, 2000, 30));
    for (const email of ['ada@example.com', 'grace@example.com']) {
      daily.push({ date: ms(day), email, isActive: true, agentRequests: 4, chatRequests: 2, composerRequests: 1, totalLinesAdded: 120, acceptedLinesAdded: 80, mostUsedModel: email.startsWith('ada') ? 'claude-4-sonnet' : 'gpt-5', apiKeyReqs: 0, usageBasedReqs: 2 });
    }
    daily.push({ date: ms(day), email: 'linus@example.com', isActive: false, agentRequests: 0, chatRequests: 0, composerRequests: 0, totalLinesAdded: 0, acceptedLinesAdded: 0, mostUsedModel: '', apiKeyReqs: 0, usageBasedReqs: 0 });
  }
  return { members, daily, events, cycleStart: ms(addDays(today, -20)) };
}

const cursorError = (status: number, error: string): FakeReply => ({ status, json: { error } });

export async function startFakeCursor(data: CursorData, opts: { eventsPageCap?: number } = {}): Promise<FakeCursor> {
  const apiKey = 'key_fakecursoradmin0123456789abcdef0123456789abcdef0123456789abcd';
  const fake = new VendorFake({
    name: 'Cursor',
    tokens: [apiKey],
    tokenOf: ({ headers }) => {
      const h = headers.authorization ?? '';
      return h.startsWith('Basic ') ? (Buffer.from(h.slice(6), 'base64').toString('utf8').split(':')[0] ?? null) : null;
    },
    unauthorized: () => cursorError(401, 'Unauthorized: invalid Admin API key'),
    rateLimited: () => cursorError(429, 'Too many requests'),
    serverError: (status) => cursorError(status, 'Internal server error'),
  });
  const posts: { path: string; body: Record<string, unknown> }[] = [];
  const body = (req: FakeRequest) => {
    const b = req.body && typeof req.body === 'object' ? (req.body as Record<string, unknown>) : {};
    posts.push({ path: req.path, body: b });
    return b;
  };
  const window = (b: Record<string, unknown>, maxDays: number, required: boolean): { start: number; end: number } | FakeReply => {
    if (b.startDate === undefined && b.endDate === undefined && !required) return { start: 0, end: Number.MAX_SAFE_INTEGER };
    if (typeof b.startDate !== 'number' || typeof b.endDate !== 'number') return cursorError(400, 'startDate and endDate are required (epoch milliseconds)');
    if (b.endDate < b.startDate) return cursorError(400, 'endDate must be after startDate');
    if (b.endDate - b.startDate > maxDays * 86_400_000) return cursorError(400, `Date range cannot exceed ${maxDays} days`);
    return { start: b.startDate, end: b.endDate };
  };

  // `Connection: close` on every answer: the engine's first document upsert can block the event loop past the server's
  // 5 s keep-alive, and a POST on the socket the server just closed fails with ECONNRESET (a test artefact, not Cursor's).
  const route = (method: string, path: string, handler: (req: FakeRequest) => FakeReply) =>
    fake.route(method, path, (req) => {
      const reply = handler(req);
      return { ...reply, headers: { ...reply.headers, connection: 'close' } };
    });
  route('GET', '/teams/members', () => ({ json: { teamMembers: data.members.map((m) => ({ name: m.name, email: m.email, role: m.role })) } }));
  route('POST', '/teams/spend', (req) => {
    const b = body(req);
    const page = Number(b.page ?? 1);
    const pageSize = Number(b.pageSize ?? 50);
    const slice = data.members.slice((page - 1) * pageSize, page * pageSize);
    return {
      json: {
        teamMemberSpend: slice.map((m) => ({ spendCents: m.spendCents, fastPremiumRequests: m.fastPremiumRequests, name: m.name, email: m.email, role: m.role, hardLimitOverrideDollars: 0 })),
        subscriptionCycleStart: data.cycleStart,
        totalMembers: data.members.length,
        totalPages: Math.max(1, Math.ceil(data.members.length / pageSize)),
      },
    };
  });
  route('POST', '/teams/daily-usage-data', (req) => {
    const w = window(body(req), 90, true);
    if (!('start' in w)) return w;
    const rows = data.daily.filter((d) => d.date >= w.start && d.date <= w.end);
    return {
      json: {
        data: rows.map((d) => ({
          date: d.date,
          isActive: d.isActive,
          totalLinesAdded: d.totalLinesAdded,
          totalLinesDeleted: 10,
          acceptedLinesAdded: d.acceptedLinesAdded,
          acceptedLinesDeleted: 5,
          totalApplies: 3,
          totalAccepts: 2,
          totalRejects: 1,
          totalTabsShown: 40,
          totalTabsAccepted: 30,
          composerRequests: d.composerRequests,
          chatRequests: d.chatRequests,
          agentRequests: d.agentRequests,
          cmdkUsages: 0,
          subscriptionIncludedReqs: 5,
          apiKeyReqs: d.apiKeyReqs,
          usageBasedReqs: d.usageBasedReqs,
          bugbotUsages: 0,
          mostUsedModel: d.mostUsedModel,
          applyMostUsedExtension: '.ts',
          tabMostUsedExtension: '.ts',
          clientVersion: '1.7.2',
          email: d.email,
        })),
        period: { startDate: w.start, endDate: w.end },
      },
    };
  });
  route('POST', '/teams/filtered-usage-events', (req) => {
    const b = body(req);
    const w = window(b, 30, false);
    if (!('start' in w)) return w;
    const page = Number(b.page ?? 1);
    const pageSize = Math.min(Number(b.pageSize ?? 10), opts.eventsPageCap ?? 500);
    const email = typeof b.email === 'string' ? b.email.toLowerCase() : null;
    // Newest first, as Cursor lists them.
    const all = data.events
      .filter((e) => Number(e.timestamp) >= w.start && Number(e.timestamp) <= w.end && (!email || e.userEmail.toLowerCase() === email))
      .sort((a, c) => Number(c.timestamp) - Number(a.timestamp));
    const numPages = Math.max(1, Math.ceil(all.length / pageSize));
    return {
      json: {
        totalUsageEventsCount: all.length,
        pagination: { numPages, currentPage: page, pageSize, hasNextPage: page < numPages, hasPreviousPage: page > 1 },
        usageEvents: all.slice((page - 1) * pageSize, page * pageSize).map((e) => ({ ...e, maxMode: false })),
        period: { startDate: w.start, endDate: w.end },
      },
    };
  });

  await fake.start();
  return { url: fake.url, apiKey, data, fake, posts, close: () => fake.close() };
}
