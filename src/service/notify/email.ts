// EMAIL channels: a message over SMTP (OUTPOST_SMTP_URL, e.g. smtps://user:pass@mail.example.com:465).
import nodemailer from 'nodemailer';
import type { Sender } from './types.js';

const transports = new Map<string, nodemailer.Transporter>();

export const sendEmail: Sender = async (n, cfg) => {
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
  try {
    const info = await t.sendMail({
      from: cfg.smtpFrom,
      to: String((n.config as { address: string }).address),
      subject: String(e.ALERT_TITLE),
      text: lines.join('\n'),
      headers: { 'X-Outpost-Notification-Id': n.id },
      messageId: `<${n.id}@outpost>`,
    });
    return { ok: true, retry: false, message: String(info.response ?? 'sent') };
  } catch (err) {
    // The SMTP URL may hold a password: the message names the failure, not the URL.
    return { ok: false, retry: true, message: `the SMTP server refused or could not be reached: ${(err as Error).message}` };
  }
};
