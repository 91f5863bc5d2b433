// A check's side of alerting: the subscriptions its create and update bodies set (or that
// autoAssignAlerts gives it), and the `alertChannelSubscriptions` and `alertChannels` it shows.

import { alertChannelsOf } from '../domain/alert-channels.js';
import { ApiError } from './errors.js';
import { newOrderedId } from './secrets.js';
import type { Repositories } from './store/index.js';
import type { Subscription, SubscriptionWithChannel } from './store/alert-channels.js';
import { toApi, type CheckConfig, type CheckRow } from './store/checks.js';
import type { CheckGroups } from './check-groups.js';

export interface CheckAlerting {
  alertChannelSubscriptions: Subscription[];
  alertChannels: ReturnType<typeof alertChannelsOf>;
}

const NONE: CheckAlerting = { alertChannelSubscriptions: [], alertChannels: alertChannelsOf([]) };

/** What each check shows of its subscriptions. */
export async function alertingOf(store: Repositories, checkIds: string[]): Promise<Map<string, CheckAlerting>> {
  const rows = await store.alertChannels.ofChecks(checkIds);
  const out = new Map<string, CheckAlerting>(checkIds.map((id) => [id, NONE]));
  for (const id of checkIds) {
    const mine = rows.filter((r) => r.check_id === id);
    if (mine.length) out.set(id, alertingFrom(mine));
  }
  return out;
}

function alertingFrom(subs: SubscriptionWithChannel[]): CheckAlerting {
  return {
    alertChannelSubscriptions: subs.map((r) => ({ alertChannelId: Number(r.channel_id), activated: Boolean(r.activated) })),
    alertChannels: alertChannelsOf(subs.map((r) => ({ type: r.type, config: r.config, activated: Boolean(r.activated) }))),
  };
}

/**
 * Refuses subscriptions to channels the account does not have (400), before anything is
 * written. Returns what to store: the body's list when it has one; on create without one and
 * with autoAssignAlerts (the default), every channel of the account; else nothing to change.
 */
export async function subscriptionsToSave(
  store: Repositories,
  accountId: string,
  sent: Subscription[] | undefined,
  o: { create: boolean; autoAssign: boolean },
): Promise<Subscription[] | null> {
  if (sent) {
    const known = await store.alertChannels.existing(
      accountId,
      sent.map((s) => s.alertChannelId),
    );
    const unknown = sent.find((s) => !known.has(s.alertChannelId));
    if (unknown)
      throw new ApiError(400, `alertChannelSubscriptions: there is no alert channel with id ${unknown.alertChannelId}`, {
        field: 'alertChannelSubscriptions',
        rule: 'exists',
      });
    return sent;
  }
  if (o.create && o.autoAssign) return (await store.alertChannels.allIds(accountId)).map((id) => ({ alertChannelId: id, activated: true }));
  return null;
}

/**
 * Saves a new check and its subscriptions in one transaction (`first` runs in it before, to
 * refuse what depends on the database, such as a ping token in use).
 */
export function insertCheck(
  store: Repositories,
  check: { accountId: string; checkType: string; config: CheckConfig },
  subs: Subscription[] | null,
  first?: (tx: Repositories) => Promise<void>,
): Promise<CheckRow> {
  const row = {
    id: newOrderedId(),
    account_id: check.accountId,
    check_type: check.checkType,
    name: check.config.name,
    activated: check.config.activated,
    config: check.config,
  };
  // One statement alone joins the store's group commit (a transaction pays a sync of its own:
  // check creation ran at half the rate that way).
  if (!first && !subs?.length) return store.checks.insert(row);
  return store.tx(async (tx) => {
    await first?.(tx);
    const stored = await tx.checks.insert(row);
    if (subs) await tx.alertChannels.setForCheck(stored.id, subs);
    return stored;
  });
}

/** Saves a check's new config and (when given) its subscriptions in one transaction. */
export function updateCheck(
  store: Repositories,
  id: string,
  accountId: string,
  config: CheckConfig,
  subs: Subscription[] | null,
): Promise<CheckRow> {
  if (!subs) return store.checks.update(id, accountId, config).then((row) => row!);
  return store.tx(async (tx) => {
    const row = (await tx.checks.update(id, accountId, config))!;
    await tx.alertChannels.setForCheck(row.id, subs);
    return row;
  });
}

/** The check as the API shows it, its subscriptions and channels included. */
export async function showCheck(store: Repositories, row: CheckRow, pingBase?: string, saved?: Subscription[] | null) {
  // A check just created without subscriptions has none to look up.
  if (saved !== undefined && !saved?.length) return toApi(row, pingBase, NONE);
  return toApi(row, pingBase, (await alertingOf(store, [row.id])).get(row.id));
}

/**
 * Checks as the API shows them: as stored, or (applyGroupSettings) as they run, their group's
 * settings applied and, where the group's alerting replaces theirs, its subscriptions shown.
 */
export async function showChecks(
  deps: { store: Repositories; groups: CheckGroups; pingBase(): string },
  rows: CheckRow[],
  applyGroupSettings: boolean,
) {
  const own = await alertingOf(
    deps.store,
    rows.map((r) => r.id),
  );
  if (!applyGroupSettings) return rows.map((r) => toApi(r, deps.pingBase(), own.get(r.id)));
  const viaGroup = rows.map((r) => deps.groups.alertingGroup(r));
  const groupSubs = await deps.store.alertChannels.ofGroups([...new Set(viaGroup.filter((g): g is number => g !== null))]);
  return rows.map((r, i) => {
    const g = viaGroup[i];
    const alerting = g === null ? own.get(r.id) : alertingFrom(groupSubs.filter((s) => Number(s.group_id) === g));
    return toApi(deps.groups.effective(r), deps.pingBase(), alerting);
  });
}
