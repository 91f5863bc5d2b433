import { createHash, randomBytes, randomUUID } from 'node:crypto';

// Keys are 256-bit random tokens, so one SHA-256 is a sound at-rest form: there is no
// low-entropy password to stretch, and lookup by hash stays a single indexed read.
export const hashKey = (raw: string) => createHash('sha256').update(raw).digest('hex');
export const newApiKey = () => `op_${randomBytes(32).toString('hex')}`;
export const newPrivateLocationKey = () => `pl_${randomBytes(32).toString('hex')}`;
export const newPageKey = () => `pk_${randomBytes(32).toString('hex')}`;
export const maskKey = (raw: string) => `...${raw.slice(-4)}`;
export const newId = () => randomUUID();
