// npm run runtimes:install -- <id> [package ...] [--if-missing]
//
// Installs a runtime's dependencies into runtimes/<id>/node_modules, all of them or only the
// named ones (tests install just @playwright/test). Install scripts are not run: some packages
// (prisma's engines, for one) download binaries from elsewhere in them, which these machines
// cannot reach; Playwright needs none, it drives the system's Chromium. Packages installed
// before are kept, and the new tree replaces the old one only once npm has finished.

import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadRuntimes, runtimeDir, isInstalled, DEFAULT_RUNTIMES_DIR } from './catalog.js';

const RECORD = '.outpost-installed.json';

export function installRuntime(id: string, only: string[], dir = DEFAULT_RUNTIMES_DIR, log: (s: string) => void = console.log): string[] {
  const record = loadRuntimes(dir).find((r) => r.name === id);
  if (!record)
    throw new Error(
      `no runtime ${id} (there are: ${loadRuntimes(dir)
        .map((r) => r.name)
        .join(', ')})`,
    );
  const root = runtimeDir(id, dir);
  const declared = (JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as { dependencies: Record<string, string> })
    .dependencies;
  const unknown = only.filter((p) => !(p in declared));
  if (unknown.length) throw new Error(`runtime ${id} has no dependency ${unknown.join(', ')}`);
  const modules = path.join(root, 'node_modules');
  const before: string[] = fs.existsSync(path.join(modules, RECORD)) ? JSON.parse(fs.readFileSync(path.join(modules, RECORD), 'utf8')) : [];
  const names = [...new Set([...before, ...(only.length ? only : Object.keys(declared))])].filter((n) => n in declared).sort();
  const stage = fs.mkdtempSync(path.join(root, '.install-'));
  try {
    const dependencies = Object.fromEntries(names.map((n) => [n, declared[n]]));
    fs.writeFileSync(
      path.join(stage, 'package.json'),
      JSON.stringify({ name: `outpost-runtime-install`, private: true, dependencies }, null, 2),
    );
    log(`runtime ${id}: installing ${names.length} package(s) without install scripts`);
    execFileSync('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--omit=dev', '--loglevel=error'], {
      cwd: stage,
      stdio: 'inherit',
    });
    fs.writeFileSync(path.join(stage, 'node_modules', RECORD), JSON.stringify(names));
    fs.rmSync(modules, { recursive: true, force: true });
    fs.renameSync(path.join(stage, 'node_modules'), modules);
  } finally {
    fs.rmSync(stage, { recursive: true, force: true });
  }
  return names;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  // --if-missing: `npm install` runs this; a runtime already installed is left alone.
  const ifMissing = args.includes('--if-missing');
  const [id, ...only] = args.filter((a) => a !== '--if-missing');
  if (!id) {
    console.error('usage: npm run runtimes:install -- <runtime id> [package ...] [--if-missing]');
    process.exit(2);
  }
  if (ifMissing && isInstalled(id)) process.exit(0);
  try {
    const names = installRuntime(id, only);
    console.log(`runtime ${id}: ${names.length} package(s) in ${path.join(runtimeDir(id), 'node_modules')}`);
  } catch (e) {
    console.error(`runtimes:install: ${(e as Error).message}`);
    process.exit(1);
  }
}
