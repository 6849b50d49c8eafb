import { createCipheriv, createDecipheriv, createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * AES-256-GCM for secrets at rest (connector credentials, OAuth tokens, OIDC client secrets).
 * Ciphertext format: `v1:<iv b64>:<tag b64>:<data b64>`. The key derives from ATRIUM_SECRET_KEY.
 */
export interface SecretBox {
  seal(plaintext: string): string;
  open(sealed: string): string;
}

export function createSecretBox(secret: string): SecretBox {
  const key = createHash('sha256').update(`atrium-secret-box:${secret}`).digest();
  return {
    seal(plaintext) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
      return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${data.toString('base64')}`;
    },
    open(sealed) {
      const [v, iv, tag, data] = sealed.split(':');
      if (v !== 'v1' || iv === undefined || tag === undefined || data === undefined) {
        throw new Error('sealed secret has an unknown format');
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64'));
      decipher.setAuthTag(Buffer.from(tag, 'base64'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64')), decipher.final()]).toString('utf8');
    },
  };
}

/**
 * Returns ATRIUM_SECRET_KEY, or the key stored in `<dataDir>/secret.key` (created with mode 0600 on first
 * start). Production deployments with several processes must set ATRIUM_SECRET_KEY explicitly.
 */
export async function resolveSecretKey(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured;
  const file = path.join(dataDir, 'secret.key');
  try {
    return (await fs.readFile(file, 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await fs.mkdir(dataDir, { recursive: true });
  const key = randomBytes(32).toString('base64url');
  await fs.writeFile(file, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  return (await fs.readFile(file, 'utf8')).trim();
}

/** Compares a computed secret value (a signature, a hash) with a given one in constant time; different lengths are unequal. */
export function constantTimeEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Credential values shorter than this are masked only where they stand alone (not inside a longer run of letters,
 * digits, `_` or `-`): a short token must not leak (`Bad credentials: token q7Zk2x`), nor turn every word that
 * contains it into `***`. Longer values are masked wherever they occur.
 */
export const MIN_MASKED_SECRET_LENGTH = 8;

/** Fields of stored OAuth tokens that describe them and are not secret (`scope: "repo"` must not mask "repo"). */
const NOT_SECRET = new Set(['scope', 'token_type', 'expires_in', 'expires_at']);

/** Every non-empty string in credentials or tokens, nested values included, whatever its length. */
export function secretStrings(value: unknown, out: Set<string> = new Set()): Set<string> {
  if (typeof value === 'string') {
    if (value.length > 0) out.add(value);
  } else if (Array.isArray(value)) {
    for (const v of value) secretStrings(v, out);
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) if (!NOT_SECRET.has(k)) secretStrings(v, out);
  }
  return out;
}

const TOKEN_CHAR = 'A-Za-z0-9_\\-';

/**
 * Replaces every occurrence of each secret (and of its URL-encoded form) with `***`. Longest first, so a
 * secret that contains another is masked whole; one shorter than MIN_MASKED_SECRET_LENGTH only where it stands
 * alone. Upstreams (vendors, LLM and embedding APIs) echo keys and tokens in error bodies; nothing built from
 * such a message may be stored, returned or logged before passing through here.
 */
export function maskSecrets(text: string, secrets: Iterable<string>): string {
  const forms = new Set<string>();
  for (const s of secrets) {
    if (s === '') continue;
    forms.add(s);
    const encoded = encodeURIComponent(s);
    if (encoded !== s) forms.add(encoded);
  }
  let out = text;
  for (const s of [...forms].sort((a, b) => b.length - a.length)) {
    if (s.length >= MIN_MASKED_SECRET_LENGTH) out = out.split(s).join('***');
    else out = out.replace(new RegExp(`(?<![${TOKEN_CHAR}])${s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![${TOKEN_CHAR}])`, 'g'), '***');
  }
  return out;
}
