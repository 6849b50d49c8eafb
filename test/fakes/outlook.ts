import { type FakeReply, type FakeRequest, oauthTokenEndpoint, VendorFake } from './kit/index.ts';

/**
 * A Microsoft Graph v1.0 fake for the Outlook mail connector, in Graph's wire format (learn.microsoft.com/graph/api/…):
 * `GET /v1.0/me`; `GET /me/mailFolders` and `/me/mailFolders/{id}/childFolders` (`$top`, default 10, `$skip` in the
 * `@odata.nextLink`); `GET /me/mailFolders/{id or well-known name}`; `GET /me/mailFolders/{id}/messages/delta`
 * (`$select`, `$filter=receivedDateTime ge|gt …`, `Prefer: odata.maxpagesize` (default 10) and
 * `outlook.body-content-type="text"`; `@odata.nextLink` with `$skiptoken`, `@odata.deltaLink` with `$deltatoken`, both
 * in Graph's `/me/mailfolders('<id>')/messages/delta` form; removed or moved-out messages as `{id, "@removed":
 * {reason: "deleted"}}`; expired tokens answer 410 `SyncStateNotFound`); errors as `{error: {code, message,
 * innerError}}`; 429 `ApplicationThrottled` with Retry-After; the Microsoft identity platform token endpoint.
 * A moved message gets a new id, as Outlook's default (not immutable) ids do.
 */
export interface Addr {
  readonly name: string;
  readonly address: string;
}
export interface FakeMail {
  id: string;
  folderId: string;
  readonly created: string;
  readonly received: string;
  modified: string;
  /** Change sequence: what delta tokens compare. */
  seq: number;
  subject: string;
  html: string;
  /** The body Outlook serves under `Prefer: outlook.body-content-type="text"`. */
  text: string;
  readonly from: Addr;
  to: Addr[];
  cc: Addr[];
  readonly conversationId: string;
}
export interface FakeFolder {
  readonly id: string;
  displayName: string;
  readonly parentId: string;
  readonly wellKnown?: string;
  /** Messages removed from this folder (deleted or moved out), with the change sequence of the removal. */
  readonly removed: { id: string; seq: number }[];
}

const SEED_AGE_MS = 20 * 86_400_000;

export class FakeOutlook extends VendorFake {
  readonly token = 'eyJ0eXAiOiJKV1QiLCJub25jZSI6ImZha2Utb3V0bG9vayJ9.graph-token';
  readonly me = { id: '48d31887-5fad-4d73-a9f5-3c356e68a038', displayName: 'Megan Bowen', mail: 'MeganB@contoso.com', userPrincipalName: 'meganb@contoso.onmicrosoft.com' };
  readonly rootId = folderId('msgfolderroot');
  readonly folders: FakeFolder[] = [];
  readonly messages: FakeMail[] = [];
  /** `Prefer` headers of delta requests, in order. */
  readonly prefers: string[] = [];
  seq = 0;
  seeding = true;
  /** Bumped by `expireDeltaTokens`: older tokens answer 410. */
  private generation = 0;
  private lastMs = Date.now() - SEED_AGE_MS;
  private issued = 0;
  private nextId = 0;

  constructor(readonly opts: { pageSize?: number } = {}) {
    super({
      name: 'Microsoft Graph',
      publicPath: (p) => p.startsWith('/organizations/'),
      unauthorized: () => graphError(401, 'InvalidAuthenticationToken', 'Access token has expired or is not yet valid.'),
      rateLimited: () => graphError(429, 'ApplicationThrottled', 'Application is over its MailboxConcurrency limit.'),
      // Graph's throttling 503 carries Retry-After (throttling guidance); other 5xx do not.
      serverError: (status) => ({ ...graphError(status, status === 503 ? 'serviceNotAvailable' : 'ErrorInternalServerError', 'The service is temporarily unavailable.'), ...(status === 503 ? { headers: { 'retry-after': '1' } } : {}) }),
    });
    this.allow(this.token);
    this.graphRoutes();
  }

