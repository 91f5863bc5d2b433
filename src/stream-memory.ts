// Large streams (artifact uploads) pass through Node in 64 KB buffers whose memory lives outside
// the JS heap; V8 frees it only at a garbage collection, which it starts after tens of MB have
// piled up. A young-generation collection every few MB keeps a 150 MB upload within a few MB
// of idle memory, and costs well under a millisecond each (it also made uploads faster here).

import v8 from 'node:v8';
import vm from 'node:vm';

type Gc = (opts?: { type: 'minor' | 'major' }) => void;
let gc: Gc | null | undefined;

function collector(): Gc | null {
  if (gc !== undefined) return gc;
  try {
    v8.setFlagsFromString('--expose-gc');
    gc = vm.runInNewContext('gc') as Gc;
  } catch {
    gc = null;
  }
  return gc;
}

/** Call with each chunk's size; every `everyBytes` it asks V8 for a minor collection. */
export function releaseEvery(everyBytes = 4 * 1024 * 1024): (chunkBytes: number) => void {
  const collect = collector();
  let since = 0;
  return (n) => {
    since += n;
    if (since < everyBytes || !collect) return;
    since = 0;
    collect({ type: 'minor' });
  };
}

/** Reads a stream to its end and drops what it reads, releasing memory as it goes. */
export function discard(stream: NodeJS.ReadableStream): void {
  const release = releaseEvery();
  stream.on('data', (chunk: Buffer) => release(chunk.length));
  stream.resume();
}
