// Reads runtimes/<id>/runtime.json and runtimes/<id>/package.json into the records the API
// lists, and tells which runtimes are installed (their dependencies are in node_modules).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { RUNTIME_STAGES, type RuntimeRecord } from '../domain/runtimes.js';

/** The runtimes folder of this package (dist/runtimes/ → ../../runtimes). */
export const DEFAULT_RUNTIMES_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../runtimes');

interface Manifest {
  name: string;
  stage: string;
  runtimeEndOfLife?: string | null;
  multiStepSupport: boolean;
  nodeJsVersion: string;
  description: string;
  /** Node built-ins the record lists as dependencies (http, https): not installed from npm. */
  builtins?: Record<string, string>;
}

export function runtimeDir(id: string, dir = DEFAULT_RUNTIMES_DIR): string {
  return path.join(dir, id);
}

/** Every runtime folder's record, newest first. Throws naming the file when one is malformed. */
export function loadRuntimes(dir = DEFAULT_RUNTIMES_DIR): RuntimeRecord[] {
  const out: RuntimeRecord[] = [];
  for (const id of fs.readdirSync(dir)) {
    const manifestFile = path.join(dir, id, 'runtime.json');
    if (!fs.existsSync(manifestFile)) continue;
    const m = JSON.parse(fs.readFileSync(manifestFile, 'utf8')) as Manifest;
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, id, 'package.json'), 'utf8')) as { dependencies?: Record<string, string> };
    if (m.name !== id) throw new Error(`${manifestFile}: name ${m.name} does not match its folder`);
    if (!(RUNTIME_STAGES as readonly string[]).includes(m.stage)) throw new Error(`${manifestFile}: unknown stage ${m.stage}`);
    out.push({
      name: m.name,
      stage: m.stage as RuntimeRecord['stage'],
      ...(m.runtimeEndOfLife ? { runtimeEndOfLife: m.runtimeEndOfLife } : {}),
      multiStepSupport: m.multiStepSupport,
      nodeJsVersion: m.nodeJsVersion,
      description: m.description,
      dependencies: { ...pkg.dependencies, ...m.builtins },
    });
  }
  return out.sort((a, b) => b.name.localeCompare(a.name));
}

/** Where a runtime's packages are; scripts pinned to it resolve modules from here only. */
export function runtimeModules(id: string, dir = DEFAULT_RUNTIMES_DIR): string {
  return path.join(dir, id, 'node_modules');
}

/** A runtime is carried when its Playwright test runner is installed. */
export function isInstalled(id: string, dir = DEFAULT_RUNTIMES_DIR): boolean {
  return fs.existsSync(path.join(runtimeModules(id, dir), '@playwright', 'test', 'package.json'));
}

export function installedRuntimes(dir = DEFAULT_RUNTIMES_DIR): string[] {
  return loadRuntimes(dir)
    .map((r) => r.name)
    .filter((id) => isInstalled(id, dir));
}
