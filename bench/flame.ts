/**
 * Flame graph of a V8 CPU profile (`node --cpu-prof`), as one self-contained SVG, plus the top
 * frames by self time as text (`npm run bench:flame -- <file.cpuprofile> [--out file.svg]
 * [--title T] [--min-percent 0.1]`).
 *
 * Frames are coloured by where their code lives: this project (internal/, cmd/), its dependencies
 * (node_modules), Node.js itself (node:…), and V8's pseudo-frames ((garbage collector), (idle),
 * (program)). Frames narrower than --min-percent of the samples are left out; each frame's
 * tooltip gives its share. Used for the flame graphs of the issue 14 closing note
 * (docs/perf/*.svg).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A frame of the merged call tree (children merged by frame name). */
interface Frame {
  name: string;
  url: string;
  total: number;
  self: number;
  children: Map<string, Frame>;
}

const ROW = 16;
const WIDTH = 1600;

function frameName(cf: CallFrame): string {
  const file = cf.url.split('/').pop() ?? '';
  return `${cf.functionName || '(anonymous)'}${file ? ` ${file}:${cf.lineNumber + 1}` : ''}`;
}

/** The profile's tree with sample time per node, merged by frame name under each parent. */
export function callTree(profile: CpuProfile): Frame {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const build = (node: ProfileNode, into: Frame): void => {
    const name = frameName(node.callFrame);
    let f = into.children.get(name);
    if (!f) into.children.set(name, (f = { name, url: node.callFrame.url, total: 0, self: 0, children: new Map() }));
    const s = self.get(node.id) ?? 0;
    f.self += s;
    for (const c of node.children ?? []) build(byId.get(c)!, f);
    f.total += s;
  };
  const root: Frame = { name: 'all', url: '', total: 0, self: 0, children: new Map() };
  const top = profile.nodes[0]!;
  for (const c of top.children ?? []) build(byId.get(c)!, root);
  // Totals bottom-up (children were built before their parent's total was known).
  const sum = (f: Frame): number => (f.total = f.self + [...f.children.values()].reduce((n, c) => n + sum(c), 0));
  sum(root);
  return root;
}

function colour(f: Frame): string {
  const h = [...f.name].reduce((n, c) => (n * 31 + c.charCodeAt(0)) >>> 0, 7) % 40;
  if (!f.url) return `hsl(0, 0%, ${70 + (h % 15)}%)`; // V8 pseudo-frames and natives
  if (f.url.includes('node_modules')) return `hsl(${200 + h}, 55%, 65%)`;
  if (f.url.startsWith('node:')) return `hsl(${100 + h}, 45%, 60%)`;
  return `hsl(${20 + h}, 85%, 60%)`; // this project
}

const escapeXml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

export function flameSvg(root: Frame, title: string, minPercent: number): string {
  const rects: string[] = [];
  let depthMax = 0;
  const minTime = (root.total * minPercent) / 100;
  const draw = (f: Frame, x: number, depth: number): void => {
    depthMax = Math.max(depthMax, depth);
    const w = (f.total / root.total) * WIDTH;
    const pct = ((100 * f.total) / root.total).toFixed(2);
    const label = w > 40 ? escapeXml(f.name.slice(0, Math.floor(w / 6.5))) : '';
    rects.push(
      `<g><title>${escapeXml(f.name)} — ${pct}% (self ${((100 * f.self) / root.total).toFixed(2)}%)</title>` +
        `<rect x="${x.toFixed(1)}" y="DEPTH${depth}" width="${Math.max(w - 0.5, 0.5).toFixed(1)}" height="${ROW - 1}" fill="${colour(f)}"/>` +
        (label ? `<text x="${(x + 3).toFixed(1)}" y="TEXT${depth}">${label}</text>` : '') +
        '</g>',
    );
    let cx = x;
    for (const c of [...f.children.values()].sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (c.total >= minTime) draw(c, cx, depth + 1);
      cx += (c.total / root.total) * WIDTH;
    }
  };
  draw(root, 0, 0);
  const height = (depthMax + 1) * ROW + 40;
  // Flame orientation: the root at the bottom.
  const body = rects
    .join('\n')
    .replace(/y="DEPTH(\d+)"/g, (_, d: string) => `y="${height - 10 - (Number(d) + 1) * ROW}"`)
    .replace(/y="TEXT(\d+)"/g, (_, d: string) => `y="${height - 10 - Number(d) * ROW - 4}"`);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${WIDTH}" height="${height}" font-family="monospace" font-size="11">`,
    `<rect width="100%" height="100%" fill="#fff"/>`,
    `<text x="4" y="16" font-size="14">${escapeXml(title)}</text>`,
    body,
    '</svg>',
  ].join('\n');
}

/** Top frames by self time (merged by name across the tree), as text lines. */
export function topSelf(root: Frame, n: number): string[] {
  const self = new Map<string, number>();
  const walk = (f: Frame): void => {
    if (f !== root) self.set(f.name, (self.get(f.name) ?? 0) + f.self);
    for (const c of f.children.values()) walk(c);
  };
  walk(root);
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([name, t]) => `${((100 * t) / root.total).toFixed(1).padStart(5)}%  ${name}`);
}

if (process.argv[1] && import.meta.url.endsWith(basename(process.argv[1]))) {
  const { values, positionals } = parseArgs({ allowPositionals: true, options: { out: { type: 'string' }, title: { type: 'string' }, 'min-percent': { type: 'string' }, top: { type: 'string' } } });
  const file = positionals[0];
  if (!file) {
    console.error('usage: bench/flame.ts <file.cpuprofile> [--out file.svg] [--title T] [--min-percent 0.1] [--top 25]');
    process.exit(2);
  }
  const root = callTree(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const out = values.out ?? file.replace(/\.cpuprofile$/, '') + '.svg';
  writeFileSync(out, flameSvg(root, values.title ?? basename(file), Number(values['min-percent'] ?? 0.1)));
  console.log(`${out}: ${(root.total / 1000).toFixed(0)} ms of samples`);
  for (const line of topSelf(root, Number(values.top ?? 25))) console.log(line);
}
