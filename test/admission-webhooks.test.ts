/**
 * Admission webhooks beyond what the fidelity suite compares with the reference: audit
 * annotations (`<webhook>/<key>`, kube's mutation and failed-open annotations) in the audit log,
 * the apiserver_admission_webhook_* metrics, and dry-run refusals for webhooks with side effects
 * (sideEffects Some/Unknown cannot be created through admissionregistration.k8s.io/v1 any more, so
 * those configurations are given to the dispatchers directly). All calls go to a real HTTPS
 * webhook server on loopback.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, tempDir, type TestServer } from './harness.ts';
import { startWebhookServer, patch, allow, type WebhookServer } from './webhook-server.ts';
import { mutatingWebhooks, validatingWebhooks, type WebhookLookups } from '../internal/admission/webhook/dispatch.ts';
import { webhooksOfConfiguration, type Webhook } from '../internal/admission/webhook/source.ts';
import type { AdmissionAttributes } from '../internal/admission/chain.ts';
import { configMapKind } from '../internal/registry/core/index.ts';
import { ApiError } from '../internal/api/errors.ts';
import type { KubeObject } from '../internal/api/types.ts';

const POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: Metadata
  resources:
  - group: ""
    resources: ["configmaps"]
  omitStages: ["RequestReceived"]
- level: None
`;

let dir: string;
let s: TestServer;
let wh: WebhookServer;

test.before(async () => {
  dir = tempDir();
  writeFileSync(join(dir, 'policy.yaml'), POLICY);
  s = await startTestServer({ auditLogPath: join(dir, 'audit.log'), auditPolicyFile: join(dir, 'policy.yaml') });
  wh = await startWebhookServer();
});
test.after(async () => {
  await wh.close();
  await s.close();
});

const hook = (name: string, path: string, extra: Record<string, unknown> = {}) => ({
  name,
  clientConfig: { url: `${wh.url}${path}`, caBundle: wh.caBundle },
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...extra,
});

async function auditEventFor(name: string): Promise<Record<string, any>> {
  const end = Date.now() + 5000;
  for (;;) {
    const path = join(dir, 'audit.log');
    const lines = existsSync(path) ? readFileSync(path, 'utf8').trim().split('\n').filter(Boolean) : [];
    const ev = lines.map((l) => JSON.parse(l)).find((e) => e.verb === 'create' && e.objectRef?.name === name && e.stage === 'ResponseComplete');
    if (ev) return ev;
    if (Date.now() > end) throw new Error(`no audit event for ${name}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test('audit annotations: the webhook’s own as <webhook>/<key>, mutation and failed-open records; metrics per webhook', async () => {
  wh.handle('/annotate', (rv) => patch(rv, [{ op: 'add', path: '/data', value: { x: 'y' } }], { auditAnnotations: { reason: 'looked fine', team: 'infra' } }));
  const created = await s.client.request('POST', '/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations', {
    body: {
      apiVersion: 'admissionregistration.k8s.io/v1',
      kind: 'MutatingWebhookConfiguration',
      metadata: { name: 'audit' },
      webhooks: [hook('annotate.audit.example.com', '/annotate'), hook('down.audit.example.com', '/', { clientConfig: { url: 'https://127.0.0.1:1/', caBundle: wh.caBundle }, failurePolicy: 'Ignore' })],
    },
  });
  assert.is(created.status, 201, created.text);
  const r = await s.client.request('POST', '/api/v1/namespaces/default/configmaps', { body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'audited' } } });
  assert.is(r.status, 201, r.text);
  assert.equal(r.json.data, { x: 'y' });
  const ev = await auditEventFor('audited');
  assert.is(ev.annotations['annotate.audit.example.com/reason'], 'looked fine');
  assert.is(ev.annotations['annotate.audit.example.com/team'], 'infra');
  // The same strings kube-apiserver 1.24 logs for this configuration (checked on the reference).
  assert.is(ev.annotations['mutation.webhook.admission.k8s.io/round_0_index_0'], '{"configuration":"audit","webhook":"annotate.audit.example.com","mutated":true}');
  assert.is(ev.annotations['mutation.webhook.admission.k8s.io/round_0_index_1'], '{"configuration":"audit","webhook":"down.audit.example.com","mutated":false}');
  assert.is(ev.annotations['failed-open.mutation.webhook.admission.k8s.io/round_0_index_1'], 'down.audit.example.com');

  const m = await s.client.request('GET', '/metrics', { headers: { accept: 'text/plain' } });
  const text = m.text;
  assert.ok(text.includes('apiserver_admission_webhook_request_total{code="200",name="annotate.audit.example.com",operation="CREATE",rejected="false",type="admit"} 1'), 'request_total for the good webhook');
  assert.ok(text.includes('apiserver_admission_webhook_fail_open_count{name="down.audit.example.com",type="admit"} 1'), 'fail_open_count');
  // A failed call counts with the code of kube's "error calling webhook" Status (400), as the reference reports it.
  assert.ok(text.includes('apiserver_admission_webhook_request_total{code="400",name="down.audit.example.com",operation="CREATE",rejected="false",type="admit"} 1'), 'request_total for the failed-open webhook');
  assert.ok(/apiserver_admission_webhook_admission_duration_seconds_count\{name="annotate.audit.example.com",operation="CREATE",rejected="false",type="admit"\} 1/.test(text), 'duration histogram');
  assert.ok(text.includes('# TYPE apiserver_admission_webhook_rejection_count counter'));
});

/** The lookups the dispatchers read, holding just `hooks` (configurations as stored). */
function lookups(type: 'mutating' | 'validating', hooks: Webhook[]): WebhookLookups {
  return { webhooks: (t) => (t === type ? hooks : []), namespaceLabels: () => ({}), service: () => undefined };
}

