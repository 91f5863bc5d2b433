// The create and update routes every check type has, built from a declaration of what differs:
// its path, frequencies, response-time limits and request schema. A new check type is one
// small file that calls this.

import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import {
  type CheckBody,
  commonCheckProperties,
  autoAssignQuery,
  idParams,
  newCheckConfig,
  mergeCheckConfig,
  assertValidCheck,
} from './check-fields.js';
import { toApi, type CheckConfig } from '../store/checks.js';
import { ApiError, notFound } from '../errors.js';
import type { Deps } from '../deps.js';
import { runtimeViolation } from '../../domain/runtimes.js';
import { CHECK_TYPE_DECLARATIONS, type DeclaredCheckType } from '../../domain/check-types.js';

export interface CheckTypeSpec {
  /** Its path segment (/v1/checks/<path>) comes from its declaration. */
  checkType: DeclaredCheckType;
  frequencies: readonly number[];
  responseTimeMax: number;
  degradedDefault: number | null;
  maxDefault: number | null;
  /** Properties of `request`, and those required on create (types without a request: none). */
  requestProperties?: Record<string, object>;
  requestRequired?: string[];
  /** Fills the request's defaults; runs on create and after every update. */
  normaliseRequest?(request: Record<string, unknown>): Record<string, unknown>;
  /** Top-level fields required on create besides name (and request, where there is one). */
  required?: string[];
  /** Top-level fields only this type has, with their defaults. */
  extraProperties?: Record<string, object>;
  extraDefaults?: Record<string, unknown>;
  /** Rules of this type beyond its schema; throws an ApiError. */
  validate?(config: CheckConfig, deps: Deps, accountId: string): void | Promise<void>;
}

export function checkTypeRoutes(spec: CheckTypeSpec): FastifyPluginAsync<Deps> {
  const { path } = CHECK_TYPE_DECLARATIONS[spec.checkType];
  const responseTime = { anyOf: [{ type: 'number', minimum: 0, maximum: spec.responseTimeMax }, { type: 'null' }] };
  const properties = {
    ...commonCheckProperties,
    ...spec.extraProperties,
    checkType: { type: 'string', enum: [spec.checkType] },
    frequency: { type: 'integer', enum: [...spec.frequencies] },
    degradedResponseTime: responseTime,
    maxResponseTime: responseTime,
  };
  const hasRequest = !!spec.requestProperties;
  const request = (required: string[]) => (hasRequest ? { request: { type: 'object', required, properties: spec.requestProperties } } : {});
  // Types without a request (browser checks) keep none, rather than an empty one.
  const normalise = (r: Record<string, unknown> | undefined) =>
    spec.normaliseRequest ? spec.normaliseRequest(r ?? {}) : (undefined as unknown as Record<string, unknown>);
  const createSchema = {
    querystring: autoAssignQuery,
    body: {
      type: 'object',
      required: ['name', ...(hasRequest ? ['request'] : []), ...(spec.required ?? [])],
      properties: { ...properties, ...request(spec.requestRequired ?? []) },
    },
  };
  const updateSchema = {
    params: idParams,
    querystring: autoAssignQuery,
    body: { type: 'object', properties: { ...properties, ...request([]) } },
  };
  const checkRuntime = (deps: Deps, cfg: CheckConfig, stored: CheckConfig | null) => {
    if (!cfg.runtimeId) return;
    const why = runtimeViolation(deps.runtimes, cfg.runtimeId, {
      isNew: !stored,
      changed: !stored || stored.runtimeId !== cfg.runtimeId,
      checkType: spec.checkType,
    });
    if (why) throw new ApiError(400, why, { field: 'runtimeId', rule: 'runtime' });
  };

  return async (app, deps) => {
    app.post<{ Body: CheckBody }>(`/v1/checks/${path}`, { schema: createSchema }, async (req, reply) => {
      const cfg = newCheckConfig(req.body, { frequency: 10, degradedResponseTime: spec.degradedDefault, maxResponseTime: spec.maxDefault });
      cfg.request = normalise(req.body.request);
      for (const k of Object.keys(spec.extraProperties ?? {})) cfg[k] = req.body[k] ?? spec.extraDefaults?.[k] ?? null;
      checkRuntime(deps, cfg, null);
      await spec.validate?.(cfg, deps, req.accountId);
      await assertValidCheck(deps.store.privateLocations, req.accountId, cfg);
      const row = await deps.store.checks.insert({
        id: randomUUID(),
        account_id: req.accountId,
        check_type: spec.checkType,
        name: cfg.name,
        activated: cfg.activated,
        config: cfg,
      });
      await deps.scheduler.upsert(row);
      return reply.code(201).send(toApi(row));
    });

    app.put<{ Params: { id: string }; Body: CheckBody }>(`/v1/checks/${path}/:id`, { schema: updateSchema }, async (req) => {
      const stored = await deps.store.checks.get(req.params.id, req.accountId);
      if (!stored) throw notFound('Check', req.params.id);
      if (stored.check_type !== spec.checkType) {
        throw new ApiError(400, `Check ${stored.id} is a ${stored.check_type} check, not ${spec.checkType}`, {
          field: 'checkType',
          rule: 'matches',
        });
      }
      const cfg = mergeCheckConfig(stored.config, req.body);
      cfg.request = normalise(cfg.request);
      checkRuntime(deps, cfg, stored.config);
      await spec.validate?.(cfg, deps, req.accountId);
      await assertValidCheck(deps.store.privateLocations, req.accountId, cfg);
      const row = (await deps.store.checks.update(stored.id, req.accountId, cfg))!;
      await deps.scheduler.upsert(row);
      return toApi(row);
    });
  };
}
