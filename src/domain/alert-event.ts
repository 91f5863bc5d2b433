// What a notification says: the event variables webhook templates use (with the names Checkly's
// webhooks use, so existing receivers and templates work), its title, and which channels want
// it. Pure.

import { LOCATION_NAMES, type Location } from './limits.js';
import type { AlertType } from './alert-state.js';

export interface AlertEventInput {
  alertType: AlertType;
  /** 0 for the alert itself, n for its n-th reminder. */
  reminder: number;
  check: { id: string; name: string; checkType: string; tags: string[]; description?: string | null };
  result: { id: string; location: string; responseTime: number; error: string | null; startedAt: number; statusCode?: number | null };
  resultLink: string;
  /** For ALERT_SSL: the certificate's days left and the host it was served for. */
  ssl?: { daysRemaining: number; domain: string };
}

const TITLES: Partial<Record<AlertType, string>> = {
  ALERT_FAILURE: 'has failed',
  ALERT_FAILURE_REMAIN: 'is still failing',
  ALERT_DEGRADED_FAILURE: 'has failed',
  ALERT_RECOVERY: 'has recovered',
  ALERT_DEGRADED: 'is degraded',
  ALERT_DEGRADED_REMAIN: 'is still degraded',
  ALERT_FAILURE_DEGRADED: 'is degraded',
  ALERT_DEGRADED_RECOVERY: 'has recovered',
};

export function alertTitle(type: AlertType, checkName: string, sslDays?: number): string {
  if (type === 'ALERT_SSL') return `The certificate of check "${checkName}" expires in ${sslDays ?? '?'} days`;
  return `Check "${checkName}" ${TITLES[type] ?? type.toLowerCase().replace(/_/g, ' ')}`;
}

/** The variables of one notification. */
export function alertEvent(i: AlertEventInput): Record<string, unknown> {
  return {
    ALERT_TITLE: alertTitle(i.alertType, i.check.name, i.ssl?.daysRemaining),
    ALERT_TYPE: i.alertType,
    CHECK_NAME: i.check.name,
    CHECK_ID: i.check.id,
    CHECK_TYPE: i.check.checkType,
    CHECK_DESCRIPTION: i.check.description ?? '',
    CHECK_RESULT_ID: i.result.id,
    CHECK_ERROR_MESSAGE: i.result.error ?? '',
    API_CHECK_RESPONSE_STATUS_CODE: i.result.statusCode ?? null,
    RESPONSE_TIME: i.result.responseTime,
    RUN_LOCATION: LOCATION_NAMES[i.result.location as Location] ?? i.result.location,
    REGION: i.result.location,
    RESULT_LINK: i.resultLink,
    STARTED_AT: new Date(i.result.startedAt).toISOString(),
    TAGS: i.check.tags,
    GROUP_NAME: '',
    IS_REMINDER: i.reminder > 0,
    REMINDER_SEQUENCE: i.reminder,
    ...(i.ssl ? { SSL_DAYS_REMAINING: i.ssl.daysRemaining, SSL_CHECK_DOMAIN: i.ssl.domain } : {}),
  };
}

export type AlertKind = 'failure' | 'degraded' | 'recovery' | 'ssl';

export function kindOf(type: AlertType): AlertKind {
  if (type === 'ALERT_SSL') return 'ssl';
  if (type === 'ALERT_RECOVERY' || type === 'ALERT_DEGRADED_RECOVERY') return 'recovery';
  if (type === 'ALERT_DEGRADED' || type === 'ALERT_DEGRADED_REMAIN' || type === 'ALERT_FAILURE_DEGRADED') return 'degraded';
  return 'failure';
}

export interface ChannelFilter {
  sendFailure: boolean;
  sendDegraded: boolean;
  sendRecovery: boolean;
  sslExpiry: boolean;
  sslExpiryThreshold: number;
}

/**
 * Whether a channel sends this kind of alert: its sendFailure, sendDegraded, sendRecovery; for
 * certificates, sslExpiry and the days it wants to be warned ahead (`sslDays` left).
 */
export function channelWants(channel: ChannelFilter, type: AlertType, sslDays?: number): boolean {
  const kind = kindOf(type);
  if (kind === 'ssl') return channel.sslExpiry && sslDays !== undefined && sslDays <= channel.sslExpiryThreshold;
  return kind === 'failure' ? channel.sendFailure : kind === 'degraded' ? channel.sendDegraded : channel.sendRecovery;
}
