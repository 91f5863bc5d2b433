// EMAIL channels: a message over SMTP (OUTPOST_SMTP_URL, e.g. smtps://user:pass@mail.example.com:465).
import nodemailer from 'nodemailer';
import type { NotifyConfig, Sender, SendOutcome } from './types.js';

const transports = new Map<string, nodemailer.Transporter>();

/** Sends one plain-text mail; the id becomes its Message-ID and X-Outpost-Notification-Id. */
export async function mail(cfg: NotifyConfig, m: { id: string; to: string; subject: string; text: string }): Promise<SendOutcome> {
  if (!cfg.smtpUrl) return { ok: false, retry: false, message: 'no SMTP server is configured (set OUTPOST_SMTP_URL)' };
  let t = transports.get(cfg.smtpUrl);
  if (!t) {
    t = nodemailer.createTransport(cfg.smtpUrl, {
      connectionTimeout: cfg.timeoutMs,
      greetingTimeout: cfg.timeoutMs,
      socketTimeout: cfg.timeoutMs,
    });
    transports.set(cfg.smtpUrl, t);
  }
  try {
    const info = await t.sendMail({
      from: cfg.smtpFrom,
      to: m.to,
      subject: m.subject,
      text: m.text,
      headers: { 'X-Outpost-Notification-Id': m.id },
      messageId: `<${m.id}@outpost>`,
    });
    return { ok: true, retry: false, message: String(info.response ?? 'sent') };
  } catch (err) {
    // The SMTP URL may hold a password: the message names the failure, not the URL.
    return { ok: false, retry: true, message: `the SMTP server refused or could not be reached: ${(err as Error).message}` };
  }
}

export const sendEmail: Sender = async (n, cfg) => {
  const e = n.event;
  const lines = [
    String(e.ALERT_TITLE),
    '',
    `Check:         ${e.CHECK_NAME} (${e.CHECK_TYPE})`,
    `Location:      ${e.RUN_LOCATION}`,
    `Response time: ${e.RESPONSE_TIME} ms`,
    ...(e.CHECK_ERROR_MESSAGE ? [`Error:         ${e.CHECK_ERROR_MESSAGE}`] : []),
    `Started at:    ${e.STARTED_AT}`,
    '',
    `Result: ${e.RESULT_LINK}`,
  ];
  return mail(cfg, {
    id: n.id,
    to: String((n.config as { address: string }).address),
    subject: String(e.ALERT_TITLE),
    text: lines.join('\n'),
  });
};
