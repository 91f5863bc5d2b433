// Status-page services (op 17), dashboards, and the incidents shown on dashboards (op 9), through
// the API of a real service.

import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { startService, type Service } from '../helpers/procs.js';
import { expectError } from '../helpers/api-error.js';

let svc: Service;
beforeAll(async () => {
  svc = await startService();
});
afterAll(async () => {
  await svc?.stop();
});

describe('status-page services', () => {
  it('are listed by cursor (op 17) or whole, renamed, and kept while a check triggers incidents on them', async () => {
    const made: any[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await svc.api('POST', '/v1/status-pages/services', { name: `service ${i}` });
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        name: `service ${i}`,
        id: expect.any(String),
        accountId: svc.accountId,
        created_at: expect.any(String),
      });
      made.push(res.body);
    }
    const first = (await svc.api('GET', '/v1/status-pages/services?limit=2')).body;
    expect(first).toEqual({ length: 2, entries: made.slice(0, 2), nextId: made[2].id });
    const second = (await svc.api('GET', `/v1/status-pages/services?limit=2&nextId=${first.nextId}`)).body;
    expect(second.entries.map((s: any) => s.name)).toEqual(['service 2', 'service 3']);
    const last = (await svc.api('GET', `/v1/status-pages/services?limit=2&nextId=${second.nextId}`)).body;
    expect(last).toMatchObject({ length: 1, nextId: null });
    expect((await svc.api('GET', '/v1/status-pages/services')).body).toMatchObject({ length: 5, nextId: null });
    expect((await svc.api('GET', '/v1/status-pages/services?paginated=false&limit=1')).body).toMatchObject({ length: 5, nextId: null });
    expectError(await svc.api('GET', '/v1/status-pages/services?limit=101'), 400, /limit/);
    expectError(await svc.api('GET', '/v1/status-pages/services?limit=0'), 400, /limit/);
    expectError(await svc.api('GET', '/v1/status-pages/services?nextId=nope'), 400, /nextId/);

    const renamed = await svc.api('PUT', `/v1/status-pages/services/${made[0].id}`, { name: 'checkout' });
    expect(renamed.body).toMatchObject({ id: made[0].id, name: 'checkout', updated_at: expect.any(String) });
    expectError(await svc.api('POST', '/v1/status-pages/services', {}), 400, /name/);

    // A check's triggerIncident must name a service, which then stays until the check lets go.
    const trigger = (serviceId: string) => ({
      serviceId,
      severity: 'CRITICAL',
      name: 'Checkout down',
      description: 'Investigating',
      notifySubscribers: false,
    });
    expectError(
      await svc.api('POST', '/v1/checks/tcp', {
        name: 'x',
        request: { hostname: '127.0.0.1', port: 9 },
        triggerIncident: trigger('no-such-service'),
      }),
      400,
      /triggerIncident.serviceId names no status-page service/,
    );
    const check = await svc.api('POST', '/v1/checks/tcp', {
      name: 'checkout tcp',
      activated: false,
      request: { hostname: '127.0.0.1', port: 9 },
      triggerIncident: trigger(made[0].id),
    });
    expect(check.status, JSON.stringify(check.body)).toBe(201);
    expectError(await svc.api('DELETE', `/v1/status-pages/services/${made[0].id}`), 409, /triggerIncident of 1 check/);
    expect((await svc.api('DELETE', `/v1/checks/${check.body.id}`)).status).toBe(204);
    expect((await svc.api('DELETE', `/v1/status-pages/services/${made[0].id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/status-pages/services/${made[0].id}`), 404, /not found/);
  });
});

