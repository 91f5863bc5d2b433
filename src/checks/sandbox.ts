// User code (browser, multi-step and Playwright checks) runs in a sandbox of its own, built with
// bubblewrap (Debian: apt-get install bubblewrap): new PID, IPC and UTS namespaces (it sees no
// process but its own, the agent's /proc/<pid>/environ included), a mount namespace holding only
// the system's read-only /usr and /etc, the runtime's packages read-only, a private /tmp and the
// job's own folder, and, when the agent runs as root, another user (nobody), so even what is
// mounted is read with nobody's rights. The network stays: a check is there to reach things.

import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

export const SANDBOX_MODES = ['auto', 'required', 'off'] as const;
export type SandboxMode = (typeof SANDBOX_MODES)[number];

/** The user sandboxed code runs as when the agent is root: nobody. */
const SANDBOX_ID = 65534;
const BWRAP = 'bwrap';

export interface SandboxedCommand {
  file: string;
  args: string[];
  uid?: number;
  gid?: number;
}

export class Sandbox {
  private constructor(
    /** Switch to nobody (only root may). */
    private readonly asNobody: boolean,
    private readonly fixedMounts: string[],
  ) {}

  /**
   * The sandbox this host allows, found by running one; null with the reason when it allows none.
   * `mode` off: none asked for. `mustRead`: folders runs need (the runtimes), read inside to be sure.
   */
  static async detect(mode: SandboxMode, mustRead: string[] = []): Promise<{ sandbox: Sandbox | null; reason: string | null }> {
    if (mode === 'off') return { sandbox: null, reason: 'OUTPOST_SANDBOX=off' };
    const asNobody = process.getuid?.() === 0;
    const candidate = new Sandbox(asNobody, systemMounts());
    const dirs = mustRead.map((d) => fs.realpathSync(d));
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
      const why = e.code === 'ENOENT' ? 'bubblewrap (bwrap) is not installed' : (e.stderr?.trim().split('\n')[0] ?? e.message);
      const who = asNobody ? ' (runs there are user nobody: the runtimes folder must be readable by all)' : '';
      return { sandbox: null, reason: `the sandbox cannot start here${who}: ${why}` };
    }
  }

  /** The folder a sandboxed run writes in: owned by the user the run has. */
  prepareWorkDir(dir: string): void {
    if (this.asNobody) fs.chownSync(dir, SANDBOX_ID, SANDBOX_ID);
  }

  /** `argv` to run inside: `workDir` read-write, `readOnly` paths visible, in `cwd` (else `workDir`). */
  command(argv: string[], o: { workDir: string | null; readOnly: string[]; cwd?: string }): SandboxedCommand {
    const args = [
      '--unshare-user',
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
    return this.asNobody ? { file: BWRAP, args, uid: SANDBOX_ID, gid: SANDBOX_ID } : { file: BWRAP, args };
  }
}

/** /usr and /etc read-only, the top-level links of a merged /usr, and Node if it lives elsewhere. */
function systemMounts(): string[] {
  const out = ['--ro-bind', '/usr', '/usr', '--ro-bind', '/etc', '/etc'];
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
