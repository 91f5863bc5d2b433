// Runtimes: pinned dependency sets that browser, multi-step and Playwright checks run under.
// The records themselves live in runtimes/<id>/ (src/runtimes/catalog.ts reads them).

export const RUNTIME_STAGES = ['ALPHA', 'BETA', 'CURRENT', 'DEPRECATED', 'REMOVED', 'STABLE'] as const;
export type RuntimeStage = (typeof RUNTIME_STAGES)[number];

/** As `GET /v1/runtimes` shows it (the property names of the public API). */
export interface RuntimeRecord {
  name: string;
  stage: RuntimeStage;
  runtimeEndOfLife?: string;
  multiStepSupport: boolean;
  nodeJsVersion: string;
  description: string;
  dependencies: Record<string, string>;
}

/** The newest runtime at stage CURRENT: what a check without runtimeId runs under. */
export function currentRuntime(records: readonly RuntimeRecord[]): RuntimeRecord | undefined {
  return [...records].filter((r) => r.stage === 'CURRENT').sort((a, b) => b.name.localeCompare(a.name))[0];
}

/** Why a check may not pin this runtime, or null when it may. Pure. */
export function runtimeViolation(
  records: readonly RuntimeRecord[],
  runtimeId: string,
  opts: { isNew: boolean; changed: boolean; checkType?: string },
): string | null {
  const r = records.find((x) => x.name === runtimeId);
  if (!r) return `runtimeId ${JSON.stringify(runtimeId)} names no runtime (GET /v1/runtimes lists them)`;
  // A stored check keeps a runtime that was removed after it was saved, until it is changed.
  if (r.stage === 'REMOVED' && (opts.isNew || opts.changed))
    return `runtime ${runtimeId} has been removed: pick another (GET /v1/runtimes)`;
  if (opts.checkType === 'MULTI_STEP' && !r.multiStepSupport) return `runtime ${runtimeId} does not support multi-step checks`;
  return null;
}
