// Reads a V8 .cpuprofile (node --cpu-prof) and says where the self time went: by module group and by function.
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Which part of the stack a frame belongs to, from its script URL. */
function moduleGroup(url: string, functionName: string): string {
  if (url === '') {
    if (functionName.startsWith('(')) return functionName; // (garbage collector), (program), (idle)
    return 'V8 builtins / native';
  }
  const pkg = /node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];
  if (pkg !== undefined) {
    if (pkg === '@prisma/client' && url.includes('/runtime/'))
      return '@prisma/client runtime (query compiler, wasm)';
    return pkg;
  }
  if (url.includes('/apps/api/dist/generated/')) return 'api: generated Prisma client';
  if (url.includes('/apps/api/dist/')) return 'api: own code';
  if (url.includes('/packages/schema/')) return '@petstore/schema';
  if (url.startsWith('node:')) {
    const internal = /^node:internal\/([^/]+)/.exec(url)?.[1];
    return `node core: ${internal ?? url.slice(5)}`;
  }
  if (url.startsWith('wasm://')) return 'wasm (Prisma query compiler)';
  return url;
}

export interface ProfileSummary {
  totalMs: number;
  /** Busy time: all but (idle). */
  busyMs: number;
  groups: { name: string; ms: number }[];
  functions: { name: string; group: string; ms: number }[];
}

export function summarizeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parentOf = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);
  // Native frames (writev, JSON.stringify, ...) have no script: charge them to the nearest JS caller's module,
  // so "writev" shows up under pino or node's http rather than as an anonymous builtin.
  const callerGroup = (id: number): string | undefined => {
    for (let at = parentOf.get(id); at !== undefined; at = parentOf.get(at)) {
      const frame = byId.get(at)?.callFrame;
      if (frame !== undefined && frame.url !== '') return moduleGroup(frame.url, frame.functionName);
    }
    return undefined;
  };
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => {
    selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  });
  const groups = new Map<string, number>();
  const functions = new Map<string, { name: string; group: string; ms: number }>();
  let total = 0;
  let idle = 0;
  for (const [id, us] of selfUs) {
    const node = byId.get(id);
    if (node === undefined) continue;
    const { functionName, url, lineNumber } = node.callFrame;
    const native = url === '' && !functionName.startsWith('(');
    const group = native
      ? `${callerGroup(id) ?? 'V8 builtins / native'} (native)`
      : moduleGroup(url, functionName);
    const ms = us / 1000;
    total += ms;
    if (functionName === '(idle)') idle += ms;
    groups.set(group, (groups.get(group) ?? 0) + ms);
    const short = url
      .replace(/^.*node_modules\/(?:\.pnpm\/[^/]+\/node_modules\/)?/, '')
      .replace(/^.*\/apps\//, 'apps/');
    const key = native
      ? `${functionName || '(native)'} ← ${group}`
      : `${functionName || '(anonymous)'} ${short}:${lineNumber + 1}`;
    const entry = functions.get(key) ?? { name: key, group, ms: 0 };
    entry.ms += ms;
    functions.set(key, entry);
  }
  return {
    totalMs: total,
    busyMs: total - idle,
    groups: [...groups].map(([name, ms]) => ({ name, ms })).sort((a, b) => b.ms - a.ms),
    functions: [...functions.values()].sort((a, b) => b.ms - a.ms),
  };
}

export function renderProfileSummary(title: string, summary: ProfileSummary, top = 15): string {
  const pct = (ms: number) => `${((ms / summary.busyMs) * 100).toFixed(1)}%`;
  const groups = summary.groups
    .filter((g) => g.name !== '(idle)')
    .slice(0, 14)
    .map((g) => `| ${g.name} | ${g.ms.toFixed(0)} | ${pct(g.ms)} |`);
  const functions = summary.functions
    .filter((f) => f.group !== '(idle)')
    .slice(0, top)
    .map((f) => `| \`${f.name}\` | ${f.group} | ${pct(f.ms)} |`);
  return [
    `#### ${title} — busy ${(summary.busyMs / 1000).toFixed(1)} s of ${(summary.totalMs / 1000).toFixed(1)} s`,
    '',
    '| self time by module | ms | share of busy |',
    '| --- | ---: | ---: |',
    ...groups,
    '',
    '| top functions (self time) | module | share of busy |',
    '| --- | --- | ---: |',
    ...functions,
  ].join('\n');
}
