import type { Job } from '../domain/run.js';
import { VERSION } from '../version.js';

/** Headers that let a target tell synthetic traffic apart, and find the run that sent it. */
export function syntheticHeaders(job: Job): Record<string, string> {
  return {
    'user-agent': `Outpost/${VERSION} (synthetic monitoring)`,
    'x-outpost-check-id': job.checkId,
    'x-outpost-run-id': job.id,
  };
}
