// One Chromium per runtime, shared by the agent's browser jobs: each job connects to it and
// works in contexts of its own, which the test runner always closes. Launched from the
// runtime's own playwright-core, since client and server must speak the same protocol version.

import fs from 'node:fs';
import os from 'node:os';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Logger } from '../../log.js';

export const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

interface Server {
  wsEndpoint(): string;
  close(): Promise<void>;
  process(): { pid?: number; once(e: 'exit', f: () => void): void };
}

/**
 * Videos are encoded by ffmpeg, which Playwright looks for among the browsers it downloads. It
 * downloads none here, so the system's ffmpeg (Debian: apt-get install ffmpeg) is linked where
 * the runtime's playwright-core expects its own. Must run before playwright-core first loads.
 */
export function linkFfmpeg(modules: string, log: Logger): void {
  const ffmpeg = (process.env.PATH ?? '')
    .split(':')
    .map((d) => path.join(d, 'ffmpeg'))
    .find((f) => fs.existsSync(f));
  if (!ffmpeg) return;
  process.env.PLAYWRIGHT_BROWSERS_PATH ??= path.join(os.tmpdir(), 'outpost-playwright-browsers');
  const dir = process.env.PLAYWRIGHT_BROWSERS_PATH;
  try {
    const browsers = JSON.parse(fs.readFileSync(path.join(modules, 'playwright-core', 'browsers.json'), 'utf8')) as {
      browsers: { name: string; revision: string }[];
    };
    const rev = browsers.browsers.find((b) => b.name === 'ffmpeg')?.revision;
    if (!rev) return;
    const link = path.join(dir, `ffmpeg-${rev}`, 'ffmpeg-linux');
    if (fs.existsSync(link)) return;
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(ffmpeg, link);
  } catch (err) {
    log.warn({ err }, 'could not link ffmpeg for Playwright videos');
  }
}

export class BrowserServers {
  private servers = new Map<string, Promise<Server>>();

  constructor(
    private executablePath: string,
    private log: Logger,
  ) {}

  /** The shared browser of a runtime, started on first use and again after it died. */
  async endpoint(runtimeId: string, modules: string): Promise<string> {
    let s = this.servers.get(runtimeId);
    if (!s) {
      s = this.launch(runtimeId, modules);
      this.servers.set(runtimeId, s);
      s.catch(() => this.servers.delete(runtimeId));
    }
    return (await s).wsEndpoint();
  }

  private async launch(runtimeId: string, modules: string): Promise<Server> {
    linkFfmpeg(modules, this.log);
    const require = createRequire(path.join(modules, 'noop.js'));
    const { chromium } = require(path.join(modules, 'playwright-core')) as { chromium: { launchServer(o: object): Promise<Server> } };
    const server = await chromium.launchServer({
      executablePath: this.executablePath,
      headless: true,
      args: CHROMIUM_FLAGS,
      host: '127.0.0.1',
      handleSIGTERM: false,
      handleSIGINT: false,
    });
    this.log.info({ runtimeId, pid: server.process().pid }, 'browser started');
    server.process().once('exit', () => {
      this.log.warn({ runtimeId }, 'browser exited; the next browser job starts a new one');
      this.servers.delete(runtimeId);
    });
    return server;
  }

  /** The process id of a runtime's browser, if it runs (for metrics and tests). */
  async pid(runtimeId: string): Promise<number | undefined> {
    return (await this.servers.get(runtimeId)?.catch(() => undefined))?.process().pid;
  }

  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(
      all.map((s) =>
        s.then(
          (x) => x.close(),
          () => {},
        ),
      ),
    );
  }
}
