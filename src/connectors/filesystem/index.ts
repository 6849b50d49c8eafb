import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { commonSettings, folderSettingsSchema, type FolderState, folderStateSchema, type KindDefinition, scanFolder, SourceSettingsError, type SyncMode } from '../kit/index.ts';

const settings = folderSettingsSchema.extend({ ...commonSettings }).strict();
type Settings = z.infer<typeof settings>;
const page = z.object({ mode: z.enum(['incremental', 'full']), previous: folderStateSchema.nullable() });
type FsPage = z.infer<typeof page>;

/** True when `target` is one of `roots` or inside one (after resolving `..`). */
export function insideRoots(target: string, roots: readonly string[]): boolean {
  const t = path.resolve(target);
  return roots.some((r) => {
    const root = path.resolve(r);
    const rel = path.relative(root, t);
    return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
  });
}

/**
 * `filesystem`: a folder on the server (Markdown, text, HTML, PDF, DOCX, parsed by the documents module's
 * scanner). Only folders under ATRIUM_FILESYSTEM_ROOTS may be synced, so a tenant cannot read arbitrary
 * server files. Incremental scans skip files whose mtime and size are unchanged.
 */
export function filesystemKind(roots: () => readonly string[]): KindDefinition<Record<string, never>, Settings, FolderState, FsPage> {
  const check = async (s: Settings) => {
    const outside = () => new SourceSettingsError(`'${s.path}' is outside the allowed folders: set ATRIUM_FILESYSTEM_ROOTS to include it`);
    if (!insideRoots(s.path, roots())) throw outside();
    // The path as written is inside; where it really leads must be too: a symlink in it (or the folder
    // itself being one) could point anywhere on the server.
    const real = await fs.realpath(s.path).catch((err: NodeJS.ErrnoException) => {
      throw new SourceSettingsError(err.code === 'ENOENT' ? `'${s.path}' does not exist` : `'${s.path}' cannot be read (${err.code ?? err.message})`);
    });
    const realRoots = await Promise.all(roots().map((r) => fs.realpath(r).catch(() => path.resolve(r))));
    if (!insideRoots(real, realRoots)) throw outside();
  };
  return {
    type: 'filesystem',
    displayName: 'Folder on the server',
    category: 'files',
    group: 'other',
    authTypes: ['none'],
    credentials: z.object({}).strict(),
    settings,
    contentTypes: ['markdown', 'text', 'html', 'pdf', 'docx'],
    vendorLimits: {},
    hasUsableCredentials: () => true,
    // Refused at creation already; syncs check again (the roots, the folder or its symlinks may change).
    checkSettings: check,
    async validate(ctx) {
      // A SourceSettingsError, not a credentials problem: it propagates with its class.
      await check(ctx.settings);
      return { ok: true };
    },
    sync: {
      cursorSchema: folderStateSchema,
      pageSchema: page,
      start: (mode: SyncMode, since: FolderState | null) => ({ mode, previous: mode === 'incremental' ? since : null }),
      async readPage(ctx, p) {
        await check(ctx.settings);
        const r = await scanFolder(ctx.settings, p.previous);
        for (const e of r.errors) ctx.log.warn({ path: e.path, err: e.message }, 'file skipped');
        // What could not be read this time keeps its stored version. A full sync removes what it did not see,
        // and starts without the previous scan state, so it asks the store what an unreadable folder held.
        const skipped = r.errors.map((e) => ({ external_id: e.path, reason: e.message }));
        if (p.mode === 'full') {
          for (const e of r.errors.filter((x) => x.path.endsWith('/'))) {
            for (const d of await ctx.stored(e.path)) skipped.push({ external_id: d.external_id, reason: `in ${e.path}: ${e.message}` });
          }
        }
        return {
          documents: r.upserts.map((d) => ({ ...d, title: d.title, content: d.content, url: d.url ?? undefined, author: d.author ?? undefined, document_type: d.document_type ?? undefined, created_at: d.created_at ?? undefined, updated_at: d.updated_at ?? undefined, metadata: d.metadata ?? undefined, acl: undefined })),
          deleted: p.mode === 'incremental' ? r.deletes : [],
          skipped,
          next: null,
          cursor: r.state,
        };
      },
    },
  };
}
