// The create and update routes every check type has, built from its declaration (its path,
// frequencies, response-time limits, request schema, own fields and rules) in
// src/domain/check-types/.

import { insertCheck, showCheck, subscriptionsToSave, updateCheck } from '../check-alerting.js';
import type { Subscription } from '../store/alert-channels.js';
import type { FastifyPluginAsync } from 'fastify';
import {
  type CheckBody,
  commonCheckProperties,
  autoAssignQuery,
  idParams,
  newCheckConfig,
  mergeCheckConfig,
  assertValidCheck,
} from './check-fields.js';
import type { CheckConfig } from '../store/checks.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import { runtimeViolation } from '../../domain/runtimes.js';
import { resolveVariables, type CheckVariable } from '../../domain/check-variables.js';
import { CHECK_TYPES, type CheckTypeDeclaration, type DeclaredCheckType } from '../../domain/check-types/index.js';
import { Type } from '@sinclair/typebox';

export function checkTypeRoutes(checkType: DeclaredCheckType): FastifyPluginAsync<Deps> {
  const spec: CheckTypeDeclaration = CHECK_TYPES[checkType];
  const responseTime = { anyOf: [{ type: 'number', minimum: 0, maximum: spec.responseTimeMax }, { type: 'null' }] };
  const properties = {
    ...commonCheckProperties,
    ...spec.fields,
    checkType: { type: 'string', enum: [checkType] },
    frequency: { type: 'integer', enum: [...spec.frequencies] },
    degradedResponseTime: responseTime,
    maxResponseTime: responseTime,
  };
  const request = spec.request;
  // Types without a request (browser checks) keep none, rather than an empty one.
  const normalise = (r: Record<string, unknown> | undefined) => (spec.normaliseRequest ? spec.normaliseRequest(r ?? {}) : undefined);
  const createSchema = {
    querystring: autoAssignQuery,
    body: {
      type: 'object',
      required: ['name', ...(request ? ['request'] : []), ...(spec.required ?? [])],
      properties: { ...properties, ...(request ? { request } : {}) },
    },
  };
  const updateSchema = {
    params: idParams,
    querystring: autoAssignQuery,
    body: { type: 'object', properties: { ...properties, ...(request ? { request: Type.Partial(request) } : {}) } },
  };
  const known = new Set(Object.keys(updateSchema.body.properties));
  const checkRuntime = (deps: Deps, cfg: CheckConfig, stored: CheckConfig | null) => {
    if (!cfg.runtimeId) return;
    const why = runtimeViolation(deps.runtimes, cfg.runtimeId, {
      isNew: !stored,
      changed: !stored || stored.runtimeId !== cfg.runtimeId,
      checkType,
    });
    if (why) throw new ApiError(400, why, { field: 'runtimeId', rule: 'runtime' });
  };

  const keepSecrets = (cfg: CheckConfig, stored: CheckConfig | null) => {
    if (!cfg.environmentVariables) return;
    const { vars, missing } = resolveVariables(
      cfg.environmentVariables as CheckVariable[],
      stored?.environmentVariables as CheckVariable[],
    );
    if (missing !== undefined)
      throw new ApiError(400, `environmentVariables: ${missing} needs a value (null keeps the stored value of a secret only)`, {
        field: 'environmentVariables',
        rule: 'value',
      });
    cfg.environmentVariables = vars;
  };

  const checkRules = (deps: Deps, cfg: CheckConfig, accountId: string) => {
    const v = spec.validate?.(cfg, { snippetExists: (id) => deps.snippets.script(accountId, id) !== null });
    if (v) throw new ApiError(400, v.message, { field: v.field, rule: v.rule });
  };

  return async (app, deps) => {
    app.post<{ Body: CheckBody; Querystring: { autoAssignAlerts: boolean } }>(
      `/v1/checks/${spec.path}`,
      { schema: createSchema },
      async (req, reply) => {
        const cfg = newCheckConfig(req.body, {
          frequency: 10,
          degradedResponseTime: spec.degradedDefault,
          maxResponseTime: spec.maxDefault,
        });
        cfg.request = normalise(req.body.request);
        for (const k of Object.keys(spec.fields ?? {})) cfg[k] = req.body[k] ?? spec.fieldDefaults?.[k] ?? null;
        checkRuntime(deps, cfg, null);
        keepSecrets(cfg, null);
        checkRules(deps, cfg, req.accountId);
        const slugs = await assertValidCheck(deps, req.accountId, cfg);
        const subs = await subscriptionsToSave(
          deps.store,
          req.accountId,
          req.body.alertChannelSubscriptions as Subscription[] | undefined,
          {
            create: true,
            autoAssign: req.query.autoAssignAlerts,
          },
        );
        const row = await insertCheck(deps.store, { accountId: req.accountId, checkType, config: cfg }, subs);
        await deps.scheduler.upsert(row, slugs);
        return reply.code(201).send(await showCheck(deps.store, row, undefined, subs));
      },
    );

    app.put<{ Params: { id: string }; Body: CheckBody }>(`/v1/checks/${spec.path}/:id`, { schema: updateSchema }, async (req) => {
      const stored = await deps.store.checks.get(req.params.id, req.accountId);
      if (!stored) throw notFound('Check', req.params.id);
      if (stored.check_type !== checkType) {
        throw new ApiError(400, `Check ${stored.id} is a ${stored.check_type} check, not ${checkType}`, {
          field: 'checkType',
          rule: 'matches',
        });
      }
      const cfg = mergeCheckConfig(stored.config, req.body, known);
      cfg.request = normalise(cfg.request);
      checkRuntime(deps, cfg, stored.config);
      keepSecrets(cfg, stored.config);
      checkRules(deps, cfg, req.accountId);
      const slugs = await assertValidCheck(deps, req.accountId, cfg);
      const subs = await subscriptionsToSave(deps.store, req.accountId, req.body.alertChannelSubscriptions as Subscription[] | undefined, {
        create: false,
        autoAssign: false,
      });
      const row = await updateCheck(deps.store, stored.id, req.accountId, cfg, subs);
      await deps.scheduler.upsert(row, slugs);
      return showCheck(deps.store, row);
    });
  };
}