function attrs(dryRun: boolean): AdmissionAttributes {
  const object: KubeObject = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } };
  return { operation: 'CREATE', kind: configMapKind, subresource: '', namespace: 'default', name: 'c', object, oldObject: null, user: { username: 'u', groups: [] }, dryRun };
}

test('dry run: a webhook with side effects (Some, Unknown) refuses the request (400) without being called; None/NoneOnDryRun are called', async () => {
  wh.handle('/side', (rv) => allow(rv));
  for (const sideEffects of ['Some', 'Unknown', 'None', 'NoneOnDryRun']) {
    const stored = { metadata: { name: `side-${sideEffects}` }, webhooks: [{ ...hook(`side.${sideEffects.toLowerCase()}.example.com`, '/side'), sideEffects, timeoutSeconds: 5 }] } as unknown as KubeObject;
    const hooks = webhooksOfConfiguration(stored);
    for (const [type, plugin] of [
      ['mutating', (l: WebhookLookups) => mutatingWebhooks({ source: l }).admit],
      ['validating', (l: WebhookLookups) => validatingWebhooks({ source: l }).validate],
    ] as const) {
      const run = plugin(lookups(type, hooks));
      const before = wh.on('/side').length;
      const err = await Promise.resolve(run(attrs(true))).then(
        () => null,
        (e: unknown) => e,
      );
      if (sideEffects === 'Some' || sideEffects === 'Unknown') {
        assert.ok(err instanceof ApiError, `${type} ${sideEffects}: refused`);
        assert.is((err as ApiError).code, 400);
        assert.is((err as ApiError).message, `admission webhook "side.${sideEffects.toLowerCase()}.example.com" does not support dry run`);
        assert.is(wh.on('/side').length, before, `${type} ${sideEffects}: not called`);
        // The same webhook is called for a real (not dry-run) request.
        await run(attrs(false));
        assert.is(wh.on('/side').length, before + 1, `${type} ${sideEffects}: called without dry run`);
      } else {
        assert.is(err, null, `${type} ${sideEffects}: allowed`);
        assert.is(wh.on('/side').length, before + 1, `${type} ${sideEffects}: called`);
        assert.is(wh.on('/side').at(-1)!.review.request.dryRun, true);
      }
    }
  }
});

test.run();
