// Served pages: each status page at /status/<slug> and each dashboard at /dashboards/<slug>, and
// either on its custom domain (by the Host header) at /. Public pages need nothing; a private one
// opens to the owner's API key (Authorization header) or to a page key its owner shares, typed
// into the page's form once and kept in an HttpOnly cookie — never in the URL.

import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';
import type { Deps } from '../deps.js';
import { ApiError, countingFailures, errorBody, tooManyFailures } from '../errors.js';
import type { PageKind } from '../store/page-keys.js';
import { accessFormHtml, documentHtml, escapeHtml, type Theme } from '../pages/html.js';
import { renderStatusPage } from '../pages/status-page.js';
import { renderDashboard } from '../pages/dashboard.js';
import type { StatusPageRow } from '../store/status-pages.js';
import type { DashboardRow } from '../store/dashboards.js';

const gzipAsync = promisify(gzip);
const COOKIE = 'outpost_page_key';
const COOKIE_MAX_AGE_S = 30 * 86_400;
// No scripts at all; images from anywhere the owner links a logo; forms only back to us.
const CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; font-src https: data:; form-action 'self'; base-uri 'none'";

interface Served {
  kind: PageKind;
  pageId: string;
  accountId: string;
  isPrivate: boolean;
  /** Where the page lives on this host: the cookie's path and the form's target. */
  path: string;
  title: string;
  render(theme: Theme | null, now: number): Promise<string>;
}

const slug = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9-]+$' };
const params = { type: 'object', required: ['slug'], properties: { slug } };
const query = { type: 'object', properties: { theme: { type: 'string', enum: ['light', 'dark', 'auto'] } } };
const accessBody = { type: 'object', required: ['key'], properties: { key: { type: 'string', minLength: 1, maxLength: 200 } } };

const statusPage = (deps: Deps, row: StatusPageRow, path: string): Served => ({
  kind: 'status-page',
  pageId: row.id,
  accountId: row.account_id,
  isPrivate: row.config.isPrivate === true,
  path,
  title: `${row.config.name} status`,
  render: (theme, now) => renderStatusPage(deps, row, theme, now),
});
const dashboard = (deps: Deps, row: DashboardRow, path: string): Served => ({
  kind: 'dashboard',
  pageId: String(row.id),
  accountId: row.account_id,
  isPrivate: row.config.isPrivate === true,
  path,
  title: String(row.config.header),
  render: (theme, now) => renderDashboard(deps, row, theme, now),
});

function cookieOf(req: FastifyRequest): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=');
    if (name === COOKIE) return decodeURIComponent(value.join('='));
  }
  return null;
}