describe('dashboards and their incidents', () => {
  it('dashboards are created with defaults, found by custom URL, kept unique, updated and deleted', async () => {
    const made = await svc.api('POST', '/v1/dashboards', { header: 'Shop status', customUrl: 'shop-status', tags: ['shop'] });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.any(Number),
      dashboardId: expect.any(String),
      header: 'Shop status',
      customUrl: 'shop-status',
      tags: ['shop'],
      width: 'FULL',
      refreshRate: 60,
      checksPerPage: 15,
      isPrivate: false,
      showHeader: true,
      enableIncidents: false,
    });
    const d = made.body;
    expect((await svc.api('GET', `/v1/dashboards/shop-status?type=customUrl`)).body.id).toBe(d.id);
    expect((await svc.api('GET', `/v1/dashboards/${d.dashboardId}`)).body.header).toBe('Shop status');
    expectError(
      await svc.api('POST', '/v1/dashboards', { header: 'copy', customUrl: 'shop-status' }),
      409,
      /customUrl "shop-status" is used/,
    );
    expectError(await svc.api('POST', '/v1/dashboards', { customUrl: 'x' }), 400, /header/);
    expectError(await svc.api('POST', '/v1/dashboards', { header: 'x', checksPerPage: 21 }), 400, /checksPerPage/);
    const put = await svc.api('PUT', `/v1/dashboards/${d.dashboardId}`, { header: 'Shop', isPrivate: true });
    expect(put.body).toMatchObject({ header: 'Shop', isPrivate: true, customUrl: 'shop-status' });
    expect((await svc.api('GET', '/v1/dashboards?limit=100')).body.map((x: any) => x.id)).toContain(d.id);
    expect((await svc.api('DELETE', `/v1/dashboards/${d.dashboardId}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/dashboards/${d.dashboardId}`), 404, /not found/);
  });

  it('an incident (op 9) starts with exactly one update, gathers more in order, and keeps one at least', async () => {
    const dash = (await svc.api('POST', '/v1/dashboards', { header: 'Status' })).body;
    const body = {
      name: 'Checkout errors',
      impact: 'MAJOR',
      dashboardId: dash.id,
      incidentUpdates: [{ status: 'INVESTIGATING', description: 'Payments fail for some users' }],
    };
    expectError(await svc.api('POST', '/v1/incidents', { ...body, incidentUpdates: [] }), 400, /incidentUpdates/);
    expectError(
      await svc.api('POST', '/v1/incidents', { ...body, incidentUpdates: [body.incidentUpdates[0], body.incidentUpdates[0]] }),
      400,
      /incidentUpdates/,
    );
    expectError(await svc.api('POST', '/v1/incidents', { ...body, dashboardId: 999999 }), 404, /Dashboard 999999 not found/);
    expectError(await svc.api('POST', '/v1/incidents', { ...body, impact: 'SEVERE' }), 400, /impact/);

    const made = await svc.api('POST', '/v1/incidents', body);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const inc = made.body;
    expect(inc).toMatchObject({
      id: expect.any(String),
      name: 'Checkout errors',
      impact: 'MAJOR',
      dashboardId: dash.id,
      startedAt: expect.any(String),
      stoppedAt: null,
    });
    expect(inc.incidentUpdates).toEqual([
      {
        id: expect.any(String),
        status: 'INVESTIGATING',
        description: 'Payments fail for some users',
        incidentId: inc.id,
        created_at: expect.any(String),
        updated_at: null,
      },
    ]);
    const minor = await svc.api('POST', '/v1/incidents', { ...body, impact: undefined });
    expect(minor.body.impact).toBe('MINOR');

    const resolved = await svc.api('POST', `/v1/incidents/${inc.id}/updates`, { status: 'RESOLVED', description: 'Fixed' });
    expect(resolved.status).toBe(201);
    expect(resolved.body).toMatchObject({ status: 'RESOLVED', incidentId: inc.id });
    // The latest update only, unless all are asked for.
    expect((await svc.api('GET', `/v1/incidents/${inc.id}`)).body.incidentUpdates.map((u: any) => u.status)).toEqual(['RESOLVED']);
    const all = (await svc.api('GET', `/v1/incidents/${inc.id}?includeAllIncidentUpdates=true`)).body.incidentUpdates;
    expect(all.map((u: any) => u.status)).toEqual(['INVESTIGATING', 'RESOLVED']);

    const edited = await svc.api('PUT', `/v1/incidents/${inc.id}/updates/${all[0].id}`, { description: 'Payments failed' });
    expect(edited.body).toMatchObject({ description: 'Payments failed', updated_at: expect.any(String) });
    const stopped = await svc.api('PUT', `/v1/incidents/${inc.id}`, {
      name: 'Checkout errors',
      impact: 'MINOR',
      stoppedAt: '2030-01-01T00:00:00.000Z',
    });
    expect(stopped.body).toMatchObject({ impact: 'MINOR', stoppedAt: '2030-01-01T00:00:00.000Z', startedAt: inc.startedAt });

    expect((await svc.api('DELETE', `/v1/incidents/${inc.id}/updates/${all[0].id}`)).status).toBe(204);
    expectError(await svc.api('DELETE', `/v1/incidents/${inc.id}/updates/${all[1].id}`), 409, /at least one update/);
    expect((await svc.api('DELETE', `/v1/incidents/${inc.id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/incidents/${inc.id}`), 404, /Incident .* not found/);
  });
});

