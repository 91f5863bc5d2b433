import { createHash, randomBytes, randomUUID } from 'node:crypto';

// Keys are 256-bit random tokens, so one SHA-256 is a sound at-rest form: there is no
// low-entropy password to stretch, and lookup by hash stays a single indexed read.
export const hashKey = (raw: string) => createHash('sha256').update(raw).digest('hex');
export const newApiKey = () => `op_${randomBytes(32).toString('hex')}`;
export const newPrivateLocationKey = () => `pl_${randomBytes(32).toString('hex')}`;
export const newPageKey = () => `pk_${randomBytes(32).toString('hex')}`;
export const maskKey = (raw: string) => `...${raw.slice(-4)}`;
export const newId = () => randomUUID();

/**
 * A result's id: a UUID (version 7) that begins with the time it was made, so results' ids
 * grow with time and the index on them is appended to, where random ids would dirty a page
 * of it anywhere on every insert (a fifth of the bytes the embedded store wrote per result).
 */
export function newResultId(now = Date.now()): string {
  const b = randomBytes(16);
  b.writeUIntBE(now, 0, 6);
  b[6] = 0x70 | (b[6] & 0x0f);
  b[8] = 0x80 | (b[8] & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
