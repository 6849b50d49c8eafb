import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import type http from 'node:http';
import os from 'node:os';
import path from 'node:path';

/**
 * Git's smart HTTP protocol served by the real `git http-backend` CGI over bare repositories that the
 * tests create with the `git` CLI. Used by the GitHub fake for `<owner>/<repo>.wiki.git`.
 */
const BACKEND = '/usr/lib/git-core/git-http-backend';

export interface GitRepos {
  /** GIT_PROJECT_ROOT: bare repositories live at `<root>/<name>` (e.g. `acme/api.wiki.git`). */
  readonly root: string;
  exists(name: string): boolean;
  /**
   * Writes (string) or deletes (null) files in the repository `name` (created bare on first use) and commits
   * them as one commit by `author`. Returns the new commit sha.
   */
  commit(name: string, files: Record<string, string | null>, opts?: { author?: string; date?: string; message?: string }): string;
  /** Removes every repository (call at the end of a test). */
  remove(): void;
}

function git(args: string[], env: Record<string, string> = {}): string {
  return execFileSync('git', args, { encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: os.tmpdir(), ...env } }).trim();
}

export function createGitRepos(): GitRepos {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'atrium-fake-git-'));
  const work = (name: string) => path.join(root, '.work', name);
  return {
    root,
    exists: (name) => fs.existsSync(path.join(root, name, 'HEAD')),
    commit(name, files, opts = {}) {
      const bare = path.join(root, name);
      const tree = work(name);
      if (!fs.existsSync(path.join(bare, 'HEAD'))) {
        fs.mkdirSync(bare, { recursive: true });
        git(['init', '--quiet', '--bare', '--initial-branch=master', bare]);
        fs.mkdirSync(tree, { recursive: true });
      }
      for (const [file, content] of Object.entries(files)) {
        const p = path.join(tree, file);
        if (content === null) fs.rmSync(p, { force: true });
        else {
          fs.mkdirSync(path.dirname(p), { recursive: true });
          fs.writeFileSync(p, content);
        }
      }
      const author = opts.author ?? 'octocat';
      const date = opts.date ?? new Date().toISOString();
      const env = {
        GIT_AUTHOR_NAME: author,
        GIT_AUTHOR_EMAIL: `${author}@users.noreply.github.com`,
        GIT_COMMITTER_NAME: 'GitHub',
        GIT_COMMITTER_EMAIL: 'noreply@github.com',
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_DATE: date,
      };
      const base = [`--git-dir=${bare}`, `--work-tree=${tree}`];
      git([...base, 'add', '--all', '.'], env);
      git([...base, 'commit', '--quiet', '--allow-empty', '-m', opts.message ?? `Updated ${Object.keys(files).join(', ')}`], env);
      return git([`--git-dir=${bare}`, 'rev-parse', 'HEAD']);
    },
    remove: () => fs.rmSync(root, { recursive: true, force: true }),
  };
}

/**
 * Runs `git http-backend` for one request (`pathInfo` like `/acme/api.wiki.git/info/refs`) and relays its
 * CGI response (a `Status:` header, other headers, a blank line, the body).
 */
export function serveGit(root: string, req: http.IncomingMessage, res: http.ServerResponse, pathInfo: string, query: string, body: Buffer): void {
  const child = spawn(BACKEND, [], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      GIT_CONFIG_NOSYSTEM: '1',
      HOME: os.tmpdir(),
      PATH_INFO: pathInfo,
      QUERY_STRING: query,
      REQUEST_METHOD: req.method ?? 'GET',
      CONTENT_TYPE: req.headers['content-type'] ?? '',
      CONTENT_LENGTH: String(body.length),
      REMOTE_USER: 'x-access-token',
      REMOTE_ADDR: '127.0.0.1',
      ...(typeof req.headers['git-protocol'] === 'string' ? { GIT_PROTOCOL: req.headers['git-protocol'] } : {}),
      ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: String(req.headers['content-encoding']) } : {}),
    },
  });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on('data', (c: Buffer) => out.push(c));
  child.stderr.on('data', (c: Buffer) => err.push(c));
  child.stdin.on('error', () => undefined);
  child.stdin.end(body);
  child.on('close', () => {
    const all = Buffer.concat(out);
    let split = all.indexOf('\r\n\r\n');
    let sepLen = 4;
    if (split < 0) {
      split = all.indexOf('\n\n');
      sepLen = 2;
    }
    if (split < 0) {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(`git http-backend failed: ${Buffer.concat(err).toString('utf8')}`);
      return;
    }
    let status = 200;
    let message = 'OK';
    const headers: Record<string, string> = {};
    for (const line of all.subarray(0, split).toString('latin1').split(/\r?\n/)) {
      const i = line.indexOf(':');
      if (i < 0) continue;
      const name = line.slice(0, i).trim();
      const value = line.slice(i + 1).trim();
      if (name.toLowerCase() === 'status') {
        status = Number.parseInt(value, 10);
        message = value.replace(/^\d+\s*/, '') || message;
      } else headers[name] = value;
    }
    res.writeHead(status, message, headers);
    res.end(all.subarray(split + sepLen));
  });
}
