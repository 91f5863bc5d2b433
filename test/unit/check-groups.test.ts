import { describe, it, expect } from 'vitest';
import { effectiveConfig, groupAlerts, groupDefaults, runOrder, type GroupConfig } from '../../src/domain/check-groups.js';

const check = {
  activated: true,
  muted: false,
  locations: ['eu-west-1'],
  privateLocations: null as string[] | null,
  runParallel: false,
  retryStrategy: { type: 'FIXED', baseBackoffSeconds: 30 } as Record<string, unknown> | null,
  doubleCheck: false,
  alertSettings: { escalationType: 'RUN_BASED', runBasedEscalation: { failedRunThreshold: 2 } } as Record<string, unknown>,
  useGlobalAlertSettings: false,
  runtimeId: null as string | null,
  environmentVariables: [{ key: 'TOKEN', value: 'check' }],
  request: {
    url: '{{GROUP_BASE_URL}}/health',
    headers: [{ key: 'X-Env', value: 'check' }],
    queryParameters: [],
    assertions: [{ source: 'STATUS_CODE', comparison: 'EQUALS', target: '200' }],
    basicAuth: null,
  } as Record<string, unknown>,
};
const group = (over: Partial<GroupConfig> = {}, version: 1 | 2 = 2): GroupConfig => ({ ...groupDefaults(version), name: 'g', ...over });

describe('the effective check of a group member', () => {
  it('v2 groups leave every setting they do not set to the check', () => {
    const e = effectiveConfig(check, 'API', group(), false);
    expect(e.locations).toEqual(['eu-west-1']);
    expect(e.runParallel).toBe(false);
    expect(e.retryStrategy).toEqual(check.retryStrategy);
    expect(e.alertSettings).toEqual(check.alertSettings);
    expect(e.useGlobalAlertSettings).toBe(false);
  });

  it('v2 groups override locations, parallelism, retries and alerting where they set them', () => {
    const g = group({
      locations: ['us-east-1'],
      privateLocations: ['rack-1'],
      runParallel: true,
      retryStrategy: null,
      doubleCheck: true,
      alertSettings: { escalationType: 'TIME_BASED' },
      useGlobalAlertSettings: false,
    });
    const e = effectiveConfig(check, 'API', g, false);
    expect(e.locations).toEqual(['us-east-1']);
    expect(e.privateLocations).toEqual(['rack-1']);
    expect(e.runParallel).toBe(true);
    expect(e.retryStrategy).toBeNull();
    expect(e.doubleCheck).toBe(true);
    expect(e.alertSettings).toEqual({ escalationType: 'TIME_BASED' });
    expect(e.useGlobalAlertSettings).toBe(false);
  });

  it('v1 groups always override, even with their defaults', () => {
    const e = effectiveConfig(check, 'API', group({}, 1), false);
    expect(e.locations).toEqual([]);
    expect(e.retryStrategy).toBeNull();
    expect(e.doubleCheck).toBe(true);
    expect(e.useGlobalAlertSettings).toBe(true);
    expect(groupAlerts(group({}, 1), false)).toBe(true);
  });

  it("a v2 group's channels alone make its alerting replace the check's (account settings then)", () => {
    expect(groupAlerts(group(), false)).toBe(false);
    expect(groupAlerts(group(), true)).toBe(true);
    expect(effectiveConfig(check, 'API', group(), true).useGlobalAlertSettings).toBe(true);
  });

  it('an inactive group stops its checks; a muted one mutes them; runtime: check, then group', () => {
    expect(effectiveConfig(check, 'API', group({ activated: false }), false).activated).toBe(false);
    expect(effectiveConfig(check, 'API', group({ muted: true }), false).muted).toBe(true);
    expect(effectiveConfig(check, 'API', group({ runtimeId: '2024.09' }), false).runtimeId).toBe('2024.09');
    expect(effectiveConfig({ ...check, runtimeId: '2026.04' }, 'API', group({ runtimeId: '2024.09' }), false).runtimeId).toBe('2026.04');
  });

  it("variables: the group's, then the check's, a check's own key winning; GROUP_BASE_URL from the API defaults", () => {
    const g = group({
      environmentVariables: [
        { key: 'TOKEN', value: 'group' },
        { key: 'REGION', value: 'eu' },
      ],
      apiCheckDefaults: { url: 'http://127.0.0.1:8080/api' },
    });
    const vars = effectiveConfig(check, 'API', g, false).environmentVariables as { key: string; value: string }[];
    expect(vars).toEqual([
      { key: 'GROUP_BASE_URL', value: 'http://127.0.0.1:8080/api' },
      { key: 'REGION', value: 'eu' },
      { key: 'TOKEN', value: 'check' },
    ]);
    // Only API checks take the API defaults.
    expect(
      effectiveConfig({ ...check, environmentVariables: [] }, 'URL', group({ apiCheckDefaults: { url: 'http://x' } }), false)
        .environmentVariables,
    ).toEqual([]);
  });

  it("API checks take the group's headers, query and basic auth where they have none, and its assertions after theirs", () => {
    const g = group({
      apiCheckDefaults: {
        url: '',
        headers: [
          { key: 'x-env', value: 'group' },
          { key: 'X-Team', value: 'sre' },
        ],
        queryParameters: [{ key: 'v', value: '2' }],
        assertions: [{ source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' }],
        basicAuth: { username: 'ops', password: 'pw' },
      },
      localSetupScript: 'request.headers["x-from"] = "group"',
    });
    const e = effectiveConfig(check, 'API', g, false);
    const r = e.request as Record<string, unknown>;
    expect(r.headers).toEqual([
      { key: 'X-Team', value: 'sre' },
      { key: 'X-Env', value: 'check' },
    ]);
    expect(r.queryParameters).toEqual([{ key: 'v', value: '2' }]);
    expect(r.assertions).toEqual([
      ...(check.request.assertions as unknown[]),
      { source: 'RESPONSE_TIME', comparison: 'LESS_THAN', target: '500' },
    ]);
    expect(r.basicAuth).toEqual({ username: 'ops', password: 'pw' });
    expect(e.groupScripts).toMatchObject({ localSetupScript: 'request.headers["x-from"] = "group"', setupSnippetId: null });
    // The stored check is not touched.
    expect(check.request.headers).toEqual([{ key: 'X-Env', value: 'check' }]);
  });

  it('a group run starts members by groupOrder, those without one last, then oldest first', () => {
    const m = (id: string, groupOrder: number | null, createdAt: number) => ({ id, groupOrder, createdAt });
    expect(runOrder([m('a', null, 1), m('b', 2, 5), m('c', 1, 9), m('d', null, 0), m('e', 2, 3)]).map((x) => x.id)).toEqual([
      'c',
      'e',
      'b',
      'd',
      'a',
    ]);
  });
});
