// A local SMTP server that keeps every message it receives, for tests of what is mailed.

import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';

export interface Mail {
  to: string;
  /** The message as sent: headers and body. */
  data: string;
  subject: string;
  /** The body, quoted-printable undone (links survive line folding). */
  text: string;
}

function parse(data: string): { subject: string; text: string } {
  const [head, ...body] = data.split(/\r?\n\r?\n/);
  const subject = /^Subject: (.*)$/m.exec(head.replace(/\r?\n\s+/g, ' '))?.[1] ?? '';
  const text = body
    .join('\n\n')
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, h) => String.fromCharCode(parseInt(h, 16)));
  return { subject, text };
}

export async function mailbox(): Promise<{ url: string; mails: Mail[]; close(): Promise<void> }> {
  const mails: Mail[] = [];
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    onData(stream, session, done) {
      let data = '';
      stream.on('data', (d) => (data += d));
      stream.on('end', () => {
        mails.push({ to: session.envelope.rcptTo.map((r) => r.address).join(','), data, ...parse(data) });
        done();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, '127.0.0.1', () => r()));
  return {
    url: `smtp://127.0.0.1:${(smtp.server.address() as AddressInfo).port}`,
    mails,
    close: () => new Promise<void>((r) => smtp.close(() => r())),
  };
}
