// SMS and CALL channels, through an HTTP provider: a Twilio-style form post (To, From, Body; a
// call says the title) to OUTPOST_SMS_URL or OUTPOST_CALL_URL, credentials in the URL's user
// part sent as basic auth. Without a provider the notification is recorded as failed.
import { httpSend, type Sender } from './types.js';

function provider(raw: string): { url: string; headers: Record<string, string> } {
  const u = new URL(raw);
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (u.username)
    headers.authorization = `Basic ${Buffer.from(`${decodeURIComponent(u.username)}:${decodeURIComponent(u.password)}`).toString('base64')}`;
  u.username = '';
  u.password = '';
  return { url: u.toString(), headers };
}

function send(kind: 'SMS' | 'CALL'): Sender {
  return async (n, cfg) => {
    const raw = kind === 'SMS' ? cfg.smsUrl : cfg.callUrl;
    if (!raw)
      return { ok: false, retry: false, message: `no ${kind === 'SMS' ? 'SMS' : 'call'} provider is configured (set OUTPOST_${kind}_URL)` };
    const { url, headers } = provider(raw);
    const to = String((n.config as { number: string }).number);
    const title = String(n.event.ALERT_TITLE);
    const form = new URLSearchParams({ To: to, From: cfg.smsFrom });
    if (kind === 'SMS') form.set('Body', `${title} ${n.event.RESULT_LINK}`);
    else form.set('Twiml', `<Response><Say>${title.replace(/[<>&"]/g, ' ')}</Say></Response>`);
    return httpSend(url, { method: 'POST', headers, body: form.toString() }, cfg.timeoutMs);
  };
}

export const sendSms = send('SMS');
export const sendCall = send('CALL');
