// The thread where assertion regexes and JSONPath run: a pattern that backtracks for minutes
// blocks this thread only, and the agent ends it when a batch runs out of time (src/checks/assess.ts).
import { parentPort } from 'node:worker_threads';
import { regexExtract, type Actual } from '../domain/assertions.js';
import { jsonPath } from '../domain/json-path.js';
import type { Lookup, LookupAnswer, LookupBatch } from './assess.js';

function lookUp(l: Lookup, docs: readonly unknown[]): Actual {
  const value = l.doc !== undefined ? jsonPath(docs[l.doc], l.path ?? '') : (l.value ?? null);
  return regexExtract(value, l.regex);
}

parentPort!.on('message', (batch: LookupBatch) => {
  batch.lookups.forEach((l, i) => {
    let answer: LookupAnswer;
    try {
      answer = { batch: batch.id, index: i, value: lookUp(l, batch.docs) };
    } catch (err) {
      answer = { batch: batch.id, index: i, error: (err as Error).message };
    }
    parentPort!.postMessage(answer);
  });
});