describe('status-page incidents', () => {
  it('open on services with one update, change by PUT or PATCH, gather a timeline, and say how long they lasted', async () => {
    const api = (await svc.api('POST', '/v1/status-pages/services', { name: 'API' })).body;
    const web = (await svc.api('POST', '/v1/status-pages/services', { name: 'Web' })).body;
    const body = {
      name: 'Elevated errors',
      severity: 'MAJOR',
      services: [{ id: api.id }],
      incidentUpdates: [{ description: 'Looking into it', notifySubscribers: false }],
    };
    expectError(await svc.api('POST', '/v1/status-pages/incidents', { ...body, services: [] }), 400, /services/);
    expectError(
      await svc.api('POST', '/v1/status-pages/incidents', { ...body, services: [{ id: 'nope' }] }),
      400,
      /no status-page service/,
    );
    expectError(await svc.api('POST', '/v1/status-pages/incidents', { ...body, incidentUpdates: [] }), 400, /incidentUpdates/);
    expectError(await svc.api('POST', '/v1/status-pages/incidents', { ...body, severity: 'LOW' }), 400, /severity/);

    const made = await svc.api('POST', '/v1/status-pages/incidents', body);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const inc = made.body;
    expect(inc).toMatchObject({
      name: 'Elevated errors',
      severity: 'MAJOR',
      services: [{ id: api.id, name: 'API' }],
      lastUpdateStatus: 'INVESTIGATING',
      duration: expect.any(Number),
      incidentUpdates: [{ description: 'Looking into it', status: 'INVESTIGATING', notifySubscribers: false }],
    });

    const patched = await svc.api('PATCH', `/v1/status-pages/incidents/${inc.id}`, { severity: 'CRITICAL' });
    expect(patched.body).toMatchObject({ name: 'Elevated errors', severity: 'CRITICAL', services: [{ id: api.id }] });
    const put = await svc.api('PUT', `/v1/status-pages/incidents/${inc.id}`, {
      name: 'Errors',
      severity: 'MINOR',
      services: [{ id: api.id }, { id: web.id }],
    });
    expect(put.body.services.map((s: any) => s.name)).toEqual(['API', 'Web']);
    expectError(await svc.api('PUT', `/v1/status-pages/incidents/${inc.id}`, { severity: 'MINOR' }), 400, /name/);

    const start = Date.parse(inc.incidentUpdates[0].publicIncidentUpdateDate);
    const resolvedAt = new Date(start + 90_000).toISOString();
    const resolved = await svc.api('POST', `/v1/status-pages/incidents/${inc.id}/incident-updates`, {
      description: 'Fixed',
      status: 'RESOLVED',
      publicIncidentUpdateDate: resolvedAt,
    });
    expect(resolved.status, JSON.stringify(resolved.body)).toBe(200);
    const after = (await svc.api('GET', `/v1/status-pages/incidents/${inc.id}`)).body;
    expect(after).toMatchObject({ lastUpdateStatus: 'RESOLVED', duration: 90 });
    expect((await svc.api('GET', `/v1/status-pages/incidents/${inc.id}/incident-updates`)).body.map((u: any) => u.status)).toEqual([
      'INVESTIGATING',
      'RESOLVED',
    ]);
    const edited = await svc.api('PUT', `/v1/status-pages/incidents/${inc.id}/incident-updates/${resolved.body.id}`, {
      description: 'Fixed for all',
    });
    expect(edited.body).toMatchObject({ description: 'Fixed for all', status: 'RESOLVED' });

    const list = (await svc.api('GET', '/v1/status-pages/incidents?limit=1')).body;
    expect(list).toMatchObject({ length: 1 });
    expect((await svc.api('DELETE', `/v1/status-pages/incidents/${inc.id}/incident-updates/${resolved.body.id}`)).status).toBe(204);
    expect((await svc.api('DELETE', `/v1/status-pages/incidents/${inc.id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/status-pages/incidents/${inc.id}`), 404, /not found/);
  });
});

describe('status pages', () => {
  it('show cards of services, keep url and domain unique, keep card ids across a PUT, and hold on to their services', async () => {
    const api = (await svc.api('POST', '/v1/status-pages/services', { name: 'Public API' })).body;
    const web = (await svc.api('POST', '/v1/status-pages/services', { name: 'Website' })).body;
    const body = {
      name: 'Acme status',
      url: 'acme',
      customDomain: 'status.acme.test',
      themeColors: { light: { primary: '#0A84FF' }, dark: { primary: '#111' } },
      cards: [{ name: 'Core', services: [{ id: api.id }, { id: web.id }] }],
    };
    const made = await svc.api('POST', '/v1/status-pages', body);
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    expect(made.body).toMatchObject({
      id: expect.any(String),
      name: 'Acme status',
      url: 'acme',
      customDomain: 'status.acme.test',
      defaultTheme: 'AUTO',
      isPrivate: false,
      cards: [
        {
          id: expect.any(String),
          name: 'Core',
          services: [
            { id: api.id, name: 'Public API' },
            { id: web.id, name: 'Website' },
          ],
        },
      ],
    });
    const page = made.body;
    expectError(await svc.api('POST', '/v1/status-pages', { ...body, customDomain: null }), 409, /url "acme" is used/);
    expectError(await svc.api('POST', '/v1/status-pages', { ...body, url: 'other' }), 409, /customDomain "status.acme.test" is used/);
    expectError(await svc.api('POST', '/v1/status-pages', { ...body, url: 'Not A Slug' }), 400, /url/);
    expectError(
      await svc.api('POST', '/v1/status-pages', { ...body, url: 'x1', customDomain: null, themeColors: { light: { primary: 'blue' } } }),
      400,
      /themeColors/,
    );
    expectError(
      await svc.api('POST', '/v1/status-pages', {
        ...body,
        url: 'x2',
        customDomain: null,
        cards: [{ name: 'c', services: [{ id: 'nope' }] }],
      }),
      400,
      /no status-page service/,
    );

    const put = await svc.api('PUT', `/v1/status-pages/${page.id}`, {
      ...body,
      name: 'Acme',
      cards: [
        { id: page.cards[0].id, name: 'Core', services: [{ id: api.id }] },
        { name: 'Web', services: [{ id: web.id }] },
      ],
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);
    expect(put.body.cards.map((c: any) => [c.name, c.services.length])).toEqual([
      ['Core', 1],
      ['Web', 1],
    ]);
    expect(put.body.cards[0].id).toBe(page.cards[0].id);
    expectError(await svc.api('DELETE', `/v1/status-pages/services/${web.id}`), 409, /shown on 1 status page/);

    const list = (await svc.api('GET', '/v1/status-pages?limit=1')).body;
    expect(list).toMatchObject({ length: 1, entries: [{ id: page.id }] });
    expect((await svc.api('DELETE', `/v1/status-pages/${page.id}`)).status).toBe(204);
    expectError(await svc.api('GET', `/v1/status-pages/${page.id}`), 404, /Status page .* not found/);
    expect((await svc.api('DELETE', `/v1/status-pages/services/${web.id}`)).status).toBe(204);
  });
});
