/**
 * `npm run fidelity`: how often this server answers exactly as kube-apiserver 1.24 does.
 *
 *   npm run fidelity                                   # reference: /tmp/ref/kubeconfig; this server: started here
 *   npm run fidelity -- --kubeconfig <ref kubeconfig>  # another reference cluster
 *   npm run fidelity -- --ours <kubeconfig>            # compare with an already running server instead
 *   npm run fidelity -- --only patch,errors            # some categories only (set-up steps always run)
 *   npm run fidelity -- --diff-lines 20                # more lines of each mismatch (default 8)
 *   npm run fidelity -- --top 50                       # longer "most common differences" list (default 30)
 *
 * Sends the corpus of bench/fidelity-corpus.ts (a few hundred requests) to both servers, step by
 * step in the same order with the same names (a fresh run id per run and side), normalizes each
 * answer (uids, timestamps, resourceVersions, continue tokens — test/target.ts normalize() — plus
 * values captured from earlier answers such as generated names, each server's host:port, and
 * Table "Age" cells), and counts an answer identical when status, content-type, warning headers
 * and body (JSON compared as serialized, so key order and the final newline count) all match.
 * Prints each mismatch with its first differing lines, the most common differences, and the
 * identical fraction per category; writes everything (both normalized answers per step) to
 * bench/results/fidelity-<time>.json. Exit code 0 whatever the score: it is a measurement.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Agent, request as undiciRequest } from 'undici';
import { readKubeconfig, normalize } from '../test/target.ts';
import { startTestServer, type TestServer } from '../test/harness.ts';
import { CATEGORIES, corpus, type Category, type Step } from './fidelity-corpus.ts';

/** Per-request bound: watches end after timeoutSeconds=1, the slowest step (504 "too large resource version") waits about 3 s. */
const REQUEST_TIMEOUT_MS = 20_000;

interface Args {
  reference: string;
  ours?: string;
  only?: Set<string>;
  diffLines: number;
  /** How many entries of the "most common differences" summary to print. */
  top: number;
  out: string;
}

function parseArgs(argv: string[]): Args {
  const a: Args = { reference: '/tmp/ref/kubeconfig', diffLines: 8, top: 30, out: join(new URL('.', import.meta.url).pathname, 'results') };
  for (let i = 0; i < argv.length; i++) {
    const [flag, inline] = argv[i]!.split(/=(.*)/s, 2) as [string, string | undefined];
    const value = (): string => inline ?? argv[++i] ?? fail(`${flag} needs a value`);
    if (flag === '--kubeconfig') a.reference = value();
    else if (flag === '--ours') a.ours = value();
    else if (flag === '--only') a.only = new Set(value().split(','));
    else if (flag === '--diff-lines') a.diffLines = Number(value());
    else if (flag === '--out') a.out = value();
    else if (flag === '--top') a.top = Number(value());
    else fail(`unknown argument ${argv[i]} (see bench/fidelity.ts)`);
  }
  for (const c of a.only ?? []) if (!(CATEGORIES as readonly string[]).includes(c)) fail(`unknown category ${c} (${CATEGORIES.join(', ')})`);
  return a;
}

function fail(msg: string): never {
  process.stderr.write(`fidelity: ${msg}\n`);
  process.exit(2);
}

/** One server under comparison: an HTTPS agent with the kubeconfig's credentials and one without. */
interface Side {
  label: 'reference' | 'ours';
  server: string;
  admin: Agent;
  anonymous: Agent;
  /** Values captured from this side's answers (var → value). */
  vars: Map<string, string>;
  /** This side's run id (names of everything it creates; `<run>` once normalized). */
  run: string;
}

function sideFor(label: Side['label'], kubeconfig: string, run: string): Side & { token?: string } {
  const k = readKubeconfig(kubeconfig);
  return {
    label,
    run,
    server: k.server,
    admin: new Agent({ connect: { ca: k.ca, cert: k.cert, key: k.key }, connections: 8 }),
    anonymous: new Agent({ connect: { ca: k.ca }, connections: 2 }),
    vars: new Map(),
    token: k.token,
  };
}

