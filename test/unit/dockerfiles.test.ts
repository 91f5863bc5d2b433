// No Docker engine runs here: the images are kept right by reading their Dockerfiles.

import { describe, it, expect } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';

interface Instruction {
  op: string;
  args: string;
  stage: number;
}

/** Joins continuation lines, drops comments, numbers the build stages. */
function parse(file: string): Instruction[] {
  const text = fs.readFileSync(file, 'utf8').replace(/\\\n/g, ' ');
  const out: Instruction[] = [];
  let stage = -1;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [op, ...rest] = line.split(/\s+/);
    if (op.toUpperCase() === 'FROM') stage++;
    out.push({ op: op.toUpperCase(), args: rest.join(' '), stage });
  }
  return out;
}

const root = path.resolve(import.meta.dirname, '../..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));

describe.each(['Dockerfile', 'Dockerfile.uptime'])('%s', (name) => {
  const all = parse(path.join(root, name));
  const last = Math.max(...all.map((i) => i.stage));
  const final = all.filter((i) => i.stage === last);
  const args = (op: string) => final.filter((i) => i.op === op).map((i) => i.args);

  it('builds on a slim Node 20 base', () => {
    for (const from of all.filter((i) => i.op === 'FROM')) expect(from.args).toMatch(/^node:20[-.\w]*slim\b/);
  });
  it('runs as a non-root user', () => {
    const user = args('USER').at(-1);
    expect(user).toBeDefined();
    expect(user).not.toMatch(/^(root|0)(:|$)/);
  });
  it('exposes 8081 with a HEALTHCHECK on /-/liveness', () => {
    expect(args('EXPOSE').join(' ')).toMatch(/\b8081\b/);
    expect(args('HEALTHCHECK').join(' ')).toContain('/-/liveness');
    expect(args('ENV').join(' ')).toMatch(/AGENT_HEALTH_PORT=8081/);
  });
  it('starts `outpost agent`, linked to the built CLI', () => {
    const entry = JSON.parse(args('ENTRYPOINT').at(-1)!);
    expect(entry.slice(-2)).toEqual(['outpost', 'agent']);
    expect(args('RUN').join('\n')).toContain(`ln -s /app/${pkg.bin.outpost} /usr/local/bin/outpost`);
  });
  it('copies only files that exist in the repository', () => {
    for (const c of all.filter((i) => i.op === 'COPY' && !i.args.startsWith('--from'))) {
      const parts = c.args.split(/\s+/);
      for (const src of parts.slice(0, -1)) expect(fs.existsSync(path.join(root, src)), `${name}: COPY ${src}`).toBe(true);
    }
  });
  it('carries ping for ICMP checks (iputils keeps its cap_net_raw for a non-root user)', () => {
    expect(
      final
        .filter((i) => i.op === 'RUN')
        .map((i) => i.args)
        .join('\n'),
    ).toMatch(/apt-get install[^\n]*iputils-ping/);
  });
  it('builds the native addon (ICMP socket, arrival times) and copies it to where the agent loads it from', () => {
    const build = all.filter((i) => i.stage < last);
    expect(
      build
        .filter((i) => i.op === 'RUN')
        .map((i) => i.args)
        .join('\n'),
    ).toMatch(/apt-get install[^\n]*g\+\+[\s\S]*npm run build:native/);
    const copy = args('COPY').find((c) => c.includes('outpost_native.node'));
    expect(copy).toBe('--from=build /app/src/native/build/Release/outpost_native.node ./src/native/build/Release/');
    const loader = fs.readFileSync(path.join(root, 'src/checks/native.ts'), 'utf8');
    expect(loader).toContain("'../../src/native/build/Release/outpost_native.node'");
    expect(pkg.scripts['build:native']).toContain('--directory src/native');
  });
  it('builds with the lock file and without dev dependencies in the image', () => {
    const runs = all
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).toMatch(/npm ci/);
    expect(runs).toMatch(/npm run build/);
    expect(runs).toMatch(/npm prune --omit=dev/);
  });
});

describe('the two images differ where they must', () => {
  const full = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
  const uptime = parse(path.join(root, 'Dockerfile.uptime'));
  it('the full image carries Chromium from Debian (and ffmpeg for videos) and a runtime build argument', () => {
    expect(full).toMatch(/apt-get install[^\n]*chromium/);
    expect(full).toMatch(/apt-get install[^\n]*ffmpeg/);
    // User code of browser checks runs in a bubblewrap sandbox per job.
    expect(full).toMatch(/apt-get install[^\n]*bubblewrap/);
    expect(full).toMatch(/ARG RUNTIMES="2026\.04"/);
    expect(full).toMatch(/2024\.09 2025\.04 2026\.04/);
  });
  it('the full image installs the dependencies of each runtime it carries, from its build argument', () => {
    const runs = parse(path.join(root, 'Dockerfile'))
      .filter((i) => i.op === 'RUN')
      .map((i) => i.args)
      .join('\n');
    expect(runs).toMatch(/for r in \$RUNTIMES; do node dist\/runtimes\/install\.js "\$r"/);
    expect(pkg.scripts['runtimes:install']).toBe('node dist/runtimes/install.js');
    expect(full).toMatch(/OUTPOST_RUNTIMES=\$\{RUNTIMES\}/);
  });
  it('the uptime image has no browser, no runtimes and sets the uptime profile', () => {
    const text = uptime.map((i) => `${i.op} ${i.args}`).join('\n');
    expect(text).not.toMatch(/chromium|playwright|runtimes/i);
    expect(text).toMatch(/OUTPOST_AGENT_PROFILE=uptime/);
  });
});
