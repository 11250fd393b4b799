/**
 * The fuzz loop: fast-check draws request plans (arbitraries.ts), each is sent to a server started
 * as a child process (so a crash is seen as one), and every answer is checked:
 * - status < 500, except the 5xx kube-apiserver 1.24.17 answers for the same input (ALLOWED_5XX,
 *   each checked on the reference);
 * - a 4xx body is a Kubernetes Status (JSON, YAML or Protobuf as negotiated) with that code;
 * - the server process is alive and answers.
 * Every `checkEvery` requests, and at the end: `/readyz` is 200, and each object the run stored
 * reads back (GET 200) and a no-op PUT of it is accepted (it passes validation as stored).
 */
import fc from 'fast-check';
import { join } from 'node:path';
import { rmSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { decodeProtobuf } from '../../internal/http/protobuf.ts';
import { spawnServer, tempDir, type ChildServer } from '../harness.ts';
import { FuzzClient, type Answer, type Sent } from './client.ts';
import { plan } from './arbitraries.ts';
import { resolve, type Resolved } from './request.ts';
import { describe, discover, gvOf, keyOf, loadSchemas, loadSeeds, prefixOf, type Model } from './model.ts';

/**
 * 5xx answers kube-apiserver 1.24.17 gives for the same input (checked on the reference), so the
 * fuzzer allows them: status, a test on the Status message, and why.
 */
export const ALLOWED_5XX: { status: number; message: RegExp; method?: string; why: string }[] = [
  { status: 500, method: 'DELETE', message: /^(protobuf: |error converting YAML to JSON: |yaml: exceeded max depth of 10000$)/, why: "a Protobuf or YAML DeleteOptions body that does not decode: kube answers a plain 500 too (its message is Go's decoder error, e.g. 'unexpected EOF', 'yaml: found unexpected end of stream')" },
  { status: 500, method: 'DELETE', message: /^no kind ".*" is registered for version ".*" in scheme "pkg\/runtime\/scheme\.go:100"$/s, why: 'a DeleteOptions body of another kind: kube answers a plain 500' },
  { status: 500, method: 'PATCH', message: /^failed to create typed patch object \(/, why: 'a server-side apply body that does not fit the schema (a field not declared, a wrong type, no kind): kube 1.24 answers a plain 500' },
  { status: 504, message: /^Timeout: request did not complete within the allotted timeout$/, why: '?timeout= shorter than the request: kube answers 504 (test/request-timeout.test.ts)' },
  { status: 500, message: /^invalid key: "/, why: 'a `.`/`..` namespace: etcd3 refuses the key with a plain 500 (test/input-paths.test.ts)' },
  { status: 500, message: /^Internal error occurred: invalid resource name "\.\.?"/, why: 'create in a `.`/`..` namespace: kube 500 (test/input-paths.test.ts)' },
  { status: 500, message: /^resourceVersion: Invalid value: ".*": strconv\.ParseUint: parsing ".*": (invalid syntax|value out of range)$/s, why: 'a resourceVersion that is not a uint64 on get/list/watch: the etcd3 store answers a plain 500' },
  { status: 504, message: /^Timeout: Too large resource version: \d+, current: \d+$/, why: 'a list at a resourceVersion ahead of the store: kube waits 3 s, then 504 ResourceVersionTooLarge' },
  { status: 500, message: /^target\.name: Required value$/, why: 'a pods/binding without target.name: kube answers a plain 500' },
  { status: 500, method: 'PATCH', message: /^unknown patch type: .* in map: map\[/s, why: 'a strategic merge patch with `$patch` other than replace/delete in a map (e.g. merge): kube 1.24.17 answers the same plain 500 (checked: {"$patch":"merge"} on a ConfigMap)' },
  { status: 500, method: 'PATCH', message: /^expected a (\[\]interface \{\}|map\[string\]interface \{\}), but received a /, why: 'a strategic merge patch directive ($setElementOrder, $retainKeys, …) of the wrong type: kube answers a plain 500' },
  { status: 500, message: /^etcdserver: request is too large$/, why: "an object over etcd's 1.5 MiB request limit (test/input-limits.test.ts)" },
  { status: 500, message: /^Internal Server Error: ".*": requested \[.*\] without impersonating a user\n$/, why: 'Impersonate-Group/-Uid/-Extra without Impersonate-User: kube answers a text/plain 500' },
  { status: 500, method: 'DELETE', message: /^couldn't get version\/kind; json parse error: /, why: 'a DeleteOptions body nested past encoding/json limits: kube 500 (test/input-depth.test.ts)' },
  { status: 500, message: /^no preferred addresses found; known addresses: \[/, why: 'nodes/<name>/proxy (and pods on it) for a Node without a usable address: kube answers a plain 500 (test/fidelity/nodes.test.ts)' },
  { status: 503, message: /^(error trying to reach service: |no endpoints available for service "|no service port \d+ found for service ")/, why: 'a proxy subresource (nodes, pods, services) whose target does not answer or does not exist: kube 503 (test/fidelity/nodes.test.ts, pod-connect.test.ts)' },
  { status: 500, message: /^(error dialing backend: |Get "https?:\/\/)/, why: "pods' exec/attach/portforward upgrade or log stream to a kubelet that does not answer: kube 500 (test/fidelity/pod-connect.test.ts)" },
  { status: 500, message: /^Component not found: /, why: "a componentstatuses name other than scheduler, controller-manager, etcd-0: kube answers 500 'Component not found: <name>' (test/fidelity/componentstatus.test.ts)" },
];

/**
 * 4xx answers that are not a Status in kube-apiserver 1.24.17 either (checked on the reference).
 * (429s are not checked: the max-inflight filter's answer is text.)
 */
export const NON_STATUS_4XX: { status: number; body: RegExp; why: string }[] = [
  { status: 400, body: /^400 Bad Request$/, why: "a request target Go's net/http cannot parse (an invalid %-escape): text/plain" },
  { status: 417, body: /^$/, why: "an Expect header other than 100-continue: Go's net/http answers 417 with an empty body" },
  { status: 404, body: /^404 page not found\n$/, why: "a path outside every API group (`/foo`, `/API/v1`, `/apis/<unknown group>`): Go's mux NotFound, text/plain" },
];

export interface FuzzOptions {
  /** Stop drawing new requests after this long. */
  ms: number;
  /** And after this many requests. */
  maxRuns: number;
  seed: number;
  /** Read-back checks every this many requests. */
  checkEvery?: number;
  log?: (line: string) => void;
  /** Requests in flight at once (default 4: each a fast-check run with its own seed). */
  concurrency?: number;
  /** Log each distinct violation and go on (exploration), instead of stopping and shrinking. */
  keepGoing?: boolean;
  /** Fuzz this server instead of starting one (a kubeconfig). */
  kubeconfig?: string;
}

export interface FuzzResult {
  requests: number;
  statuses: Record<string, number>;
  stored: number;
  readBacks: number;
  failure?: string;
  seed: number;
}

function statusOf(a: Answer): { ok: boolean; json?: any; why?: string } {
  const ct = String(a.headers['content-type'] ?? '');
  const text = a.body.toString('utf8');
  try {
    if (ct.startsWith('application/json')) return { ok: true, json: JSON.parse(text) };
    if (ct.startsWith('application/yaml')) return { ok: true, json: parseYaml(text) };
    if (ct.startsWith('application/vnd.kubernetes.protobuf')) {
      const d = decodeProtobuf(a.body);
      return { ok: true, json: { kind: d.kind, ...d.object } };
    }
  } catch (e) {
    return { ok: false, why: `unparsable ${ct}: ${(e as Error).message}` };
  }
  return { ok: false, why: `content-type ${ct || '(none)'}` };
}

/** Why this answer breaks an invariant, or undefined. */
export function violation(res: Resolved, a: Answer): string | undefined {
  if (a.status === 0) return 'no status';
  const head = res.sent.method === 'HEAD';
  if (a.status >= 500) {
    const s = statusOf(a);
    let msg = String(s.json?.message ?? a.body.toString('utf8'));
    try {
      msg = String(JSON.parse(msg).message ?? msg); // kube's 504 is a JSON Status served as text/plain
    } catch {
      // not JSON
    }
    if (!ALLOWED_5XX.some((x) => x.status === a.status && x.message.test(msg) && (!x.method || x.method === res.sent.method))) return `HTTP ${a.status}${head ? '' : `: ${msg.slice(0, 300)}`}`;
    return undefined;
  }
  if (a.status >= 400 && !head && a.status !== 429) {
    if (NON_STATUS_4XX.some((x) => x.status === a.status && x.body.test(a.body.toString('utf8')))) return undefined;
    const s = statusOf(a);
    if (!s.ok) return `HTTP ${a.status} body is not a Status (${s.why})`;
    if (s.json?.kind !== 'Status' || Number(s.json.code) !== a.status) return `HTTP ${a.status} body is not a Status with code ${a.status}`;
  }
  return undefined;
}

/** A path below its group version (`/namespaces/x/events/e`), which several group versions may serve. */
const unversioned = (p: string): string => p.replace(/^\/api\/[^/]+|^\/apis\/[^/]+\/[^/]+/, '');

const show = (a: Answer): string => {
  const ct = String(a.headers['content-type'] ?? '');
  let text = a.body.toString('utf8');
  if (ct.startsWith('application/vnd.kubernetes.protobuf')) {
    try {
      text = `(protobuf) ${JSON.stringify(decodeProtobuf(a.body).object)}`;
    } catch {
      text = `(protobuf) ${a.body.subarray(0, 300).toString('hex')}`;
    }
  }
  return `HTTP ${a.status} ${ct}\n${text.slice(0, 1500)}`;
};

export async function runFuzz(o: FuzzOptions): Promise<FuzzResult> {
  const log = o.log ?? ((l: string) => console.log(l));
  let server: ChildServer | undefined;
  let dataDir: string | undefined;
  let kubeconfig = o.kubeconfig;
  if (!kubeconfig) {
    dataDir = tempDir('fuzz-');
    server = await spawnServer(dataDir);
    kubeconfig = join(dataDir, 'kubeconfig');
  }
  const c = new FuzzClient(kubeconfig);
  const result: FuzzResult = { requests: 0, statuses: {}, stored: 0, readBacks: 0, seed: o.seed };
  try {
    const resources = await discover(c);
    const { kindSchemas, schemas } = await loadSchemas(c);
    const seeds = await loadSeeds(c, resources);
    const run = o.seed.toString(36).replace('-', 'm');
    const model: Model = { resources, kindSchemas, schemas, seeds, namespaces: [`fz-a-${run}`, `fz-b-${run}`], stored: new Map(), names: new Map() };
    log(`fuzz: seed ${o.seed}, ${resources.length} resources and subresources, ${kindSchemas.size} kind schemas, ${[...seeds.values()].reduce((n, s) => n + s.length, 0)} seed objects`);
    const ensureNamespaces = async (): Promise<void> => {
      for (const ns of model.namespaces) {
        const a = await c.send({ method: 'POST', path: '/api/v1/namespaces', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: Buffer.from(JSON.stringify({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } })) });
        if (a.status !== 201 && a.status !== 409) throw new Error(`create namespace ${ns}: ${show(a)}`);
      }
    };
    await ensureNamespaces();
    const deadline = Date.now() + o.ms;
    const checkEvery = o.checkEvery ?? 200;
    const crashed = (): string | undefined => (server && server.proc.exitCode !== null ? `server exited with ${server.proc.exitCode}:\n${server.logTail().slice(-4000)}` : undefined);

    const send = async (s: Sent): Promise<Answer> => {
      try {
        return await c.send(s);
      } catch (e) {
        await new Promise((r) => setTimeout(r, 200));
        throw new Error(`${(e as Error).message}${crashed() ? `\n${crashed()}` : ''}`);
      }
    };

    /** Book-keeping of what the server stored (for the read-back checks). */
    /** Every DELETE that succeeded: what it covers and when it was answered. */
    const deletions: { prefix: string; at: number }[] = [];
    /**
     * Whether a DELETE answered after `sentAt` (the storing request's) covers `path`: with requests in
     * flight at once, a deletecollection may take an object whose create is answered after it.
     */
    const deletedSince = (path: string, sentAt: number): boolean => {
      const q = unversioned(path);
      return deletions.some((d) => d.at >= sentAt && (q === d.prefix || q.startsWith(d.prefix + '/')));
    };
    const record = (res: Resolved, a: Answer, by: string, sentAt: number): void => {
      const { method } = res.sent;
      if (method === 'GET' || method === 'HEAD') return;
      // kube deletes before it encodes the answer: a DELETE with Accept `as=PartialObjectMetadataList`
      // takes the object and answers 406 (checked on the reference), and so does this server.
      // A DELETE answered 404 may have been sent twice: the client retries once on a kept-alive
      // socket the server reset unanswered (FuzzClient.send), and the first attempt may have
      // deleted the object (seen: the deleting event's request id differs from the 404's Audit-Id).
      if (method === 'DELETE' && (a.status < 300 || a.status === 406 || a.status === 404)) {
        // Deleted (or being deleted), the object or the collection it is in: it may be gone at the next check.
        // By the path below the group version: another version of the group (storage.k8s.io/v1beta1) or
        // another group (events.k8s.io) serves the same objects; a namespace takes what is in it.
        deletions.push({ prefix: unversioned(res.sent.path.split('?')[0].replace(/\/+$/, '')), at: Date.now() });
        return;
      }
      if (a.status >= 300 || method === 'DELETE') return;
      // A dry run stores nothing (DELETE above: a DeleteOptions body wins over the query's dryRun, as in kube).
      if (res.query.some(([k]) => k === 'dryRun')) return;
      let obj: any;
      try {
        obj = JSON.parse(a.body.toString());
      } catch {
        return;
      }
      if (!obj?.metadata?.name || !obj.kind || obj.kind === 'Status') return;
      const r = model.resources.find((x) => !x.sub && x.kind === obj.kind && gvOf(x) === obj.apiVersion);
      if (!r || !r.verbs.includes('get')) return; // create-only reviews are not stored
      const ns = r.namespaced ? obj.metadata.namespace : undefined;
      const path = `${prefixOf(r)}${ns ? `/namespaces/${encodeURIComponent(ns)}` : ''}/${r.plural}/${encodeURIComponent(obj.metadata.name)}`;
      if (!model.stored.has(path)) {
        const list = model.names.get(keyOf(r)) ?? [];
        list.push(path);
        model.names.set(keyOf(r), list);
      }
      model.stored.set(path, { by, object: obj, resource: r, sentAt });
    };

    const json = { accept: 'application/json', 'content-type': 'application/json' };
    /** /readyz, then every stored object (the last `limit`) reads back and a no-op PUT is accepted. */
    const checkState = async (limit: number): Promise<string | undefined> => {
      const ready = await send({ method: 'GET', path: '/readyz', headers: {} });
      if (ready.status !== 200) return `/readyz: ${show(ready)}`;
      for (const [path, s] of [...model.stored].slice(-limit)) {
        const g = await send({ method: 'GET', path, headers: json });
        result.readBacks++;
        if (g.status === 404) {
          // Deleted since it was stored, owned (the garbage collector), or stored while being deleted
          // (a write to a Terminating namespace: the namespace controller finalizes it later).
          const gone = deletedSince(path, s.sentAt) || s.object.metadata?.ownerReferences?.length || s.object.metadata?.deletionTimestamp;
          if (gone) {
            model.stored.delete(path);
            continue;
          }
          return `stored object lost: GET ${path}: ${show(g)}\nstored by:\n${s.by}\nrequests naming it:\n${history(path)}`;
        }
        if (g.status !== 200) return `read-back GET ${path}: ${show(g)}\nstored by:\n${s.by}`;
        if (!s.resource.verbs.includes('update')) continue;
        const current = JSON.parse(g.body.toString());
        if (current.metadata?.deletionTimestamp) continue;
        const put = await send({ method: 'PUT', path, headers: json, body: g.body });
        if (put.status === 409) continue; // changed by a controller in between
        if (put.status === 422 && hpaZeroTarget(path, put.body.toString())) continue;
        if (put.status !== 200) return `no-op PUT of a stored object refused: PUT ${path}: ${show(put)}\nobject:\n${JSON.stringify(current).slice(0, 2000)}\nstored by:\n${s.by}`;
      }
      return undefined;
    };

    /** The last requests (method, path, status), to tell what happened to an object that went missing. */
    const journal: string[] = [];
    const history = (path: string): string => {
      const name = path.split('/').pop()!;
      const covers = (l: string): boolean => unversioned(path).startsWith(unversioned(l.split(' ')[2].split('?')[0]));
      return [...journal.filter((l) => l.includes(name)).slice(-20), '(requests on a path above it:)', ...journal.filter((l) => !l.includes(name) && covers(l) && !l.startsWith('4')).slice(-10)].join('\n');
    };
    let serial = 0;
    const seen = new Set<string>();
    let chunk = 0;
    const workers = o.concurrency ?? 4;
    while (Date.now() < deadline && result.requests < o.maxRuns && !result.failure) {
      const runs = Math.max(1, Math.ceil(Math.min(checkEvery, o.maxRuns - result.requests) / workers));
      const seeds = Array.from({ length: workers }, () => (o.seed + chunk++) | 0);
      const prop = fc.asyncProperty(plan, async (p) => {
        const res = resolve(model, p, serial++);
        let a: Answer;
        const sentAt = Date.now();
        try {
          a = await send(res.sent);
        } catch (e) {
          throw new Error(`${(e as Error).message}\nrequest:\n${describe(res.sent)}`);
        }
        result.requests++;
        journal.push(`${a.status} ${res.sent.method} ${res.sent.path.slice(0, 300)}`);
        if (journal.length > 20_000) journal.splice(0, 10_000);
        result.statuses[a.status] = (result.statuses[a.status] ?? 0) + 1;
        let v = violation(res, a);
        if (v && res.sent.method === 'HEAD') {
          // A HEAD answer has no body to tell an allowed 5xx: the same request as a GET must be.
          const asGet = { ...res, sent: { ...res.sent, method: 'GET' } };
          const g = await send(asGet.sent);
          if (g.status === a.status && !violation(asGet, g)) v = undefined;
          else v += ` (the same as GET: ${show(g).slice(0, 400)})`;
        }
        if (v && o.keepGoing) {
          const sig = `${v} ${a.body.toString('utf8').slice(0, 60).replace(/"[^"]*"|\d+/g, 'N')}`;
          if (!seen.has(sig)) {
            seen.add(sig);
            log(`VIOLATION ${v}\nrequest:\n${describe(res.sent)}\nanswer:\n${show(a)}\n`);
          }
        } else if (v) throw new Error(`${v}\nrequest:\n${describe(res.sent)}\nanswer:\n${show(a)}`);
        record(res, a, describe(res.sent), sentAt);
        const dead = crashed();
        if (dead) throw new Error(`${dead}\nafter request:\n${describe(res.sent)}`);
      });
      // `workers` fast-check runs at once (watches and slow answers overlap), each with its own seed.
      const outs = await Promise.all(seeds.map((seed) => fc.check(prop, { numRuns: runs, seed, endOnFailure: false, interruptAfterTimeLimit: Math.max(1000, deadline - Date.now()), markInterruptAsFailure: false }).then((out) => ({ out, seed }))));
      // fast-check reports an interrupted run with no success as failed, without a counterexample
      // (a worker whose first request outlived the time limit, under load near the deadline): that
      // is the budget running out, not a finding.
      const failed = outs.find(({ out }) => out.failed && !(out.interrupted && out.counterexample === null));
      if (failed) {
        const { out, seed } = failed;
        result.failure = `property failed (fast-check seed ${seed}, path ${out.counterexamplePath}, after ${out.numShrinks} shrinks); the shrunk counterexample:\n${String((out.errorInstance as Error)?.message ?? out.errorInstance)}`;
        break;
      }
      await ensureNamespaces();
      const bad = await checkState(100);
      if (bad) result.failure = bad;
      log(`fuzz: ${result.requests} requests, ${model.stored.size} stored objects, statuses ${JSON.stringify(result.statuses)}`);
    }
    if (!result.failure) {
      const bad = await checkState(400);
      if (bad) result.failure = bad;
    }
    result.stored = model.stored.size;
    if (result.failure && result.failure.length > 12_000) result.failure = `${result.failure.slice(0, 12_000)}… (${result.failure.length} chars)`;
    return result;
  } finally {
    c.close();
    await server?.kill();
    if (dataDir && !result.failure) rmSync(dataDir, { recursive: true, force: true });
  }
}

/**
 * An HPA whose read-back carries the "0" kube's conversions put in a target it did not have (an
 * Object metric's value through autoscaling/v1 storage): kube 1.24 refuses its no-op PUT the same
 * way (checked on the reference), every cause a zero Quantity that `must be positive`.
 */
function hpaZeroTarget(path: string, body: string): boolean {
  if (!path.includes('/horizontalpodautoscalers/')) return false;
  const causes = (JSON.parse(body) as { details?: { causes?: { message?: string }[] } }).details?.causes ?? [];
  return causes.length > 0 && causes.every((c) => /^Invalid value: resource\.Quantity\{i:resource\.int64Amount\{value:0, scale:0\}.*: must be positive$/.test(c.message ?? ''));
}