/** What a server answered, as compared. */
interface Answer {
  status: number;
  contentType: string;
  warning: string;
  /** Normalized body (pretty-printed JSON when the body is JSON or JSON lines; text otherwise). */
  body: string;
  /** The same with object keys sorted: equal canonical bodies differ only in key order. */
  canonical: string;
  /** Normalized JSON documents of the body (for locating key-order differences). */
  docs?: unknown[];
  /** The body ends with a newline (Go's json.Encoder writes one after every document). */
  finalNewline: boolean;
  /** Error talking to the server (no HTTP answer). */
  error?: string;
}

/** `{run}`, `{ns}`, `{ns2}` (this side's names) and captured `{var}`s. */
function substitute(s: string, side: Side): string {
  const constants: Record<string, string> = { run: side.run, ns: side.run, ns2: `${side.run}-b` };
  return s.replace(/\{([A-Za-z0-9_]+)\}/g, (m, name: string) => constants[name] ?? side.vars.get(name) ?? m);
}

function substituteDeep(v: unknown, side: Side): unknown {
  if (typeof v === 'string') return substitute(v, side);
  if (Array.isArray(v)) return v.map((x) => substituteDeep(x, side));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [substitute(k, side), substituteDeep(x, side)]));
  return v;
}

function dig(v: any, path: string): unknown {
  for (const part of path.split('.')) v = v?.[/^\d+$/.test(part) ? Number(part) : part];
  return v;
}

