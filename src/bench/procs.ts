// Process plumbing for the benchmarks: start the real service and agent, read their CPU and RSS.

import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../cli.js');
/** The Node flags on the CLI's `#!` line: benchmarks start Outpost as its command (and image) does. */
const CLI_FLAGS = fs
  .readFileSync(CLI, 'utf8')
  .split('\n', 1)[0]
  .split(' ')
  .filter((a) => a.startsWith('--'));
const TICKS = 100; // USER_HZ on Linux

export interface Child {
  child: ChildProcess;
  lines: string[];
  waitFor(pred: (line: string) => boolean, timeoutMs?: number): Promise<string>;
  stop(): Promise<void>;
}

export function launch(args: string[], env: Record<string, string>, bin = process.execPath): Child {
  // BENCH_PROFILE=dir writes a CPU profile of each Outpost process there; BENCH_NODE_ARGS adds
  // Node flags (e.g. --perf-basic-prof, for `perf record`).
  const prof = [...CLI_FLAGS, ...(process.env.BENCH_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE}`] : [])];
  if (process.env.BENCH_NODE_ARGS) prof.push(...process.env.BENCH_NODE_ARGS.split(' ').filter(Boolean));
  const child = spawn(bin, bin === process.execPath ? [...prof, CLI, ...args] : args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters: { pred: (l: string) => boolean; resolve: (l: string) => void }[] = [];
  let buf = '';
  const onData = (d: Buffer) => {
    buf += d;
    for (let i = buf.indexOf('\n'); i >= 0; i = buf.indexOf('\n')) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (lines.length < 10_000) lines.push(line);
      for (const w of [...waiters]) {
        if (!w.pred(line)) continue;
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve(line);
      }
    }
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return {
    child,
    lines,
    waitFor(pred, timeoutMs = 60_000) {
      const hit = lines.find(pred);
      if (hit) return Promise.resolve(hit);
      return new Promise((resolve, reject) => {
        const t = setTimeout(
          () => reject(new Error(`${args.join(' ')}: expected output did not come:\n${lines.slice(-20).join('\n')}`)),
          timeoutMs,
        );
        waiters.push({
          pred,
          resolve: (l) => {
            clearTimeout(t);
            resolve(l);
          },
        });
      });
    },
    stop() {
      return new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 40_000).unref();
      });
    },
  };
}

/** CPU seconds (user + system) a process has used so far. */
export function cpuSeconds(pid: number): number {
  const { user, system } = cpuSplit(pid);
  return user + system;
}

/** CPU seconds a process has used so far in user space and in the kernel. */
export function cpuSplit(pid: number): { user: number; system: number } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) / TICKS, system: Number(fields[12]) / TICKS };
}

/** CPU seconds used so far by every process of one name (the PostgreSQL server's backends). */
export function cpuSecondsOf(comm: string): number {
  let total = 0;
  for (const pid of fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === comm) total += cpuSeconds(Number(pid));
    } catch {
      // exited meanwhile
    }
  }
  return total;
}

/** Resident set size in MB. */
export function rssMb(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A process and its live descendants, from /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (!children.has(ppid)) children.set(ppid, []);
      children.get(ppid)!.push(Number(d));
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    out.push(p);
    for (const c of children.get(p) ?? []) walk(c);
  };
  walk(root);
  return out;
}

/**
 * CPU seconds the whole machine has spent so far outside idle. For runs in a sandbox: processes
 * in bubblewrap's PID namespace are not counted in their parent's reaped-children time.
 */
export function machineCpuSeconds(): number {
  const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal: all but idle and iowait
  return (f[0]! + f[1]! + f[2]! + f[5]! + f[6]! + f[7]!) / TICKS;
}

/** Resident memory of a process tree, in MB (shared pages counted in each process). */
export function treeRssMb(root: number): number {
  return processTree(root).reduce((sum, pid) => {
    try {
      return sum + rssMb(pid);
    } catch {
      return sum;
    }
  }, 0);
}
