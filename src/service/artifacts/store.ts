// Where artifact bytes live. A small interface, so an S3-compatible store can take the place of
// the disk; the database keeps only the index (id, name, size, type).

import fs from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { releaseEvery, discard } from '../../stream-memory.js';

export class TooLarge extends Error {
  constructor(readonly limit: number) {
    super(`artifact is larger than ${limit} bytes`);
  }
}

export interface ArtifactStore {
  /** Streams `body` in; rejects with TooLarge (and keeps nothing) past `limit` bytes. Returns the size. */
  put(id: string, body: Readable, limit: number): Promise<number>;
  get(id: string): Readable | null;
  delete(id: string): Promise<void>;
}

/** Files under one folder, written to a temporary name and renamed once complete. */
export class DiskArtifactStore implements ArtifactStore {
  constructor(private dir: string) {
    fs.mkdirSync(dir, { recursive: true });
  }

  private file(id: string): string {
    if (!/^[A-Za-z0-9_-]+$/.test(id)) throw new Error(`bad artifact id ${id}`);
    return path.join(this.dir, id.slice(0, 2), id);
  }

  async put(id: string, body: Readable, limit: number): Promise<number> {
    const final = this.file(id);
    fs.mkdirSync(path.dirname(final), { recursive: true });
    const partial = `${final}.partial`;
    let size = 0;
    const release = releaseEvery();
    const count = new Transform({
      transform(chunk: Buffer, _enc, done) {
        size += chunk.length;
        release(chunk.length);
        done(size > limit ? new TooLarge(limit) : null, chunk);
      },
    });
    // The body is piped, not handed to pipeline(): on failure pipeline would destroy it, and
    // with it the connection the 413 has to go back on. Instead the rest is read and dropped.
    body.pipe(count);
    try {
      await pipeline(count, fs.createWriteStream(partial));
      fs.renameSync(partial, final);
      return size;
    } catch (e) {
      body.unpipe(count);
      discard(body);
      fs.rmSync(partial, { force: true });
      throw e;
    }
  }

  get(id: string): Readable | null {
    const f = this.file(id);
    return fs.existsSync(f) ? fs.createReadStream(f) : null;
  }

  async delete(id: string): Promise<void> {
    fs.rmSync(this.file(id), { force: true });
  }
}