async function send(side: Side & { token?: string }, step: Step): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; text: string } | { error: string }> {
  const headers: Record<string, string> = { accept: step.accept ?? 'application/json', 'user-agent': 'fidelity/1.0' };
  for (const [k, v] of Object.entries(step.headers ?? {})) headers[k] = substitute(v, side);
  if (side.token && step.identity !== 'anonymous') headers.authorization = `Bearer ${side.token}`;
  let body: string | undefined;
  if (step.raw !== undefined) body = substitute(step.raw, side);
  else if (step.body !== undefined) body = JSON.stringify(substituteDeep(step.body, side));
  if (body !== undefined) headers['content-type'] = step.contentType ?? 'application/json';
  try {
    const r = await undiciRequest(side.server + substitute(step.path, side), {
      method: step.method,
      headers,
      body,
      dispatcher: step.identity === 'anonymous' ? side.anonymous : side.admin,
      headersTimeout: REQUEST_TIMEOUT_MS,
      bodyTimeout: REQUEST_TIMEOUT_MS,
    });
    const text = step.binary ? (await r.body.arrayBuffer(), '') : await r.body.text();
    return { status: r.statusCode, headers: r.headers, text };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * Table "Age" cells hold a duration since creation ("5s"): not comparable between two servers.
 * In a Table watch stream only the first event carries columnDefinitions, so the Age column's
 * index carries over from one document of a body to the next.
 */
function blankAges(docs: unknown[]): void {
  let ages: number[] = [];
  const visit = (v: any): void => {
    if (!v || typeof v !== 'object') return;
    if (v.type && v.object) return visit(v.object); // a watch event
    if (v.kind !== 'Table' || !Array.isArray(v.rows)) return;
    if (Array.isArray(v.columnDefinitions) && v.columnDefinitions.length > 0) ages = v.columnDefinitions.map((c: any, i: number) => (c?.name === 'Age' ? i : -1)).filter((i: number) => i >= 0);
    for (const row of v.rows) for (const i of ages) if (Array.isArray(row?.cells) && i < row.cells.length) row.cells[i] = '<age>';
  };
  docs.forEach(visit);
}

const UUID_ANYWHERE = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const TIME_ANYWHERE = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/g;
/** `"resourceVersion":"123"` quoted inside a message (an object echoed in an Invalid patch error), escaped or not. */
const RV_IN_TEXT = /(resourceVersion\\*"\s*:\s*\\*")\d+/g;

/**
 * Normalize one answer of one side: captured values → `<var>`, then normalize() (uids,
 * timestamps, resourceVersions, continue, the run id → `<run>`), then uids and timestamps inside
 * longer strings (messages), Table ages.
 */
function normalizeBody(text: string, contentType: string, side: Side, project?: (b: any) => unknown): { body: string; canonical: string; docs?: unknown[]; finalNewline: boolean } {
  const host = new URL(side.server).host;
  const captured = [...side.vars.entries()].filter(([, v]) => v.length > 0).sort((a, b) => b[1].length - a[1].length);
  const renameStrings = (s: string): string => {
    // uids and times first: a captured number must not be found inside one.
    s = s.replace(UUID_ANYWHERE, '<uid>').replace(TIME_ANYWHERE, '<time>').replace(RV_IN_TEXT, '$1<rv>');
    s = s.split(host).join('<host:port>'); // /api's serverAddress, kubectl hints
    for (const [name, value] of captured) {
      // Numbers (resourceVersions) only where a message names a resource version just before
      // them: a data value "5" or a regex "[0-9]" must not become "<rv>" because some object of
      // this run has resourceVersion 5 or 9.
      if (/^\d+$/.test(value)) s = s.replace(new RegExp(`(?<![\\w.])${value}(?![\\w.])`, 'g'), (m, at: number) => (/resource ?version/i.test(s.slice(Math.max(0, at - 40), at)) ? `<${name}>` : m));
      else s = s.split(value).join(`<${name}>`);
    }
    return s;
  };
  // Captured values first (they contain the run id, which normalize() renames), keys included
  // (managedFields name generated keys); then normalize() for fields named resourceVersion/continue.
  const deep = (v: unknown, key = ''): unknown => {
    if (typeof v === 'string') return key === 'resourceVersion' || key === 'continue' ? v : renameStrings(v);
    if (Array.isArray(v)) return v.map((x) => deep(x, key));
    if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [renameStrings(k), deep(x, k)]));
    return v;
  };
  const one = (json: unknown): unknown => normalize(deep(project ? project(json) : json), { [side.run]: '<run>' });
  const finalNewline = text.endsWith('\n');
  const render = (docs: unknown[]): { body: string; canonical: string; docs: unknown[]; finalNewline: boolean } => (blankAges(docs), {
    body: docs.map((d) => JSON.stringify(d, null, 1)).join('\n---\n'),
    canonical: docs.map((d) => JSON.stringify(sortKeys(d), null, 1)).join('\n---\n'),
    docs,
    finalNewline,
  });
  if (/json/.test(contentType) || (!contentType && /^\s*[{[]/.test(text))) {
    try {
      return render([one(JSON.parse(text))]);
    } catch {
      // JSON lines (a watch stream): one document per line.
      try {
        return render(text.split('\n').filter((l) => l.trim()).map((l) => one(JSON.parse(l))));
      } catch {
        /* not JSON after all: compare as text */
      }
    }
  }
  let t = renameStrings(text.split(side.run).join('<run>'));
  // YAML: resourceVersion values and continue tokens.
  t = t.replace(/(resourceVersion: )"?\d+"?/g, '$1<rv>').replace(/(continue: ).+/g, '$1<continue>');
  return { body: t, canonical: t, finalNewline };
}

function sortKeys(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(sortKeys);
  if (v && typeof v === 'object') return Object.fromEntries(Object.keys(v).sort().map((k) => [k, sortKeys((v as Record<string, unknown>)[k])]));
  return v;
}

/** The first object (by path) whose keys come in a different order on the two sides. */
function firstKeyOrderDifference(a: unknown, b: unknown, path = '$'): string | undefined {
  if (Array.isArray(a) && Array.isArray(b)) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstKeyOrderDifference(a[i], b[i], `${path}[${i}]`);
      if (d) return d;
    }
    return undefined;
  }
  if (a && b && typeof a === 'object' && typeof b === 'object') {
    const ka = Object.keys(a);
    const kb = Object.keys(b);
    if (ka.join() !== kb.join()) return `${path}: reference {${ka.join(', ')}}, ours {${kb.join(', ')}}`;
    for (const k of ka) {
      const d = firstKeyOrderDifference((a as any)[k], (b as any)[k], `${path}.${k}`);
      if (d) return d;
    }
  }
  return undefined;
}

function answerOf(raw: Awaited<ReturnType<typeof send>>, step: Step, side: Side): Answer {
  if ('error' in raw) return { status: 0, contentType: '', warning: '', body: '', canonical: '', finalNewline: false, error: raw.error };
  const h = (name: string): string => {
    const v = raw.headers[name];
    return Array.isArray(v) ? v.join(', ') : (v ?? '');
  };
  const contentType = h('content-type');
  const body = step.binary ? { body: '<binary body not compared>', canonical: '', finalNewline: false } : normalizeBody(raw.text, contentType, side, step.project);
  const warning = normalizeBody(h('warning'), 'text/plain', side).body;
  return { status: raw.status, contentType, warning, ...body };
}

