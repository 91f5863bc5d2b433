// Assertions judged with a time limit on what a user's pattern can make slow. Regexes and JSONPath
// run in a worker thread (src/checks/lookup-worker.ts), one run's lookups as one batch; a batch
// that runs past LOOKUP_TIME_LIMIT_MS ends the worker (a backtracking regex cannot be interrupted
// any other way) and fails the assertion it was on. Everything else is judged in this thread.
import { Worker } from 'node:worker_threads';
import { judge, type Actual, type Assertion, type AssertionOutcome } from '../domain/assertions.js';
import { RunError } from './errors.js';
import { workerScript } from '../worker-script.js';

export const LOOKUP_TIME_LIMIT_MS = 1000;
/** A worker left idle this long is ended; the next lookup starts another (~30 ms). */
const IDLE_MS = 60_000;

const WORKER = workerScript(import.meta.url, './lookup-worker.js');

/** A value to look into by JSONPath; runners return it where an assertion reads a document. */
export class InDocument {
  constructor(
    readonly doc: unknown,
    readonly path: string,
  ) {}
}

/** One assertion's lookup: a value (or a document by index) with a JSONPath and/or a regex. */
export interface Lookup {
  value?: Actual;
  doc?: number;
  path?: string;
  regex?: string;
}
export interface LookupBatch {
  id: number;
  docs: unknown[];
  lookups: Lookup[];
}
export type LookupAnswer = { batch: number; index: number } & ({ value: Actual } | { error: string });

/** An assertion's regex or JSONPath ran past the time limit. */
export class LookupTimeLimitError extends RunError {
  constructor(what: string) {
    super('OUTPOST_LOOKUP_TIME_LIMIT', `${what} took longer than ${LOOKUP_TIME_LIMIT_MS} ms and was stopped`);
  }
}

interface Pending {
  batch: LookupBatch;
  found: (Actual | Error | undefined)[];
  done: (found: (Actual | Error)[]) => void;
}

/** One worker per process, one batch in it at a time. */
class Lookups {
  private worker: Worker | null = null;
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private limit: NodeJS.Timeout | null = null;
  private idle: NodeJS.Timeout | null = null;

  run(docs: unknown[], lookups: Lookup[]): Promise<(Actual | Error)[]> {
    return new Promise((done) => {
      this.queue.push({ batch: { id: this.nextId++, docs, lookups }, found: new Array(lookups.length), done });
      if (this.queue.length === 1) this.send();
    });
  }

  private send(): void {
    const head = this.queue[0];
    if (!head) {
      this.idle ??= setTimeout(() => this.end(), IDLE_MS).unref();
      this.idle.refresh();
      return;
    }
    this.workerNow().postMessage(head.batch);
    this.limit = setTimeout(() => this.timedOut(), LOOKUP_TIME_LIMIT_MS);
  }

  private workerNow(): Worker {
    if (this.worker) return this.worker;
    const w = new Worker(WORKER, { resourceLimits: { maxOldGenerationSizeMb: 128 } });
    w.unref();
    w.on('message', (a: LookupAnswer) => this.answer(a));
    w.on('error', (err) => this.failHead(err));
    w.on('exit', () => {
      if (this.worker === w) this.worker = null;
    });
    this.worker = w;
    return w;
  }

  private answer(a: LookupAnswer): void {
    const head = this.queue[0];
    if (!head || head.batch.id !== a.batch) return;
    head.found[a.index] = 'error' in a ? new Error(a.error) : a.value;
    if (a.index === head.batch.lookups.length - 1) this.finishHead();
  }

  private finishHead(): void {
    clearTimeout(this.limit!);
    const head = this.queue.shift()!;
    head.done(Array.from(head.found, (f) => (f === undefined ? new Error('not evaluated') : f)));
    this.send();
  }

  private timedOut(): void {
    const head = this.queue[0]!;
    const stuck = head.found.findIndex((f) => f === undefined);
    const l = head.batch.lookups[stuck]!;
    head.found[stuck] = new LookupTimeLimitError(
      l.regex ? `the regex ${JSON.stringify(l.regex)}` : `the JSONPath ${JSON.stringify(l.path)}`,
    );
    for (let i = stuck + 1; i < head.found.length; i++) head.found[i] = new Error('not evaluated: an earlier assertion ran out of time');
    this.end();
    this.finishHead();
  }

  private failHead(err: Error): void {
    const head = this.queue[0];
    if (!head) return;
    for (let i = 0; i < head.found.length; i++)
      if (head.found[i] === undefined) head.found[i] = new Error(`the assertion could not be evaluated (${err.message})`);
    this.end();
    this.finishHead();
  }

  private end(): void {
    const w = this.worker;
    this.worker = null;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    void w?.terminate();
  }
}

const lookups = new Lookups();

/**
 * Judges assertions against what `sourceOf` gives for each: a value, an `InDocument` to look into
 * by JSONPath, or an error. Regexes and JSONPath run under the time limit.
 */
export async function assess(
  assertions: readonly Assertion[],
  sourceOf: (a: Assertion) => Actual | InDocument,
): Promise<AssertionOutcome[]> {
  const found: (Actual | Error)[] = new Array(assertions.length);
  const docs: unknown[] = [];
  const batch: Lookup[] = [];
  const slots: number[] = [];
  assertions.forEach((a, i) => {
    let source: Actual | InDocument;
    try {
      source = sourceOf(a);
    } catch (err) {
      found[i] = err as Error;
      return;
    }
    if (source instanceof InDocument && (source.path === '' || source.path === '$')) source = source.doc as Actual;
    const regex = a.regex || undefined;
    if (source instanceof InDocument) {
      let doc = docs.indexOf(source.doc);
      if (doc < 0) doc = docs.push(source.doc) - 1;
      batch.push({ doc, path: source.path, regex });
    } else if (regex && source !== null && typeof source !== 'object') {
      batch.push({ value: source, regex });
    } else {
      found[i] = source;
      return;
    }
    slots.push(i);
  });
  if (batch.length > 0) (await lookups.run(docs, batch)).forEach((f, k) => (found[slots[k]!] = f));
  return assertions.map((a, i) => judge(a, found[i]!));
}
