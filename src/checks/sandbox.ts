// User code (browser, multi-step and Playwright checks, setup scripts) runs in a sandbox of its
// own, built with bubblewrap (Debian: apt-get install bubblewrap): new PID, IPC and UTS
// namespaces (it sees no process but its own, the agent's /proc/<pid>/environ included), a mount
// namespace holding only read-only /usr and a few files of /etc, the runtime's packages
// read-only, a private /tmp and the job's own folder, and, when the agent runs as root, the user
// nobody (really, where the runtimes are readable by all; else inside a user namespace). The
// network stays: a check is there to reach things.

import { execFile, spawn, type ChildProcess, type StdioOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The user sandboxed code runs as: nobody. */
const SANDBOX_ID = 65534;
const BWRAP = 'bwrap';

/**
 * Who the sandbox is to the rest of the system. `nobody`: really user nobody (the agent is root
 * and everything runs need is readable by all). `mapped`: nobody inside a user namespace, the
 * agent's user outside (root agents whose runtimes sit where nobody cannot reach, such as a
 * checkout in a private folder). `own`: the agent's own user (non-root agents).
 */
type Identity = 'nobody' | 'mapped' | 'own';

export interface SandboxedCommand {
  file: string;
  args: string[];
  uid?: number;
  gid?: number;
}

export class Sandbox {
  private constructor(
    readonly identity: Identity,
    private readonly fixedMounts: string[],
  ) {}

  /**
   * The sandbox this host allows, found by running one; null with the reason when it allows none.
   * `mode` off: none asked for. `mustRead`: folders runs need (the runtimes), read inside to be sure.
   */
  static async detect(mode: SandboxMode, mustRead: string[] = []): Promise<{ sandbox: Sandbox | null; reason: string | null }> {
    if (mode === 'off') return { sandbox: null, reason: 'OUTPOST_SANDBOX=off' };
    const dirs = [...new Set(mustRead.filter((d) => fs.existsSync(d)).map((d) => fs.realpathSync(d)))];
    const identities: Identity[] = process.getuid?.() === 0 ? ['nobody', 'mapped'] : ['own'];
    let reason = '';
    for (const identity of identities) {
      const candidate = new Sandbox(identity, systemMounts());
      const probe = candidate.command(
        [process.execPath, '-e', 'for (const d of process.argv.slice(1)) require("fs").readdirSync(d)', ...dirs],
        {
          workDir: null,
          readOnly: dirs,
        },
      );
      try {
        await promisify(execFile)(probe.file, probe.args, { uid: probe.uid, gid: probe.gid, env: {}, timeout: 10_000 });
        return { sandbox: candidate, reason: null };
      } catch (err) {
        const e = err as NodeJS.ErrnoException & { stderr?: string };
        reason = e.code === 'ENOENT' ? 'bubblewrap (bwrap) is not installed' : (e.stderr?.trim().split('\n')[0] ?? e.message);
      }
    }
    return { sandbox: null, reason: `the sandbox cannot start here: ${reason}` };
  }

  /** The folder a sandboxed run writes in: owned by the user the run has. */
  prepareWorkDir(dir: string): void {
    if (this.identity === 'nobody') fs.chownSync(dir, SANDBOX_ID, SANDBOX_ID);
  }

  /** `argv` to run inside: `workDir` read-write, `readOnly` paths visible, in `cwd` (else `workDir`). */
  command(argv: string[], o: { workDir: string | null; readOnly: string[]; cwd?: string }): SandboxedCommand {
    const args = [
      '--unshare-user',
      ...(this.identity === 'mapped' ? ['--uid', String(SANDBOX_ID), '--gid', String(SANDBOX_ID)] : []),
      '--unshare-pid',
      '--unshare-ipc',
      '--unshare-uts',
      '--unshare-cgroup-try',
      '--die-with-parent',
      '--new-session',
      ...this.fixedMounts,
      '--tmpfs',
      '/tmp',
      '--dev',
      '/dev',
      '--proc',
      '/proc',
    ];
    for (const p of o.readOnly) args.push('--ro-bind', p, p);
    if (o.workDir) args.push('--bind', o.workDir, o.workDir);
    const cwd = o.cwd ?? o.workDir;
    if (cwd) args.push('--chdir', cwd);
    args.push('--', ...argv);
    return this.identity === 'nobody' ? { file: BWRAP, args, uid: SANDBOX_ID, gid: SANDBOX_ID } : { file: BWRAP, args };
  }
}

/**
 * What of /etc a run needs: name resolution, certificates, fonts, users (for `id`), the dynamic
 * linker's cache, time zones, and Chromium's own settings. Nothing else (no shadow file, no
 * keys of the host's services), whoever the sandbox is to the file system.
 */
const ETC = [
  'resolv.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'nsswitch.conf',
  'passwd',
  'group',
  'ssl',
  'ca-certificates',
  'ca-certificates.conf',
  'fonts',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'mime.types',
  'alternatives',
  'chromium',
  'chromium.d',
  'machine-id',
];

/** /usr and the needed part of /etc read-only, the top-level links of a merged /usr, Node if it lives elsewhere. */
function systemMounts(): string[] {
  const out = ['--ro-bind', '/usr', '/usr'];
  for (const name of ETC) out.push('--ro-bind-try', `/etc/${name}`, `/etc/${name}`);
  for (const top of ['/bin', '/sbin', '/lib', '/lib64', '/lib32']) {
    let st: fs.Stats;
    try {
      st = fs.lstatSync(top);
    } catch {
      continue;
    }
    if (st.isSymbolicLink()) out.push('--symlink', fs.readlinkSync(top), top);
    else out.push('--ro-bind', top, top);
  }
  const nodePrefix = path.dirname(path.dirname(process.execPath));
  if (!nodePrefix.startsWith('/usr')) out.push('--ro-bind', nodePrefix, nodePrefix);
  return out;
}

/**
 * Starts a command, sandboxed or not, as a process group of its own, so `killGroup` ends it and
 * everything it started (a test runner's workers and browser, bubblewrap's namespace).
 */
export function spawnGroup(c: SandboxedCommand, o: { cwd: string; env: Record<string, string>; stdio: StdioOptions }): ChildProcess {
  return spawn(c.file, c.args, { cwd: o.cwd, env: o.env, uid: c.uid, gid: c.gid, stdio: o.stdio, detached: true });
}

export function killGroup(child: ChildProcess): void {
  try {
    process.kill(-child.pid!, 'SIGKILL');
  } catch {
    /* already gone */
  }
}