/** Lines of a minimal line diff (LCS), "- " reference only, "+ " ours only, up to `max` changed lines with one line of context. */
function diffLines(a: string, b: string, max: number): string[] {
  const x = a.split('\n');
  const y = b.split('\n');
  if (x.length * y.length > 4_000_000) return [`- (${x.length} lines)`, `+ (${y.length} lines)`, '  (too large to diff; see the JSON report)'];
  const n = x.length;
  const m = y.length;
  const lcs: Uint32Array[] = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && x[i] === y[j]) ops.push(`  ${x[i++]}`), j++;
    else if (j < m && (i >= n || lcs[i]![j + 1]! >= lcs[i + 1]![j]!)) ops.push(`+ ${y[j++]}`);
    else ops.push(`- ${x[i++]}`);
  }
  // A long line changed in place (a message) is shown around its first differing character.
  for (let k = 0; k + 1 < ops.length; k++) {
    const [p, q] = [ops[k]!, ops[k + 1]!];
    if (p[0] === q[0] || p.startsWith('  ') || q.startsWith('  ') || (p.length <= 200 && q.length <= 200)) continue;
    let c = 2;
    while (c < p.length && c < q.length && p[c] === q[c]) c++;
    const from = Math.max(2, c - 60);
    const clip = (l: string): string => `${l.slice(0, 2)}${from > 2 ? '…' : ''}${l.slice(from, from + 190)}`;
    ops[k] = clip(p);
    ops[k + 1] = clip(q);
    k++;
  }
  const out: string[] = [];
  let changed = 0;
  for (let k = 0; k < ops.length && changed < max; k++) {
    if (ops[k]!.startsWith('  ')) continue;
    if (k > 0 && ops[k - 1]!.startsWith('  ') && out[out.length - 1] !== ops[k - 1]) out.push(`  ${ops[k - 1]!.slice(2)}`.slice(0, 200));
    out.push(ops[k]!.slice(0, 200));
    changed++;
  }
  const total = ops.filter((o) => !o.startsWith('  ')).length;
  if (total > changed) out.push(`  … ${total - changed} more changed lines`);
  return out;
}

/**
 * What differs between two normalized bodies, as generalized paths for the "most common
 * differences" summary: array indices become [], anything under a managedFields entry's
 * fieldsV1 is one path, and each path says whether it is only in the reference, only in ours,
 * or has another value (or key order).
 */
function differencePaths(a: unknown, b: unknown, path = '$', out = new Set<string>()): Set<string> {
  if (/fieldsV1$/.test(path)) {
    if (JSON.stringify(sortKeys(a)) !== JSON.stringify(sortKeys(b))) out.add(`${path}: differs`);
    return out;
  }
  const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) out.add(`${path}: length differs`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) differencePaths(a[i], b[i], `${path}[]`, out);
  } else if (isObj(a) && isObj(b)) {
    for (const k of Object.keys(a)) if (!(k in b)) out.add(`${path}.${k}: only in reference`);
    for (const k of Object.keys(b)) if (!(k in a)) out.add(`${path}.${k}: only in ours`);
    const common = Object.keys(a).filter((k) => k in b);
    if (common.join() !== Object.keys(b).filter((k) => k in a).join()) out.add(`${path}: key order`);
    for (const k of common) differencePaths(a[k], b[k], `${path}.${k}`, out);
  } else if (JSON.stringify(a) !== JSON.stringify(b)) out.add(`${path}: value differs`);
  return out;
}

const strip = ({ canonical: _c, docs: _d, ...rest }: Answer): Omit<Answer, 'canonical' | 'docs'> => rest;

interface StepResult {
  cat: Category;
  name: string;
  request: string;
  identical: boolean;
  /** What differs: status, content-type, warning, body. */
  differs: string[];
  reference: Omit<Answer, 'canonical' | 'docs'>;
  ours: Omit<Answer, 'canonical' | 'docs'>;
  diff: string[];
  /** Generalized differences (status pair, headers, body paths) for the summary. */
  kinds: string[];
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  // One run id per side (same length, so messages quoting names compare): each side may then be
  // any cluster, even the same one (`--ours /tmp/ref/kubeconfig` checks the normalization: ~100 %).
  const hex = randomBytes(6).toString('hex');
  const run = `fid-${hex.slice(0, 6)}`;
  const ref = sideFor('reference', args.reference, run);
  let local: TestServer | undefined;
  let oursConfig = args.ours;
  if (!oursConfig) {
    local = await startTestServer({ logLevel: 'error' });
    oursConfig = join(local.dataDir, 'kubeconfig');
  }
  const ours = sideFor('ours', oursConfig, `fid-${hex.slice(6)}`);
  const steps = corpus().filter((s) => !args.only || args.only.has(s.cat) || s.name.startsWith('create namespace (') || s.name.startsWith('mark:'));
  process.stdout.write(`fidelity run ${run} / ${ours.run}: ${steps.length} requests, reference ${ref.server}, ours ${ours.server}${local ? ' (started here)' : ''}\n`);