  /** The next instant (after every earlier one, and not before the wall clock once seeding is over). */
  tick(): string {
    this.lastMs = Math.max(this.lastMs + 1000, this.seeding ? this.lastMs + 1000 : Date.now());
    return new Date(this.lastMs).toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  folder(name: string): FakeFolder {
    const f = this.folders.find((x) => x.wellKnown === name || x.displayName === name || x.id === name);
    if (!f) throw new Error(`no folder ${name}`);
    return f;
  }

  addFolder(displayName: string, parent: string | null, wellKnown?: string): FakeFolder {
    const f: FakeFolder = { id: folderId(displayName), displayName, parentId: parent ? this.folder(parent).id : this.rootId, ...(wellKnown ? { wellKnown } : {}), removed: [] };
    this.folders.push(f);
    return f;
  }

  mail(folder: string, from: Addr, to: Addr[], subject: string, html: string, text: string, extra: Partial<Pick<FakeMail, 'cc' | 'conversationId'>> = {}): FakeMail {
    const at = this.tick();
    const m: FakeMail = { id: this.newId(), folderId: this.folder(folder).id, created: at, received: at, modified: at, seq: ++this.seq, subject, html, text, from, to, cc: [], conversationId: `AAQkAGI2${Buffer.from(subject).toString('base64url').slice(0, 16)}=`, ...extra };
    this.messages.push(m);
    return m;
  }

  /** Marks a message changed now (an edit, a category, read state). */
  touch(m: FakeMail): void {
    m.modified = this.tick();
    m.seq = ++this.seq;
  }

  /** Hard-deletes a message (or empties it from Deleted Items). */
  remove(m: FakeMail): void {
    this.messages.splice(this.messages.indexOf(m), 1);
    this.folder(m.folderId).removed.push({ id: m.id, seq: ++this.seq });
  }

  /** Moves a message: removed from its folder, added to the target under a new id. */
  move(m: FakeMail, target: string): void {
    this.folder(m.folderId).removed.push({ id: m.id, seq: ++this.seq });
    m.id = this.newId();
    m.folderId = this.folder(target).id;
    this.touch(m);
  }

  /** Every delta link handed out so far stops working (Exchange dropped its sync state). */
  expireDeltaTokens(): void {
    this.generation++;
  }

  inFolder(name: string): FakeMail[] {
    const f = this.folder(name);
    return this.messages.filter((m) => m.folderId === f.id);
  }

  private newId(): string {
    return `AAMkAGVmMDEz${Buffer.from(`message-${++this.nextId}`).toString('base64url')}AAA=`;
  }

  private graphRoutes(): void {
    this.route('POST', '/organizations/oauth2/v2.0/token', oauthTokenEndpoint(this, { code: 'ms-auth-code', issue: () => ({ access_token: `${this.token}.${++this.issued}`, refresh_token: `rt-${this.issued}`, expires_in: 3600, scope: 'Mail.Read User.Read' }) }));
    this.route('GET', '/v1.0/me', () => ({ json: { '@odata.context': `${this.url}/v1.0/$metadata#users/$entity`, businessPhones: [], jobTitle: 'Marketing Manager', ...this.me } }));
    this.route('GET', '/v1.0/me/mailFolders', (req) => this.folderList(req, this.rootId, `${this.url}/v1.0/me/mailFolders`));
    this.route('GET', '/v1.0/me/mailFolders/:id', (req) => {
      const f = this.lookup(req.params.id ?? '');
      return 'error' in f ? f.error : { json: { '@odata.context': `${this.url}/v1.0/$metadata#users('${this.me.id}')/mailFolders/$entity`, ...this.folderJson(f.folder) } };
    });
    this.route('GET', '/v1.0/me/mailFolders/:id/childFolders', (req) => {
      const f = this.lookup(req.params.id ?? '');
      return 'error' in f ? f.error : this.folderList(req, f.folder.id, `${this.url}/v1.0/me/mailFolders/${encodeURIComponent(f.folder.id)}/childFolders`);
    });
    this.route('GET', '/v1.0/me/mailFolders/:id/messages/delta', (req) => {
      const f = this.lookup(req.params.id ?? '');
      return 'error' in f ? f.error : this.delta(req, f.folder);
    });
    // The links Graph hands out name the folder as `mailfolders('<id>')`.
    this.route('GET', '/v1.0/me/:folderseg/messages/delta', (req) => {
      const m = /^mailfolders\('(.+)'\)$/i.exec(req.params.folderseg ?? '');
      const f = m?.[1] ? this.lookup(m[1]) : null;
      if (!f) return graphError(400, 'BadRequest', `Resource not found for the segment '${req.params.folderseg}'.`);
      return 'error' in f ? f.error : this.delta(req, f.folder);
    });
  }

  private lookup(ref: string): { folder: FakeFolder } | { error: FakeReply } {
    const f = this.folders.find((x) => x.id === ref || x.wellKnown === ref.toLowerCase());
    if (f) return { folder: f };
    // An unknown well-known name is not a valid id; a well-formed id of nothing is not found.
    if (/^[a-z]+$/i.test(ref)) return { error: graphError(400, 'ErrorInvalidIdMalformed', 'Id is malformed.') };
    return { error: graphError(404, 'ErrorItemNotFound', 'The specified object was not found in the store.') };
  }

  private folderList(req: FakeRequest, parentId: string, self: string): FakeReply {
    const top = Number(req.query.get('$top') ?? 10);
    const skip = Number(req.query.get('$skip') ?? 0);
    if (!Number.isInteger(top) || top < 1 || top > 1000) return graphError(400, 'ErrorInvalidParameter', `The value '${req.query.get('$top')}' of parameter 'Top' is invalid.`);
    const all = this.folders.filter((f) => f.parentId === parentId);
    const page = all.slice(skip, skip + top);
    const more = skip + top < all.length;
    return {
      json: {
        '@odata.context': `${this.url}/v1.0/$metadata#users('${this.me.id}')/mailFolders`,
        ...(more ? { '@odata.nextLink': `${self}?%24top=${top}&%24skip=${skip + top}` } : {}),
        value: page.map((f) => this.folderJson(f)),
      },
    };
  }

  private folderJson(f: FakeFolder) {
    const msgs = this.messages.filter((m) => m.folderId === f.id);
    return {
      id: f.id,
      displayName: f.displayName,
      parentFolderId: f.parentId,
      childFolderCount: this.folders.filter((c) => c.parentId === f.id).length,
      unreadItemCount: 0,
      totalItemCount: msgs.length,
      sizeInBytes: msgs.reduce((n, m) => n + m.html.length, 0),
      isHidden: false,
    };
  }

  private delta(req: FakeRequest, f: FakeFolder): FakeReply {
    const prefer = String(req.headers.prefer ?? '');
    this.prefers.push(prefer);
    const maxPage = Number(/odata\.maxpagesize=(\d+)/i.exec(prefer)?.[1] ?? 10);
    const size = Math.min(maxPage, this.opts.pageSize ?? maxPage);
    const text = /outlook\.body-content-type="?text"?/i.test(prefer);
    const skip = req.query.get('$skiptoken');
    const deltaToken = req.query.get('$deltatoken');
    // A round: the change sequence it starts after (null = initial round), its end, its query options and offset.
    let round: Round;
    if (skip) round = dec(skip);
    else if (deltaToken) round = { ...dec(deltaToken), since: dec(deltaToken).upto, upto: this.seq, o: 0 };
    else {
      const filter = req.query.get('$filter');
      let from: { at: number; inclusive: boolean } | null = null;
      if (filter) {
        const m = /^receivedDateTime (ge|gt) (\S+)$/.exec(filter);
        if (!m?.[2] || Number.isNaN(Date.parse(m[2]))) return graphError(400, 'ErrorInvalidUrlQueryFilter', `The query filter '${filter}' specified in the URL is not supported by delta.`);
        from = { at: Date.parse(m[2]), inclusive: m[1] === 'ge' };
      }
      round = { since: null, upto: this.seq, from, select: req.query.get('$select'), o: 0, g: this.generation };
    }
    if (round.g !== this.generation) return graphError(410, 'SyncStateNotFound', 'The sync state for this request was not found or has expired.');
    const inWindow = (m: FakeMail) => !round.from || (round.from.inclusive ? Date.parse(m.received) >= round.from.at : Date.parse(m.received) > round.from.at);
    type Entry = { seq: number; json: Record<string, unknown> };
    const entries: Entry[] = this.messages
      .filter((m) => m.folderId === f.id && m.seq <= round.upto && (round.since === null || m.seq > round.since) && inWindow(m))
      .map((m) => ({ seq: m.seq, json: this.messageJson(m, round.select, text) }));
    if (round.since !== null) {
      for (const r of f.removed) {
        if (r.seq > round.since && r.seq <= round.upto) entries.push({ seq: r.seq, json: { '@odata.type': '#microsoft.graph.message', id: r.id, '@removed': { reason: 'deleted' } } });
      }
    }
    entries.sort((a, b) => a.seq - b.seq);
    const items = entries.slice(round.o, round.o + size);
    const more = round.o + size < entries.length;
    const link = `${this.url}/v1.0/me/mailfolders('${f.id}')/messages/delta`;
    return {
      json: {
        '@odata.context': `${this.url}/v1.0/$metadata#Collection(message)`,
        ...(more ? { '@odata.nextLink': `${link}?$skiptoken=${enc({ ...round, o: round.o + size })}` } : { '@odata.deltaLink': `${link}?$deltatoken=${enc({ ...round, o: 0 })}` }),
        value: items.map((e) => e.json),
      },
    };
  }

  private messageJson(m: FakeMail, select: string | null, text: boolean): Record<string, unknown> {
    const email = (a: Addr) => ({ emailAddress: { name: a.name, address: a.address } });
    const full: Record<string, unknown> = {
      createdDateTime: m.created,
      lastModifiedDateTime: m.modified,
      changeKey: `CQAAABYAAAA${m.seq}`,
      categories: [],
      receivedDateTime: m.received,
      sentDateTime: m.received,
      hasAttachments: false,
      internetMessageId: `<${m.id.slice(0, 12)}@contoso.com>`,
      subject: m.subject,
      bodyPreview: m.text.slice(0, 255),
      importance: 'normal',
      parentFolderId: m.folderId,
      conversationId: m.conversationId,
      isDeliveryReceiptRequested: false,
      isReadReceiptRequested: false,
      isRead: true,
      isDraft: false,
      webLink: `https://outlook.office365.com/owa/?ItemID=${encodeURIComponent(m.id)}&exvsurl=1&viewmodel=ReadMessageItem`,
      inferenceClassification: 'focused',
      body: text ? { contentType: 'text', content: m.text } : { contentType: 'html', content: m.html },
      sender: email(m.from),
      from: email(m.from),
      toRecipients: m.to.map(email),
      ccRecipients: m.cc.map(email),
      bccRecipients: [],
      replyTo: [],
    };
    const picked = select ? Object.fromEntries(select.split(',').filter((k) => k in full).map((k) => [k, full[k]])) : full;
    return { '@odata.type': '#microsoft.graph.message', '@odata.etag': `W/"CQAAABYAAAA${m.seq}"`, id: m.id, ...picked };
  }
}

type Round = { since: number | null; upto: number; from: { at: number; inclusive: boolean } | null; select: string | null; o: number; g: number };
const enc = (r: Round) => Buffer.from(JSON.stringify(r)).toString('base64url');
const dec = (s: string): Round => JSON.parse(Buffer.from(s, 'base64url').toString('utf8')) as Round;
const folderId = (name: string) => `AQMkADAwATM0MDAAMS0${Buffer.from(name).toString('base64url')}AAAA`;

function graphError(status: number, code: string, message: string): FakeReply {
  return { status, json: { error: { code, message, innerError: { date: new Date().toISOString().slice(0, 19), 'request-id': '7e3ae8a4-0000-4000-8000-000000000000', 'client-request-id': '7e3ae8a4-0000-4000-8000-000000000000' } } } };
}

export const PEOPLE = {
  megan: { name: 'Megan Bowen', address: 'MeganB@contoso.com' },
  adele: { name: 'Adele Vance', address: 'AdeleV@contoso.com' },
  alex: { name: 'Alex Wilber', address: 'alexw@contoso.com' },
  diego: { name: 'Diego Siciliani', address: 'DiegoS@contoso.com' },
  vendor: { name: 'Fabrikam Billing', address: 'billing@fabrikam.com' },
} as const;

/**
 * A mailbox: Inbox (with Projects, and Apollo below it), Sent Items, Drafts, Archive, Deleted Items, Junk Email. HTML
 * and plain-text messages with To and Cc; Deleted Items and Junk Email hold one message each (excluded by default).
 */
export async function startFakeOutlook(opts: { pageSize?: number } = {}): Promise<FakeOutlook> {
  const o = new FakeOutlook(opts);
  const { megan, adele, alex, diego, vendor } = PEOPLE;
  o.addFolder('Inbox', null, 'inbox');
  o.addFolder('Projects', 'inbox');
  o.addFolder('Apollo', 'Projects');
  o.addFolder('Sent Items', null, 'sentitems');
  o.addFolder('Drafts', null, 'drafts');
  o.addFolder('Archive', null, 'archive');
  o.addFolder('Deleted Items', null, 'deleteditems');
  o.addFolder('Junk Email', null, 'junkemail');

  o.mail(
    'inbox',
    adele,
    [megan],
    'Q3 planning: budget review',
    '<html><body><p>Hi Megan,</p><p>The <b>Q3 budget review</b> moved to Thursday. Please bring the campaign spend forecast.</p><p>Adele</p></body></html>',
    'Hi Megan,\r\n\r\nThe Q3 budget review moved to Thursday. Please bring the campaign spend forecast.\r\n\r\nAdele',
    { cc: [alex] },
  );
  o.mail('inbox', vendor, [megan], 'Invoice INV-2291 is due', '<p>Your invoice INV-2291 for 4,200 EUR is due on the 30th.</p>', 'Your invoice INV-2291 for 4,200 EUR is due on the 30th.');
  o.mail('inbox', diego, [megan, adele], 'Offsite venue shortlist', '<div>Three venues left: Lisbon, Porto and Seville.</div>', 'Three venues left: Lisbon, Porto and Seville.');
  o.mail('Projects', alex, [megan], 'Project kickoff notes', '<p>Kickoff notes are in the shared notebook.</p>', 'Kickoff notes are in the shared notebook.');
  o.mail('Apollo', adele, [megan], 'Apollo launch checklist', '<ul><li>Press kit</li><li>Landing page</li></ul>', 'Press kit\r\nLanding page');
  o.mail('sentitems', megan, [diego], 'Re: Offsite venue shortlist', '<p>Porto gets my vote.</p>', 'Porto gets my vote.');
  o.mail('archive', alex, [megan], 'Last year retrospective', '<p>Retro outcomes attached as text: ship smaller, ship sooner.</p>', 'Retro outcomes attached as text: ship smaller, ship sooner.');
  o.mail('deleteditems', vendor, [megan], 'Newsletter: spring deals', '<p>Deals inside.</p>', 'Deals inside.');
  o.mail('junkemail', { name: 'Prize Desk', address: 'win@lottery.example' }, [megan], 'You won', '<p>Claim now.</p>', 'Claim now.');
  o.seeding = false;
  return o.start();
}
