import type { Logger } from '../log.js';
import type { Job, ProbeOutcome } from '../domain/run.js';

export interface RunContext {
  /** Aborted when the job's deadline passes or the agent gives up on it. */
  signal: AbortSignal;
  /** Epoch ms by which the probe must be done. */
  deadline: number;
  log: Logger;
}

/** Every check type exports one of these from src/checks/<type>.ts. */
export type CheckRunner = (job: Job, ctx: RunContext) => Promise<ProbeOutcome>;