  const results: StepResult[] = [];
  const t0 = Date.now();
  for (const [idx, step] of steps.entries()) {
    const answers: Answer[] = [];
    // Same step on both sides (sequentially: the reference is shared, and ordering matters for watches).
    for (const side of [ref, ours]) {
      const raw = await send(side, step);
      if (!('error' in raw) && step.capture) {
        let json: unknown;
        try {
          json = JSON.parse(raw.text);
        } catch {
          json = undefined;
        }
        for (const [name, path] of Object.entries(step.capture)) {
          const v = dig(json, path);
          if (typeof v === 'string' && v) side.vars.set(name, v);
        }
      }
      answers.push(answerOf(raw, step, side));
    }
    const [a, b] = answers as [Answer, Answer];
    const differs: string[] = [];
    if (a.error || b.error) differs.push('no answer');
    if (a.status !== b.status) differs.push('status');
    if (a.contentType !== b.contentType) differs.push('content-type');
    if (a.warning !== b.warning) differs.push('warning');
    if (a.body !== b.body) differs.push(a.canonical === b.canonical ? 'key order' : 'body');
    if (a.finalNewline !== b.finalNewline) differs.push('final newline');
    const diff: string[] = [];
    if (a.error || b.error) diff.push(`reference: ${a.error ?? 'answered'}; ours: ${b.error ?? 'answered'}`);
    if (a.status !== b.status) diff.push(`status: reference ${a.status}, ours ${b.status}`);
    if (a.contentType !== b.contentType) diff.push(`content-type: reference "${a.contentType}", ours "${b.contentType}"`);
    if (a.warning !== b.warning) diff.push(`warning: reference "${a.warning}", ours "${b.warning}"`);
    if (a.finalNewline !== b.finalNewline) diff.push(`final newline: reference ${a.finalNewline ? 'yes' : 'no'}, ours ${b.finalNewline ? 'yes' : 'no'}`);
    if (a.body !== b.body && a.canonical === b.canonical) diff.push(`key order only: ${firstKeyOrderDifference(a.docs, b.docs) ?? 'text'}`);
    else if (a.body !== b.body) {
      // Content first (sorted keys), so an order difference does not hide what else differs.
      diff.push(...diffLines(a.canonical, b.canonical, args.diffLines));
      const order = firstKeyOrderDifference(a.docs, b.docs);
      if (order) diff.push(`(also key order: ${order})`);
    }
    const kinds: string[] = [];
    if (a.status !== b.status) kinds.push(`status: reference ${a.status}, ours ${b.status}`);
    if (a.contentType !== b.contentType) kinds.push(`content-type: reference "${a.contentType}", ours "${b.contentType}"`);
    if (a.warning !== b.warning) kinds.push('warning header differs');
    if (a.finalNewline !== b.finalNewline) kinds.push(`final newline: reference ${a.finalNewline ? 'yes' : 'no'}, ours ${b.finalNewline ? 'yes' : 'no'}`);
    if (a.body !== b.body) {
      if (a.docs && b.docs) kinds.push(...differencePaths(a.docs.length === 1 ? a.docs[0] : a.docs, b.docs.length === 1 ? b.docs[0] : b.docs));
      else kinds.push('non-JSON body differs');
    }
    results.push({ kinds, cat: step.cat, name: step.name, request: `${step.method} ${substitute(step.path, ref).split(run).join('<run>')}${step.accept ? `  Accept: ${step.accept}` : ''}${step.contentType ? `  Content-Type: ${step.contentType}` : ''}`, identical: differs.length === 0, differs, reference: strip(a), ours: strip(b), diff });
    if (process.stdout.isTTY) process.stdout.write(`\r${idx + 1}/${steps.length}`);
  }
  if (process.stdout.isTTY) process.stdout.write('\r');
  const seconds = (Date.now() - t0) / 1000;

