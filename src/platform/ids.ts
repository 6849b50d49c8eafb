import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** A random lowercase base-36 suffix; 16 chars ≈ 82 bits. */
export function randomSuffix(length = 16): string {
  const bytes = randomBytes(length);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 36];
  return out;
}

/** A server-assigned id shaped `<prefix>_<suffix>` (or `<prefix>-<suffix>` for connectors, per the spec). */
export function newId(prefix: string, sep: '_' | '-' = '_'): string {
  return `${prefix}${sep}${randomSuffix()}`;
}
