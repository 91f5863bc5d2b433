import type { Logger } from '../log.js';
import type { Job, ProbeOutcome } from '../domain/run.js';
import type { BrowserServers } from './pw/browser-server.js';
import type { TargetGuard } from '../domain/target-guard.js';
import type { Sandbox } from './sandbox.js';

export interface RunContext {
  /** Aborted when the job's deadline passes or the agent gives up on it. */
  signal: AbortSignal;
  /** Epoch ms by which the probe must be done. */
  deadline: number;
  log: Logger;
  /** Present on agents that run browser checks. */
  browser?: BrowserEnv;
  /** TCP checks resolve names through the operating system (USE_OS_DNS_RESOLVER), not DNS directly. */
  osResolver?: boolean;
  /** Present when the agent blocks private targets: every address a run connects to passes it. */
  guard?: TargetGuard;
}

export interface ArtifactLink {
  id: string;
  name: string;
  url: string;
  size: number;
  contentType: string;
}

export interface BrowserEnv {
  servers: BrowserServers;
  runtimesDir: string;
  /** The Chromium that runs launch themselves (multi-step checks) use (CHROMIUM_PATH). */
  chromiumPath: string;
  /** Runtimes this agent carries (installed, and allowed by OUTPOST_RUNTIMES). */
  carried: ReadonlySet<string>;
  /** Where user code runs: a sandbox of its own per job, or (none here, and not required) as the agent's child. */
  sandbox: Sandbox | null;
  /** Why there is no sandbox, when there is none. */
  sandboxMissing: string | null;
  /** No sandbox, no run (OUTPOST_SANDBOX=required). */
  sandboxRequired: boolean;
  /** Streams a file to the service; a refused upload (too large) comes back as an error. */
  upload?(job: Job, file: string, name: string, contentType: string): Promise<ArtifactLink | { error: string }>;
}

/**
 * Every check type exports one of these from src/checks/<type>.ts. R is its request as the
 * type's declaration (src/domain/check-types/<type>.ts) types it.
 */
export type CheckRunner<R = Record<string, unknown>> = (job: Job<R>, ctx: RunContext) => Promise<ProbeOutcome>;