  // Report: mismatches grouped by category, then the per-category table (last, so it stays on screen).
  const byCat = new Map<string, StepResult[]>();
  for (const r of results) byCat.set(r.cat, [...(byCat.get(r.cat) ?? []), r]);
  for (const [cat, rs] of byCat) {
    const bad = rs.filter((r) => !r.identical);
    if (bad.length === 0) continue;
    process.stdout.write(`\n=== ${cat}: ${bad.length} of ${rs.length} differ\n`);
    for (const r of bad) {
      process.stdout.write(`\n✗ ${r.name}  [${r.differs.join(', ')}]\n  ${r.request}\n`);
      const kinds = r.kinds.join('; ');
      process.stdout.write(`  differs: ${kinds.length > 400 ? `${kinds.slice(0, 400)}…` : kinds}\n`);
      for (const l of r.diff) process.stdout.write(`    ${l}\n`);
    }
  }
  const kindCount = new Map<string, StepResult[]>();
  for (const r of results) for (const k of r.kinds) kindCount.set(k, [...(kindCount.get(k) ?? []), r]);
  const common = [...kindCount.entries()].sort((x, y) => y[1].length - x[1].length).slice(0, args.top);
  process.stdout.write(`\n=== most common differences (steps affected, of ${results.length}; $ = the body, [] = any element)\n`);
  for (const [k, rs] of common) process.stdout.write(`${String(rs.length).padStart(5)}  ${k}\n         e.g. ${rs.slice(0, 2).map((r) => `${r.cat}/${r.name}`).join('; ')}\n`);
  const pct = (n: number, d: number): string => (d ? ((100 * n) / d).toFixed(1).padStart(5) + ' %' : '    -  ');
  process.stdout.write(`\n${'category'.padEnd(12)} identical   total      %   same content*      %   (differ in: status / content / headers)\n`);
  const summary: Record<string, { identical: number; total: number; sameUpToKeyOrder: number; status: number; body: number; headers: number }> = {};
  let sameish = 0;
  let same = 0;
  for (const cat of CATEGORIES) {
    const rs = byCat.get(cat) ?? [];
    if (rs.length === 0) continue;
    const s = {
      identical: rs.filter((r) => r.identical).length,
      total: rs.length,
      status: rs.filter((r) => r.differs.includes('status')).length,
      body: rs.filter((r) => r.differs.includes('body')).length,
      sameUpToKeyOrder: rs.filter((r) => r.differs.every((d) => d === 'key order' || d === 'final newline')).length,
      headers: rs.filter((r) => r.differs.includes('content-type') || r.differs.includes('warning')).length,
    };
    summary[cat] = s;
    same += s.identical;
    sameish += s.sameUpToKeyOrder;
    process.stdout.write(`${cat.padEnd(12)} ${String(s.identical).padStart(9)} ${String(s.total).padStart(7)} ${pct(s.identical, s.total)}   ${String(s.sameUpToKeyOrder).padStart(13)} ${pct(s.sameUpToKeyOrder, s.total)}   (${s.status} / ${s.body} / ${s.headers})\n`);
  }
  process.stdout.write(`${'ALL'.padEnd(12)} ${String(same).padStart(9)} ${String(results.length).padStart(7)} ${pct(same, results.length)}   ${String(sameish).padStart(13)} ${pct(sameish, results.length)}\n`);
  process.stdout.write(`* same status, headers and body up to JSON key order and the final newline\n`);

  mkdirSync(args.out, { recursive: true });
  const file = join(args.out, `fidelity-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  writeFileSync(file, JSON.stringify({ run: { reference: run, ours: ours.run }, startedAt: new Date(t0).toISOString(), seconds, reference: ref.server, ours: ours.server, identical: same, sameUpToKeyOrder: sameish, total: results.length, fraction: results.length ? same / results.length : 0, summary, results }, null, 1) + '\n');
  process.stdout.write(`\n${results.length} requests in ${seconds.toFixed(0)} s; report: ${file}\n`);

  await Promise.all([ref.admin.close(), ref.anonymous.close(), ours.admin.close(), ours.anonymous.close()]);
  await local?.close();
}

await main();
