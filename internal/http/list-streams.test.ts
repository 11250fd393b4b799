/**
 * An unpaged Protobuf list sent while it is read (respond.ts sendProtobufListStream: measured on
 * a first pass, sent on a second) is byte for byte encodeProtobuf of the whole list, small or past
 * STREAM_AFTER_BYTES. An unpaged YAML list sent while it is read (sendYamlListStream) is byte for byte
 * kubeYaml of the whole list (what was sent before, and what kube writes: test/fidelity/lists-watch.test.ts):
 * small lists (one body with a Content-Length) and lists past STREAM_AFTER_BYTES (chunked), with
 * the scalars go-yaml treats specially — literal blocks, folding past column 80, quoting.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { kubeYaml } from './kube-yaml.ts';
import { sendYamlListStream, sendProtobufListStream, STREAM_AFTER_BYTES } from './respond.ts';
import { encodeProtobuf, encodeProtobufList } from './protobuf.ts';

const item = (i: number): Record<string, unknown> => ({
  kind: 'ConfigMap',
  apiVersion: 'v1',
  metadata: { name: `cm-${i}`, namespace: 'default', resourceVersion: String(100 + i), labels: { on: i % 2 ? 'true' : 'no' }, annotations: { long: `${'word '.repeat(30)}${i}` } },
  data: { multi: `line one\nline two\n\n  indented ${i}\n`, empty: '', num: '1.5', dash: '- x', tab: 'a\tb', colon: 'a: b' },
  binaryData: {},
  immutable: i % 3 === 0,
});

/** The body sendYamlListStream (or sendProtobufListStream) sends for `items` in batches of `batch`, and its headers. */
async function sent(items: Record<string, unknown>[], batch: number, format: 'yaml' | 'protobuf'): Promise<{ body: Buffer; headers: Headers }> {
  const server = createServer((_req, res) => {
    async function* batches(): AsyncGenerator<Buffer[]> {
      for (let i = 0; i < items.length; i += batch) yield items.slice(i, i + batch).map((o) => Buffer.from(JSON.stringify(o)));
    }
    if (format === 'yaml') void sendYamlListStream(res, 'ConfigMapList', 'v1', { resourceVersion: '999' }, batches(), async () => undefined);
    else void sendProtobufListStream(res, encodeProtobufList('v1', 'ConfigMapList', { resourceVersion: '999' }), { batches: batches(), reread: batches, close: async () => undefined });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  try {
    const r = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    return { body: Buffer.from(await r.arrayBuffer()), headers: r.headers };
  } finally {
    server.close();
  }
}

async function streamed(items: Record<string, unknown>[], batch: number): Promise<{ body: string; headers: Headers }> {
  const r = await sent(items, batch, 'yaml');
  return { body: r.body.toString('utf8'), headers: r.headers };
}

const wholeProtobuf = (items: Record<string, unknown>[]): Buffer =>
  encodeProtobuf({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '999' }, items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) });

test('Protobuf: an empty list, a small one (Content-Length) and one past STREAM_AFTER_BYTES (chunked), each encodeProtobuf of the whole list', async () => {
  for (const n of [0, 25, 3000]) {
    const items = Array.from({ length: n }, (_, i) => item(i));
    const { body, headers } = await sent(items, 500, 'protobuf');
    const want = wholeProtobuf(items);
    assert.is(headers.get('content-type'), 'application/vnd.kubernetes.protobuf');
    assert.is(headers.get('content-length'), want.length < STREAM_AFTER_BYTES ? String(want.length) : null, `${n} items`);
    assert.ok(body.equals(want), `${n} items: the same ${want.length} bytes (got ${body.length})`);
  }
});

const whole = (items: Record<string, unknown>[]): string =>
  kubeYaml({ kind: 'ConfigMapList', apiVersion: 'v1', metadata: { resourceVersion: '999' }, items: items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest) });

test('an empty list: items: []', async () => {
  const { body, headers } = await streamed([], 10);
  assert.is(body, whole([]));
  assert.ok(headers.get('content-length'));
  assert.is(headers.get('content-type'), 'application/yaml');
});

test('a small list: one body with a Content-Length, as kubeYaml of the whole list', async () => {
  const items = Array.from({ length: 25 }, (_, i) => item(i));
  const { body, headers } = await streamed(items, 7);
  assert.is(body, whole(items));
  assert.ok(headers.get('content-length'));
});

test('a list past STREAM_AFTER_BYTES: chunked, byte for byte kubeYaml of the whole list', async () => {
  const items = Array.from({ length: 3000 }, (_, i) => item(i));
  const { body, headers } = await streamed(items, 500);
  const want = whole(items);
  assert.ok(want.length > STREAM_AFTER_BYTES, `${want.length} bytes`);
  assert.is(headers.get('content-length'), null, 'sent chunked');
  assert.ok(body === want, 'the same bytes');
});

test.run();
