// Status badges for checks and groups: public SVGs (a README cannot send an API key), saying
// only a name and a state (and, if asked, the last response time): no URLs, no error text.

import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { BADGE_STYLES, BADGE_THEMES, badgeSvg, stateOf, worstState, type BadgeStyle, type BadgeTheme } from '../../domain/badge.js';
import type { Deps } from '../deps.js';
import { notFound } from '../errors.js';

const query = {
  type: 'object',
  properties: {
    style: { type: 'string', enum: [...BADGE_STYLES], default: 'flat' },
    theme: { type: 'string', enum: [...BADGE_THEMES], default: 'default' },
    responseTime: { type: 'boolean', default: false },
  },
};
type Query = { style: BadgeStyle; theme: BadgeTheme; responseTime: boolean };

function send(reply: FastifyReply, svg: string) {
  // Embedders fetch it through image proxies that cache: say it changes.
  return reply.header('content-type', 'image/svg+xml; charset=utf-8').header('cache-control', 'no-cache, max-age=0').send(svg);
}

const plugin: FastifyPluginAsync<Deps> = async (app, deps) => {
  app.get<{ Params: { checkId: string }; Querystring: Query }>(
    '/v1/badges/checks/:checkId',
    {
      schema: {
        params: { type: 'object', required: ['checkId'], properties: { checkId: { type: 'string', format: 'uuid' } } },
        querystring: query,
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const row = await deps.store.checks.getAny(req.params.checkId);
      if (!row) throw notFound('Check', req.params.checkId);
      const check = deps.groups.effective(row);
      const status = await deps.store.statuses.get(row.account_id, row.id);
      const latest = req.query.responseTime ? await deps.store.results.latestOf(row.id) : null;
      return send(
        reply,
        badgeSvg({
          label: row.name,
          state: stateOf({
            activated: check.activated,
            status: status && { hasFailures: status.has_failures, isDegraded: status.is_degraded },
          }),
          detail: latest ? `${Math.round(latest.response_time)} ms` : undefined,
          style: req.query.style,
          theme: req.query.theme,
        }),
      );
    },
  );

  app.get<{ Params: { groupId: number }; Querystring: Query }>(
    '/v1/badges/groups/:groupId',
    {
      schema: {
        params: { type: 'object', required: ['groupId'], properties: { groupId: { type: 'integer', minimum: 1, maximum: 2147483647 } } },
        querystring: query,
      },
      config: { auth: 'public' },
    },
    async (req, reply) => {
      const group = await deps.store.checkGroups.getAny(req.params.groupId);
      if (!group) throw notFound('Check group', req.params.groupId);
      const members = await deps.store.checkGroups.members(group.account_id, Number(group.id));
      const statuses = new Map((await deps.store.statuses.list(group.account_id)).map((s) => [s.check_id, s]));
      const states = members.map((m) => {
        const s = statuses.get(m.id);
        return stateOf({
          activated: deps.groups.effective(m).activated,
          status: s ? { hasFailures: s.has_failures, isDegraded: s.is_degraded } : null,
        });
      });
      return send(reply, badgeSvg({ label: group.name, state: worstState(states), style: req.query.style, theme: req.query.theme }));
    },
  );
};

export default plugin;
