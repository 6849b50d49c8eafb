import { cursorPage, type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A local Gmail API v1 fake (developers.google.com/workspace/gmail/api/reference/rest), on the kit's VendorFake:
 * `GET /gmail/v1/users/{userId}/profile`, `/labels`, `/messages` (`q` — a subset of the search box syntax —,
 * repeated `labelIds` that must all match, `includeSpamTrash`, `maxResults` ≤ 500, `pageToken`; only `id` and
 * `threadId` per message), `/messages/{id}?format=full|metadata|minimal` (MIME parts with base64url `body.data`),
 * `/history?startHistoryId=` (records after it, filtered by repeated `historyTypes` and `labelId`, `nextPageToken`, the
 * mailbox's current `historyId`; an id older than the kept history → 404). History ids grow with gaps, as Gmail's do.
 * Errors in Google's shape `{error: {code, message, errors: [{domain, reason, message}], status}}`; 401 `authError`;
 * quota answers as 429 `rateLimitExceeded` or 403 `userRateLimitExceeded` (`quotaNext`).
 */
export interface FakePart {
  mimeType: string;
  filename?: string;
  headers?: { name: string; value: string }[];
  /** Text (encoded as `charset`, default utf-8) or bytes. */
  text?: string;
  charset?: string;
  parts?: FakePart[];
}

export interface FakeMessage {
  id: string;
  threadId: string;
  labelIds: string[];
  internalDate: string;
  historyId: string;
  headers: { name: string; value: string }[];
  /** The message's top-level MIME structure (its headers are `headers`). */
  body: FakePart;
}

type HistoryType = 'messageAdded' | 'messageDeleted' | 'labelAdded' | 'labelRemoved';
interface HistoryRecord {
  id: number;
  type: HistoryType;
  messageId: string;
  threadId: string;
  labelIds: string[];
  /** The labels added or removed. */
  changed?: string[];
}

export interface FakeGmailData {
  account: { emailAddress: string };
  labels: { id: string; name: string; type: 'system' | 'user' }[];
  messages: FakeMessage[];
  history: HistoryRecord[];
}

const googleError = (code: number, reason: string, message: string, status: string, domain = 'global', extra: Record<string, string> = {}): FakeReply => ({
  status: code,
  json: { error: { code, message, errors: [{ domain, reason, message, ...extra }], status } },
});
const notFound = () => googleError(404, 'notFound', 'Requested entity was not found.', 'NOT_FOUND');
const invalid = (message: string) => googleError(400, 'invalidArgument', message, 'INVALID_ARGUMENT');

const SYSTEM_LABELS = ['INBOX', 'SENT', 'DRAFT', 'SPAM', 'TRASH', 'IMPORTANT', 'STARRED', 'UNREAD', 'CATEGORY_PERSONAL', 'CATEGORY_PROMOTIONS', 'CATEGORY_UPDATES', 'CATEGORY_SOCIAL', 'CATEGORY_FORUMS'];

function encode(part: FakePart): Record<string, unknown> {
  const headers = [...(part.headers ?? [])];
  if (!headers.some((h) => h.name.toLowerCase() === 'content-type')) headers.push({ name: 'Content-Type', value: part.parts ? `${part.mimeType}; boundary="b"` : `${part.mimeType}; charset="${part.charset ?? 'UTF-8'}"` });
  const bytes = part.text === undefined ? null : part.charset && /latin|8859/i.test(part.charset) ? Buffer.from(part.text, 'latin1') : Buffer.from(part.text, 'utf8');
  return {
    mimeType: part.mimeType,
    filename: part.filename ?? '',
    headers,
    body: part.parts
      ? { size: 0 }
      : part.filename
        ? { attachmentId: `att-${Buffer.from(part.filename).toString('hex')}`, size: bytes?.length ?? 0 }
        : { size: bytes?.length ?? 0, ...(bytes ? { data: bytes.toString('base64url') } : {}) },
    ...(part.parts ? { parts: part.parts.map((p, i) => ({ partId: String(i), ...encode(p) })) } : {}),
  };
}

// ---- the search box syntax subset: terms ANDed, `-term`, `( … )` groups, `{ … }` any-of, quoted values ----
type Node = { kind: 'and'; items: Node[] } | { kind: 'or'; items: Node[] } | { kind: 'not'; item: Node } | { kind: 'term'; op: string | null; value: string };

function tokenize(q: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < q.length) {
    const c = q[i] ?? '';
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if ('(){}'.includes(c) || (c === '-' && (i === 0 || /[\s({]/.test(q[i - 1] ?? '')))) {
      out.push(c);
      i++;
      continue;
    }
    let tok = '';
    while (i < q.length && !/[\s(){}]/.test(q[i] ?? '')) {
      if (q[i] === '"') {
        const end = q.indexOf('"', i + 1);
        tok += q.slice(i, end < 0 ? q.length : end + 1);
        i = end < 0 ? q.length : end + 1;
      } else tok += q[i++];
    }
    out.push(tok);
  }
  return out;
}

function parseQuery(q: string): Node {
  const toks = tokenize(q);
  let i = 0;
  const seq = (close: string | null, kind: 'and' | 'or'): Node => {
    const items: Node[] = [];
    while (i < toks.length && toks[i] !== close) items.push(one());
    if (close) i++;
    return kind === 'and' ? { kind: 'and', items } : { kind: 'or', items };
  };
  const one = (): Node => {
    const t = toks[i++] ?? '';
    if (t === '-') return { kind: 'not', item: one() };
    if (t === '(') return seq(')', 'and');
    if (t === '{') return seq('}', 'or');
    const m = /^([a-z0-9_]+):(.*)$/i.exec(t);
    const unq = (s: string) => s.replace(/^"(.*)"$/, '$1');
    return m ? { kind: 'term', op: (m[1] ?? '').toLowerCase(), value: unq(m[2] ?? '') } : { kind: 'term', op: null, value: unq(t) };
  };
  return seq(null, 'and');
}

export interface FakeGmail {
  readonly url: string;
  readonly token: string;
  readonly fake: VendorFake;
  readonly data: FakeGmailData;
  addMessage(m: { id: string; threadId?: string; labelIds?: string[]; from: string; to: string; cc?: string; subject: string; text?: string; html?: string; body?: FakePart; extraHeaders?: { name: string; value: string }[] }): FakeMessage;
  /** Deleted for good (not trashed): a messageDeleted record. */
  deleteMessage(id: string): FakeMessage;
  addLabels(id: string, labels: string[]): void;
  removeLabels(id: string, labels: string[]): void;
  /** The mailbox's current historyId (what the profile answers). */
  currentHistoryId(): string;
  /** Gmail forgot the history so far: every history id older than the current one answers 404. */
  expireHistory(): void;
  /** The next `count` matching requests answer Google's 403 `userRateLimitExceeded` (no Retry-After). */
  quotaNext(count: number, match?: (req: FakeRequest) => boolean): void;
  close(): Promise<void>;
}

export async function startFakeGmail(opts: { oauthCode?: string } = {}): Promise<FakeGmail> {
  let historyId = 41_000;
  let minutes = 0;
  let oldestKept = 0;
  const bump = () => (historyId += 3 + (historyId % 5));
  const internalDate = () => String(Date.UTC(2025, 1, 3, 9, minutes++));
  const data: FakeGmailData = {
    account: { emailAddress: 'Ada@Atrium.test' },
    labels: [
      ...SYSTEM_LABELS.map((id) => ({ id, name: id, type: 'system' as const })),
      { id: 'Label_7', name: 'Projects/Atlas', type: 'user' },
      { id: 'Label_9', name: 'Receipts', type: 'user' },
    ],
    messages: [],
    history: [],
  };
  const token = 'ya29.fake-gmail-token';
  let issued = 0;
  const fake = new VendorFake({
    name: 'Gmail',
    tokens: [token],
    publicPath: (p) => p === '/token',
    unauthorized: () => ({
      ...googleError(401, 'authError', 'Invalid Credentials', 'UNAUTHENTICATED', 'global', { locationType: 'header', location: 'Authorization' }),
      headers: { 'www-authenticate': 'Bearer realm="https://accounts.google.com/", error="invalid_token"' },
    }),
    rateLimited: () => googleError(429, 'rateLimitExceeded', 'Too many concurrent requests for user', 'RESOURCE_EXHAUSTED', 'usageLimits'),
    serverError: (status) =>
      status === 403
        ? googleError(403, 'userRateLimitExceeded', 'User-rate limit exceeded.', 'PERMISSION_DENIED', 'usageLimits')
        : googleError(status, 'backendError', 'Backend Error', 'INTERNAL'),
  });
  const byId = (id: string) => data.messages.find((m) => m.id === id);
  const log = (type: HistoryType, m: FakeMessage, changed?: string[]) => {
    const id = bump();
    m.historyId = String(id);
    data.history.push({ id, type, messageId: m.id, threadId: m.threadId, labelIds: [...m.labelIds], ...(changed ? { changed } : {}) });
  };
  const hdr = (m: FakeMessage, name: string) => m.headers.find((h) => h.name.toLowerCase() === name)?.value ?? '';
  const textOf = (p: FakePart): string => [p.text ?? '', ...(p.parts ?? []).map(textOf)].join(' ');
  const labelName = (id: string) => data.labels.find((l) => l.id === id)?.name ?? id;
  const matches = (n: Node, m: FakeMessage): boolean => {
    if (n.kind === 'and' || n.kind === 'or') return n.kind === 'and' ? n.items.every((x) => matches(x, m)) : n.items.some((x) => matches(x, m));
    if (n.kind === 'not') return !matches(n.item, m);
    const v = n.value.toLowerCase();
    switch (n.op) {
      case 'from':
        return hdr(m, 'from').toLowerCase().includes(v);
      case 'to':
        return ['to', 'cc', 'bcc'].some((h) => hdr(m, h).toLowerCase().includes(v));
      case 'subject':
        return hdr(m, 'subject').toLowerCase().includes(v);
      case 'label':
        return m.labelIds.some((l) => l.toLowerCase() === v || labelName(l).toLowerCase().replace(/[\s/]/g, '-') === v.replace(/[\s/]/g, '-'));
      case 'in':
        return v === 'anywhere' || m.labelIds.includes(v === 'drafts' ? 'DRAFT' : v.toUpperCase());
      case 'is':
        return m.labelIds.includes(v.toUpperCase());
      case 'rfc822msgid':
        return hdr(m, 'message-id').replace(/^<|>$/g, '').toLowerCase() === v.replace(/^<|>$/g, '');
      case 'has':
        return v === 'attachment' && JSON.stringify(m.body).includes('"filename"');
      case null:
        return `${hdr(m, 'subject')} ${textOf(m.body)}`.toLowerCase().includes(v);
      default:
        return `${hdr(m, 'subject')} ${textOf(m.body)}`.toLowerCase().includes(`${n.op}:${v}`);
    }
  };
  const user = (req: FakeRequest) => {
    const u = req.params.userId ?? '';
    return u === 'me' || u.toLowerCase() === data.account.emailAddress.toLowerCase();
  };
  const wrongUser = () => googleError(403, 'forbidden', 'Delegation denied for ada@atrium.test', 'PERMISSION_DENIED');
  const maxResults = (req: FakeRequest, dflt: number) => {
    const n = Number(req.query.get('maxResults') ?? dflt);
    return Number.isInteger(n) && n > 0 ? Math.min(500, n) : dflt;
  };

  fake.route('POST', '/token', oauthTokenEndpoint(fake, { code: opts.oauthCode ?? 'google-code', issue: () => ({ access_token: `ya29.oauth-${++issued}`, refresh_token: '1//refresh', expires_in: 3599, scope: 'https://www.googleapis.com/auth/gmail.readonly' }) }));

  fake.route('GET', '/gmail/v1/users/:userId/profile', (req) => {
    if (!user(req)) return wrongUser();
    const live = data.messages.filter((m) => !m.labelIds.includes('DRAFT'));
    return { json: { emailAddress: data.account.emailAddress, messagesTotal: live.length, threadsTotal: new Set(live.map((m) => m.threadId)).size, historyId: String(historyId) } };
  });

  fake.route('GET', '/gmail/v1/users/:userId/labels', (req) => (user(req) ? { json: { labels: data.labels.map((l) => ({ ...l, ...(l.type === 'user' ? { messageListVisibility: 'show', labelListVisibility: 'labelShow' } : {}) })) } } : wrongUser()));

  fake.route('GET', '/gmail/v1/users/:userId/messages', (req) => {
    if (!user(req)) return wrongUser();
    const labelIds = req.query.getAll('labelIds');
    const spamTrash = req.query.get('includeSpamTrash') === 'true';
    const q = req.query.get('q');
    const tree = q ? parseQuery(q) : null;
    // Newest first, as Gmail lists them.
    const matched = [...data.messages]
      .sort((a, b) => Number(b.internalDate) - Number(a.internalDate))
      .filter((m) => spamTrash || !m.labelIds.some((l) => l === 'SPAM' || l === 'TRASH'))
      .filter((m) => labelIds.every((l) => m.labelIds.includes(l)))
      .filter((m) => !tree || matches(tree, m));
    const page = cursorPage(matched, req.query.get('pageToken'), maxResults(req, 100));
    return { json: { messages: page.items.map((m) => ({ id: m.id, threadId: m.threadId })), ...(page.next ? { nextPageToken: page.next } : {}), resultSizeEstimate: matched.length } };
  });

  fake.route('GET', '/gmail/v1/users/:userId/messages/:id', (req) => {
    if (!user(req)) return wrongUser();
    const m = byId(req.params.id ?? '');
    if (!m) return notFound();
    const format = req.query.get('format') ?? 'full';
    if (!['full', 'metadata', 'minimal', 'raw'].includes(format)) return invalid(`Invalid value at 'format' (${format})`);
    const snippet = textOf(m.body).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 100);
    const base = { id: m.id, threadId: m.threadId, labelIds: m.labelIds, snippet, historyId: m.historyId, internalDate: m.internalDate, sizeEstimate: JSON.stringify(m.body).length };
    if (format === 'minimal') return { json: base };
    const top = encode(m.body);
    const payload = { partId: '', ...top, headers: [...m.headers, ...((top.headers as { name: string; value: string }[]) ?? [])] };
    if (format === 'metadata') return { json: { ...base, payload: { partId: '', mimeType: m.body.mimeType, filename: '', headers: payload.headers } } };
    return { json: { ...base, payload } };
  });

  fake.route('GET', '/gmail/v1/users/:userId/history', (req) => {
    if (!user(req)) return wrongUser();
    const raw = req.query.get('startHistoryId');
    if (!raw) return googleError(400, 'invalidArgument', 'Missing required parameter: startHistoryId', 'INVALID_ARGUMENT');
    const start = Number(raw);
    if (!Number.isInteger(start) || start < 0) return invalid('Invalid startHistoryId');
    if (start < oldestKept || start > historyId) return notFound();
    const types = req.query.getAll('historyTypes');
    const labelId = req.query.get('labelId');
    const records = data.history.filter((h) => h.id > start && (types.length === 0 || types.includes(h.type)) && (!labelId || h.labelIds.includes(labelId)));
    const page = cursorPage(records, req.query.get('pageToken'), maxResults(req, 100));
    const msg = (h: HistoryRecord) => ({ id: h.messageId, threadId: h.threadId, labelIds: h.labelIds });
    const history = page.items.map((h) => ({
      id: String(h.id),
      messages: [{ id: h.messageId, threadId: h.threadId }],
      ...(h.type === 'messageAdded' ? { messagesAdded: [{ message: msg(h) }] } : {}),
      ...(h.type === 'messageDeleted' ? { messagesDeleted: [{ message: { id: h.messageId, threadId: h.threadId } }] } : {}),
      ...(h.type === 'labelAdded' ? { labelsAdded: [{ message: msg(h), labelIds: h.changed }] } : {}),
      ...(h.type === 'labelRemoved' ? { labelsRemoved: [{ message: msg(h), labelIds: h.changed }] } : {}),
    }));
    return { json: { ...(history.length > 0 ? { history } : {}), ...(page.next ? { nextPageToken: page.next } : {}), historyId: String(historyId) } };
  });

  await fake.start();
  const gmail: FakeGmail = {
    get url() {
      return fake.url;
    },
    token,
    fake,
    data,
    addMessage(m) {
      const headers = [
        { name: 'MIME-Version', value: '1.0' },
        { name: 'Date', value: new Date(Date.UTC(2025, 1, 3, 9, minutes)).toUTCString().replace('GMT', '+0000') },
        { name: 'Message-ID', value: `<${m.id}@mail.atrium.test>` },
        { name: 'Subject', value: m.subject },
        { name: 'From', value: m.from },
        { name: 'To', value: m.to },
        ...(m.cc ? [{ name: 'Cc', value: m.cc }] : []),
        ...(m.extraHeaders ?? []),
      ];
      const body: FakePart = m.body ?? (m.html !== undefined ? { mimeType: 'text/html', text: m.html } : { mimeType: 'text/plain', text: m.text ?? '' });
      const msg: FakeMessage = { id: m.id, threadId: m.threadId ?? m.id, labelIds: m.labelIds ?? ['INBOX', 'UNREAD'], internalDate: internalDate(), historyId: '0', headers, body };
      data.messages.push(msg);
      log('messageAdded', msg);
      return msg;
    },
    deleteMessage(id) {
      const i = data.messages.findIndex((m) => m.id === id);
      const [m] = data.messages.splice(i, 1);
      if (i < 0 || !m) throw new Error(`no message ${id}`);
      log('messageDeleted', m);
      return m;
    },
    addLabels(id, labels) {
      const m = byId(id);
      if (!m) throw new Error(`no message ${id}`);
      m.labelIds = [...new Set([...m.labelIds, ...labels])];
      log('labelAdded', m, labels);
    },
    removeLabels(id, labels) {
      const m = byId(id);
      if (!m) throw new Error(`no message ${id}`);
      m.labelIds = m.labelIds.filter((l) => !labels.includes(l));
      log('labelRemoved', m, labels);
    },
    currentHistoryId: () => String(historyId),
    expireHistory() {
      oldestKept = historyId;
    },
    quotaNext(count, match) {
      fake.failNext(count, 403, match);
    },
    close: () => fake.close(),
  };
  seedGmail(gmail);
  return gmail;
}

/** A small mailbox: plain, HTML-only, multipart with an attachment, a Latin-1 body, a label, a draft, spam and trash. */
function seedGmail(g: FakeGmail): void {
  g.addMessage({
    id: '18c1a0000000a001',
    threadId: '18c1a0000000a001',
    labelIds: ['INBOX', 'Label_7'],
    from: '"Lovelace, Ada" <Ada@Atrium.test>',
    to: 'Grace Hopper <grace@atrium.test>, linus@partner.test',
    cc: 'Eng Team: Charles@Atrium.test, dora@atrium.test;',
    subject: 'Atlas shard layout',
    body: {
      mimeType: 'multipart/alternative',
      parts: [
        { mimeType: 'text/plain', text: 'Hi Grace,\r\n\r\nThe Atlas service stores telemetry in columnar shards.\r\n\r\nAda' },
        { mimeType: 'text/html', text: '<div>Hi Grace,<br><br>The Atlas service stores telemetry in <b>columnar shards</b>.<br><br>Ada</div>' },
      ],
    },
  });
  g.addMessage({
    id: '18c1a0000000a002',
    threadId: '18c1a0000000a001',
    labelIds: ['INBOX', 'UNREAD', 'Label_7'],
    from: 'Grace Hopper <grace@atrium.test>',
    to: 'Ada@Atrium.test',
    subject: 'Re: Atlas shard layout',
    html: '<html><head><title>x</title><style>p{color:red}</style></head><body><p>Sounds good. Let us compact the shards <i>nightly</i>.</p></body></html>',
  });
  g.addMessage({
    id: '18c1a0000000a003',
    labelIds: ['INBOX', 'Label_9'],
    from: 'billing@vendor.test',
    to: 'ada@atrium.test',
    subject: '=?UTF-8?B?UmVjZWlwdCDigJMgRmVicnVhcnk=?=',
    body: {
      mimeType: 'multipart/mixed',
      parts: [
        { mimeType: 'text/plain', text: 'Your receipt for February is attached. Total: 42 EUR.' },
        { mimeType: 'application/pdf', filename: 'receipt-feb.pdf', headers: [{ name: 'Content-Disposition', value: 'attachment; filename="receipt-feb.pdf"' }] },
      ],
    },
  });
  g.addMessage({
    id: '18c1a0000000a004',
    labelIds: ['SENT'],
    from: 'Ada Lovelace <ada@atrium.test>',
    to: 'jose@partner.test',
    subject: 'Café menu',
    body: { mimeType: 'text/plain', charset: 'ISO-8859-1', text: 'Le café ouvre à huit heures.' },
  });
  g.addMessage({ id: '18c1a0000000a005', labelIds: ['DRAFT'], from: 'ada@atrium.test', to: 'grace@atrium.test', subject: 'Unsent thoughts', text: 'Not sent yet.' });
  g.addMessage({ id: '18c1a0000000a006', labelIds: ['SPAM'], from: 'prize@spam.test', to: 'ada@atrium.test', subject: 'You won', text: 'Claim your prize.' });
  g.addMessage({ id: '18c1a0000000a007', labelIds: ['TRASH'], from: 'old@atrium.test', to: 'ada@atrium.test', subject: 'Old news', text: 'Thrown away.' });
}
