/**
 * Secrets at rest in Kafka mode, against a real broker: two API replicas given the same
 * `--encryption-provider-config`; a Secret written through one is read and watched through the
 * other (the fold copies the writer's ciphertext, so replicas agree without re-encrypting). The
 * topic's segment files on the broker's disk, a materializer checkpoint (the materializer runs
 * WITHOUT the file: it only folds and copies ciphertext) and every replica's data dir are searched
 * byte for byte: no value in clear or base64, while a ConfigMap's value is found. A replica
 * bootstrapped from that checkpoint reads the Secret; one started without the file cannot, and
 * says why; `replay verify` of a stopped replica against the topic passes with the file.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { startKafka, type KafkaCluster } from './broker.ts';
import { replicaSet, setup, stopAll, openWatch, type Replica, type ReplicaSet } from './replicas.ts';
import { tempDir } from '../harness.ts';
import { ok } from '../assertions.ts';

const ROOT = new URL('../..', import.meta.url).pathname;
const TOPIC = 'kube-enc';
const SECRETS = '/api/v1/namespaces/default/secrets';
let kafka: KafkaCluster;
let set: ReplicaSet;
const replicas: Replica[] = [];
const config = join(tempDir('kafka-enc-'), 'encryption.yaml');
writeFileSync(config, `apiVersion: apiserver.config.k8s.io/v1
kind: EncryptionConfiguration
resources:
- resources: [secrets]
  providers:
  - aesgcm:
      keys:
      - name: key1
        secret: ${randomBytes(32).toString('base64')}
  - identity: {}
`);
// Random letters only (no word snappy or Kafka could compress against another occurrence).
const distinctive = (): string => randomBytes(30).toString('base64url');
const b64 = (s: string): string => Buffer.from(s).toString('base64');

function files(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir)) {
    const p = join(dir, e);
    const s = statSync(p);
    if (s.isDirectory()) out.push(...files(p));
    else if (s.isFile()) out.push(p);
  }
  return out;
}
/**
 * Whether `bytes` hold `needle` in clear, even inside a compressed LevelDB table: snappy may replace
 * any 4+ bytes of it with a back-reference, so any 12-character window of it counts (for a random
 * needle, 12 characters of base64 turning up by chance is ~2^-72 per position).
 */
function holds(bytes: Buffer, needle: string): boolean {
  for (let i = 0; i + 12 <= needle.length; i += 4) if (bytes.includes(needle.slice(i, i + 12))) return true;
  return needle.length < 12 && bytes.includes(needle);
}

/** The files whose raw bytes hold any of `needles`. */
function grep(dir: string, needles: string[]): string[] {
  const hits: string[] = [];
  for (const f of files(dir)) {
    const bytes = readFileSync(f);
    for (const n of needles) if (holds(bytes, n)) hits.push(`${f.slice(dir.length + 1)}: ${n}`);
  }
  return hits;
}

function run(args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, ['--import', 'tsx', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (c: Buffer) => (out += c));
    p.stderr.on('data', (c: Buffer) => (err += c));
    p.on('exit', (code) => resolve({ code, out, err }));
  });
}

test.before(() => setup(async () => {
  kafka = await startKafka({ brokers: 1 });
  set = replicaSet(kafka.bootstrap, TOPIC);
  replicas.push(await set.start(undefined, 0, ['--encryption-provider-config', config]), await set.start(undefined, 0, ['--encryption-provider-config', config]));
}));

test.after(() => stopAll(replicas, kafka));

test('topic, checkpoint and replicas hold ciphertext only; replicas with the file read and watch the value', async () => {
  const [a, b] = replicas;
  const VALUE = distinctive();
  const CONTROL = distinctive();
  const watch = await openWatch(b.server.url, set.pkiDir, `${SECRETS}?watch=1&fieldSelector=metadata.name%3Dtop`);
  try {
    const created = await ok(a.client.request('POST', SECRETS, { body: { metadata: { name: 'top' }, data: { password: b64(VALUE) } } }), 201, 'create on a');
    assert.is(created.data.password, b64(VALUE));
    await ok(a.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: { metadata: { name: 'control' }, data: { v: CONTROL } } }), 201, 'control');
    // Replica b folded a's ciphertext and decrypts it with the same file.
    const read = await ok(b.client.request('GET', `${SECRETS}/top`), 200, 'get on b');
    assert.is(read.data.password, b64(VALUE));
    assert.is(read.metadata.resourceVersion, created.metadata.resourceVersion);
    const events = await watch.waitFor(1);
    assert.is(events[0].type, 'ADDED');
    assert.is(events[0].object.data.password, b64(VALUE));
  } finally {
    await watch.close();
  }

  // The topic on the broker's disk (segment files of the partition).
  const segments = join(kafka.logDir, 'node-0', 'data');
  assert.equal(grep(segments, [VALUE, b64(VALUE)]), [], 'the topic holds ciphertext only');
  assert.ok(grep(segments, [CONTROL]).length > 0, 'the search sees the topic\'s records');

  // A checkpoint by a materializer that has no keys.
  const checkpoints = tempDir('kafka-enc-checkpoints-');
  const mat = await run(['cmd/materializer.ts', '--log', set.log, '--data-dir', join(tempDir('kafka-enc-mat-'), 'm'), '--checkpoint-dir', checkpoints, '--once', '--log-level', 'warn']);
  assert.is(mat.code, 0, mat.err);
  assert.equal(grep(checkpoints, [VALUE, b64(VALUE)]), [], 'the checkpoint holds ciphertext only');
  assert.ok(grep(checkpoints, [CONTROL]).length > 0, 'the search sees the checkpoint\'s values');

  // A replica bootstrapped from the checkpoint, with the file, reads the Secret.
  const fresh = await set.start(undefined, 0, ['--checkpoint-dir', checkpoints, '--encryption-provider-config', config]);
  replicas.push(fresh);
  assert.is((await ok(fresh.client.request('GET', `${SECRETS}/top`), 200, 'get on the bootstrapped replica')).data.password, b64(VALUE));

  // A replica without the file folds the same log but cannot read the value, and says why.
  const blind = await set.start();
  replicas.push(blind);
  const r = await blind.client.request('GET', `${SECRETS}/top`);
  assert.is(r.status, 500);
  assert.match(r.json.message, 'is encrypted at rest, but no --encryption-provider-config provider is configured');
  assert.not.match(r.text, b64(VALUE));

  // Stopped replicas' data dirs: ciphertext only; the live store equals a rebuild of the topic.
  for (const rep of [a, b]) await rep.server.kill();
  for (const rep of [a, b]) assert.equal(grep(rep.dataDir, [VALUE, b64(VALUE)]), [], `${rep.dataDir}`);
  const v = await run(['cmd/replay.ts', 'verify', '--log', set.log, '--data-dir', b.dataDir, '--output', 'json', '--encryption-provider-config', config]);
  assert.is(v.code, 0, `${v.out}\n${v.err}`);
  assert.is(JSON.parse(v.out).equal, true);
});

test.run();
