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
 * The id of a row made often (a result, a check): a UUID (version 7) that begins with the time
 * it was made, so ids grow with time and the index on them is appended to, where random ids
 * would dirty a page of it anywhere on every insert (a fifth of the bytes the embedded store
 * wrote per result, and most of what it wrote per check created).
 */
export function newOrderedId(now = Date.now()): string {
  // A random (v4) UUID from Node's pooled generator, its first 48 bits replaced by the time and
  // its version nibble by 7: the variant bits are the same in both. A fresh 16-byte buffer per
  // id cost a CPU-bound system call each, 4 % of the service's work in a drain.
  const time = now.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
