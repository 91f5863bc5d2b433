// Runtime records and the rules on pinning one; the records against the reference snapshot.

import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { loadRuntimes } from '../../src/runtimes/catalog.js';
import { currentRuntime, runtimeViolation, type RuntimeRecord } from '../../src/domain/runtimes.js';
import { DEFAULT_RUNTIME_ID, RUNTIME_IDS } from '../../src/domain/limits.js';

const records = loadRuntimes();

describe('runtime records (runtimes/<id>/)', () => {
  it('has every runtime id the API accepts, newest first, 2026.04 the one CURRENT', () => {
    expect(records.map((r) => r.name)).toEqual([...RUNTIME_IDS]);
    expect(currentRuntime(records)?.name).toBe('2026.04');
    expect(DEFAULT_RUNTIME_ID).toBe(currentRuntime(records)?.name);
  });

  it('matches the real records of the reference snapshot, dependency for dependency', () => {
    const snapshotFile = path.resolve('../shared/reference/runtimes-snapshot.json');
    // The snapshot sits beside the repository on development machines; the records are in git.
    const snapshot: RuntimeRecord[] = fs.existsSync(snapshotFile) ? JSON.parse(fs.readFileSync(snapshotFile, 'utf8')) : [];
    for (const real of snapshot) {
      const ours = records.find((r) => r.name === real.name)!;
      expect(ours.dependencies).toEqual(real.dependencies);
      expect(ours).toMatchObject({
        multiStepSupport: real.multiStepSupport,
        nodeJsVersion: real.nodeJsVersion,
        description: real.description,
      });
    }
    const newest = records[0];
    expect(Object.keys(newest.dependencies)).toHaveLength(71);
    expect(newest.dependencies).toMatchObject({
      '@playwright/test': '1.58.2',
      playwright: '1.58.2',
      prisma: '7.4.1',
      http: '24.13.1',
      https: '24.13.1',
    });
  });
});

describe('pinning a runtime', () => {
  const list: RuntimeRecord[] = [
    { name: '2026.04', stage: 'CURRENT', multiStepSupport: true, nodeJsVersion: 'v24', description: '', dependencies: {} },
    { name: '2023.02', stage: 'STABLE', multiStepSupport: false, nodeJsVersion: 'v16', description: '', dependencies: {} },
    { name: '2022.10', stage: 'REMOVED', multiStepSupport: false, nodeJsVersion: 'v16', description: '', dependencies: {} },
  ];
  it('refuses an unknown runtime', () => {
    expect(runtimeViolation(list, '2030.01', { isNew: true, changed: true })).toMatch(/names no runtime/);
  });
  it('refuses a removed runtime for a new check or a change, keeps it on an untouched one', () => {
    expect(runtimeViolation(list, '2022.10', { isNew: true, changed: true })).toMatch(/has been removed/);
    expect(runtimeViolation(list, '2022.10', { isNew: false, changed: true })).toMatch(/has been removed/);
    expect(runtimeViolation(list, '2022.10', { isNew: false, changed: false })).toBeNull();
  });
  it('refuses multi-step checks on a runtime without multi-step support', () => {
    expect(runtimeViolation(list, '2023.02', { isNew: true, changed: true, checkType: 'MULTI_STEP' })).toBe(
      'runtime 2023.02 does not support multi-step checks',
    );
    expect(runtimeViolation(list, '2023.02', { isNew: true, changed: true, checkType: 'BROWSER' })).toBeNull();
  });
});