const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? '').includes('text/html');

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  // The access form posts as browsers do; only these routes take that encoding.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_req, body, done) =>
    done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  async function send(req: FastifyRequest, reply: FastifyReply, status: number, html: string, isPrivate: boolean) {
    reply
      .code(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('content-security-policy', CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'same-origin')
      .header('cache-control', isPrivate ? 'private, no-store' : 'no-cache')
      .header('vary', 'accept-encoding, cookie, authorization');
    if (html.length > 2048 && /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? '')))
      return reply.header('content-encoding', 'gzip').send(await gzipAsync(html));
    return reply.send(html);
  }

  /** A refusal as the visitor can read it: a page for browsers, the API's error body for the rest. */
  function refuse(req: FastifyRequest, reply: FastifyReply, status: number, message: string, page: Served | null, failed = false) {
    if (!wantsHtml(req)) return reply.code(status).send(errorBody(status, message));
    const body = status === 401 && page ? accessFormHtml(`${page.path === '/' ? '' : page.path}/access`, failed) : `<h2>${message}</h2>`;
    return send(
      req,
      reply,
      status,
      documentHtml({ title: page?.title ?? 'Not found', heading: page?.title ?? 'Outpost', theme: 'auto', noindex: true, body }),
      true,
    );
  }

  /** Whether the request may read the page: public, or a key that opens it. */
  async function admitted(req: FastifyRequest, page: Served): Promise<boolean> {
    if (!page.isPrivate) return true;
    const bearer = /^Bearer\s+(\S+)$/i.exec(req.headers.authorization ?? '')?.[1];
    const cookie = cookieOf(req);
    if (!bearer && !cookie) return false;
    // Wrong keys count toward the address's failures, as wrong API keys do.
    return countingFailures(deps.authFailures, req.ip, async () => {
      if (
        bearer &&
        ((await deps.store.accounts.byKey(bearer)) === page.accountId || (await deps.store.pageKeys.opens(page.kind, page.pageId, bearer)))
      )
        return true;
      if (cookie && (await deps.store.pageKeys.opens(page.kind, page.pageId, cookie))) return true;
      throw new ApiError(401, 'The key does not open this page');
    });
  }

  async function show(req: FastifyRequest<{ Querystring: { theme?: Theme } }>, reply: FastifyReply, page: Served | null) {
    if (!page) return refuse(req, reply, 404, 'No page here', null);
    try {
      if (!(await admitted(req, page)))
        return refuse(req, reply, 401, 'This page is private: send the owner’s API key or a page key', page);
    } catch (err) {
      if (err instanceof ApiError && err.statusCode === 401) return refuse(req, reply, 401, err.message, page, true);
      throw err;
    }
    return send(req, reply, 200, await page.render(req.query.theme ?? null, Date.now()), page.isPrivate);
  }

  async function access(req: FastifyRequest<{ Body: { key: string } }>, reply: FastifyReply, page: Served | null) {
    if (!page) return refuse(req, reply, 404, 'No page here', null);
    const wait = deps.authFailures.retryAfter(req.ip);
    if (wait > 0) throw tooManyFailures(wait);
    // Only a page key: an API key opens more than a page and is not for keeping in a browser.
    const key = req.body.key.trim();
    if (!(await deps.store.pageKeys.opens(page.kind, page.pageId, key))) {
      deps.authFailures.failed(req.ip);
      return refuse(req, reply, 401, 'The key does not open this page', page, true);
    }
    const secure = req.protocol === 'https' || req.headers['x-forwarded-proto'] === 'https' ? '; Secure' : '';
    return reply
      .code(303)
      .header(
        'set-cookie',
        `${COOKIE}=${encodeURIComponent(key)}; Path=${page.path}; Max-Age=${COOKIE_MAX_AGE_S}; HttpOnly; SameSite=Lax${secure}`,
      )
      .header('location', page.path)
      .send();
  }

  const byHost = async (req: FastifyRequest): Promise<Served | null> => {
    const host = String(req.headers.host ?? '')
      .replace(/:\d+$/, '')
      .toLowerCase();
    if (!host) return null;
    const sp = await deps.store.statusPages.byDomain(host);
    if (sp) return statusPage(deps, sp, '/');
    const d = await deps.store.dashboards.byDomain(host);
    return d ? dashboard(deps, d, '/') : null;
  };
  const bySlug = {
    status: async (s: string) => {
      const row = await deps.store.statusPages.bySlug(s);
      return row ? statusPage(deps, row, `/status/${s}`) : null;
    },
    dashboards: async (s: string) => {
      const row = await deps.store.dashboards.bySlug(s);
      return row ? dashboard(deps, row, `/dashboards/${s}`) : null;
    },
  };

  const pub = { auth: 'public' as const };
  for (const prefix of ['status', 'dashboards'] as const) {
    app.get<{ Params: { slug: string }; Querystring: { theme?: Theme } }>(
      `/${prefix}/:slug`,
      { schema: { params, querystring: query }, config: pub },
      async (req, reply) => show(req, reply, await bySlug[prefix](req.params.slug)),
    );
    app.post<{ Params: { slug: string }; Body: { key: string } }>(
      `/${prefix}/:slug/access`,
      { schema: { params, body: accessBody }, config: pub },
      async (req, reply) => access(req, reply, await bySlug[prefix](req.params.slug)),
    );
  }
  // A subscriber's links (from their emails): a page with a button, since mail scanners open
  // links; the button's POST confirms or unsubscribes.
  const subscriptionParams = {
    type: 'object',
    required: ['id', 'action'],
    properties: { id: { type: 'string', maxLength: 100 }, action: { type: 'string', enum: ['confirm', 'unsubscribe'] } },
  };
  const token = { type: 'string', minLength: 1, maxLength: 200 };
  const ACTIONS = {
    confirm: { ask: 'Confirm your subscription', button: 'Confirm', done: 'Subscribed: you will get an email when an incident is posted.' },
    unsubscribe: { ask: 'Unsubscribe', button: 'Unsubscribe', done: 'Unsubscribed: no more emails will be sent to you.' },
  } as const;
  const subscriptionPage = (req: FastifyRequest, reply: FastifyReply, status: number, body: string) =>
    send(
      req,
      reply,
      status,
      documentHtml({ title: 'Status updates', heading: 'Status updates', theme: 'auto', noindex: true, body }),
      true,
    );
  app.get<{ Params: { id: string; action: 'confirm' | 'unsubscribe' }; Querystring: { token: string } }>(
    '/subscriptions/:id/:action',
    { schema: { params: subscriptionParams, querystring: { type: 'object', required: ['token'], properties: { token } } }, config: pub },
    async (req, reply) => {
      const s = await deps.store.subscriptions.byToken(req.params.id, req.query.token);
      if (!s) return subscriptionPage(req, reply, 404, '<h2>This link is not valid (any more)</h2>');
      const a = ACTIONS[req.params.action];
      return subscriptionPage(
        req,
        reply,
        200,
        `<h2>${a.ask}</h2><p>For ${escapeHtml(s.address)}.</p><form class="access" method="post">` +
          `<input type="hidden" name="token" value="${escapeHtml(req.query.token)}"><button type="submit">${a.button}</button></form>`,
      );
    },
  );
  app.post<{ Params: { id: string; action: 'confirm' | 'unsubscribe' }; Body: { token: string } }>(
    '/subscriptions/:id/:action',
    { schema: { params: subscriptionParams, body: { type: 'object', required: ['token'], properties: { token } } }, config: pub },
    async (req, reply) => {
      const s = await deps.store.subscriptions.byToken(req.params.id, req.body.token);
      if (!s) return subscriptionPage(req, reply, 404, '<h2>This link is not valid (any more)</h2>');
      if (req.params.action === 'confirm') await deps.store.subscriptions.verify(s.id);
      else await deps.store.subscriptions.delete(s.status_page_id, s.id);
      return subscriptionPage(req, reply, 200, `<h2 role="status">${ACTIONS[req.params.action].done}</h2>`);
    },
  );

  app.get<{ Querystring: { theme?: Theme } }>('/', { schema: { querystring: query }, config: pub }, async (req, reply) =>
    show(req, reply, await byHost(req)),
  );
  app.post<{ Body: { key: string } }>('/access', { schema: { body: accessBody }, config: pub }, async (req, reply) =>
    access(req, reply, await byHost(req)),
  );
};

export default plugin;
