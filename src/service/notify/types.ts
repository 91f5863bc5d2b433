// One sender per channel type, behind one signature: the notification (its event variables and
// its channel's config) in, what the channel answered out.

import type { DueNotification } from '../store/alerts.js';

export interface SendOutcome {
  ok: boolean;
  /** Worth another attempt (the receiver answered > 399 or could not be reached). */
  retry: boolean;
  status?: number;
  message: string;
}

export interface NotifyConfig {
  smtpUrl: string | null;
  smtpFrom: string;
  pagerdutyUrl: string;
  opsgenieUrl: { US: string; EU: string };
  smsUrl: string | null;
  callUrl: string | null;
  smsFrom: string;
  timeoutMs: number;
}

export type Sender = (n: DueNotification, cfg: NotifyConfig) => Promise<SendOutcome>;

/** POSTs (or any method) and reads the answer; a network error or a status > 399 is a failure. */
export async function httpSend(
  url: string,
  init: { method: string; headers: Record<string, string>; body?: string },
  timeoutMs: number,
): Promise<SendOutcome> {
  try {
    const res = await fetch(url, {
      ...init,
      body: init.method === 'GET' || init.method === 'HEAD' ? undefined : init.body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    const text = (await res.text()).slice(0, 2000);
    return res.status > 399
      ? { ok: false, retry: true, status: res.status, message: `the receiver answered ${res.status}: ${text.slice(0, 200)}` }
      : { ok: true, retry: false, status: res.status, message: text };
  } catch (err) {
    return {
      ok: false,
      retry: true,
      message: `could not reach the receiver: ${(err as Error).cause instanceof Error ? ((err as Error).cause as Error).message : (err as Error).message}`,
    };
  }
}
