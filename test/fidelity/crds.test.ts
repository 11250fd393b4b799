/**
 * CustomResourceDefinition (apiextensions.k8s.io/v1): create/get/list/update with kube's
 * defaults, generation and status reset; validation with kube's whole messages; the status the
 * apiextensions controllers set (acceptedNames, NamesAccepted, Established, storedVersions); name
 * conflicts between CRDs of a group; v1beta1 answered as 1.24 (404, not in discovery); the
 * default Table; delete with the cleanup finalizer and Terminating condition, which deletes the
 * CRD's custom resources and then the CRD. Runs on both targets.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { startTarget, type Target } from '../target.ts';
import { eventually, type Client, type HttpResult } from '../harness.ts';

let t: Target;
let c: Client;
let group: string;
let ns: string;

const CRDS = '/apis/apiextensions.k8s.io/v1/customresourcedefinitions';
const TABLE = 'application/json;as=Table;v=v1;g=meta.k8s.io';
const show = (r: HttpResult): string => `HTTP ${r.status}: ${r.text.slice(0, 800)}`;
const made: string[] = [];

const crd = (plural: string, kind: string, extra: { names?: Record<string, unknown>; spec?: Record<string, unknown>; name?: string } = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: extra.name ?? `${plural}.${group}` },
  spec: {
    group,
    names: { plural, kind, ...extra.names },
    scope: 'Namespaced',
    versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } } }],
    ...extra.spec,
  },
});

async function create(body: ReturnType<typeof crd>): Promise<HttpResult> {
  const r = await c.request('POST', CRDS, { body });
  if (r.status === 201) made.push(body.metadata.name);
  return r;
}

const condition = (o: any, type: string): any => (o.status?.conditions ?? []).find((x: any) => x.type === type);
const conds = (o: any): Record<string, [string, string, string]> =>
  Object.fromEntries((o.status?.conditions ?? []).map((x: any) => [x.type, [x.status, x.reason, x.message]]));

/** Wait until the CRD's conditions settle on `want` (type → [status, reason, message]); answer the CRD. */
async function settled(name: string, want: Record<string, [string, string, string]>): Promise<any> {
  let last: any;
  await eventually(`${name} conditions ${JSON.stringify(want)}`, async () => {
    last = (await c.request('GET', `${CRDS}/${name}`)).json;
    const have = conds(last);
    return Object.entries(want).every(([k, v]) => JSON.stringify(have[k]) === JSON.stringify(v));
  }, 15_000, () => console.error(JSON.stringify(last?.status)));
  return last;
}

const ACCEPTED: [string, string, string] = ['True', 'NoConflicts', 'no conflicts found'];
const ESTABLISHED: [string, string, string] = ['True', 'InitialNamesAccepted', 'the initial names have been accepted'];

test.before(async () => {
  t = await startTarget();
  c = t.client;
  group = `${t.ns('crd')}.example.com`;
  ns = await t.createNamespace('crds');
});

test.after(async () => {
  for (const name of made) await c.request('DELETE', `${CRDS}/${name}`);
  await c.request('DELETE', `/api/v1/namespaces/${ns}`);
  await t.close();
});

test('create: defaults, generation 1, status reset to storedVersions; then NamesAccepted and Established', async () => {
  const body = crd('widgets', 'Widget', { names: { shortNames: ['wd'] } });
  (body as any).status = { acceptedNames: { plural: 'x', kind: 'X' }, storedVersions: ['v9'] };
  const r = await create(body);
  assert.is(r.status, 201, show(r));
  assert.is(r.json.metadata.generation, 1);
  assert.equal(r.json.spec.names, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  assert.equal(r.json.spec.conversion, { strategy: 'None' });
  assert.equal(r.json.status, { conditions: null, acceptedNames: { plural: '', kind: '' }, storedVersions: ['v1'] });
  const got = await settled(`widgets.${group}`, { NamesAccepted: ACCEPTED, Established: ESTABLISHED });
  assert.equal(got.status.acceptedNames, { plural: 'widgets', singular: 'widget', shortNames: ['wd'], kind: 'Widget', listKind: 'WidgetList' });
  assert.equal(got.status.storedVersions, ['v1']);
  assert.match(condition(got, 'Established').lastTransitionTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);

  // Served once Established: discovery, and its custom resources.
  await eventually('the group served', async () => (await c.request('GET', `/apis/${group}/v1`)).status === 200);
  const disc = await c.request('GET', `/apis/${group}/v1`);
  assert.equal(
    disc.json.resources.map((x: any) => [x.name, x.kind, x.namespaced, x.shortNames]),
    [['widgets', 'Widget', true, ['wd']]],
  );
  const cr = await c.request('POST', `/apis/${group}/v1/namespaces/${ns}/widgets`, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w1' }, spec: { size: 1 } } });
  assert.is(cr.status, 201, show(cr));
  const list = await c.request('GET', `/apis/${group}/v1/widgets`);
  assert.is(list.json.kind, 'WidgetList');
  assert.equal(list.json.items.map((x: any) => x.metadata.name), ['w1']);
});

test('get, list (kind, apiVersion), update: generation counts spec changes, status kept', async () => {
  const name = `widgets.${group}`;
  const got = await c.request('GET', `${CRDS}/${name}`);
  assert.is(got.status, 200, show(got));
  assert.is(got.json.kind, 'CustomResourceDefinition');
  assert.is(got.json.apiVersion, 'apiextensions.k8s.io/v1');
  const list = await c.request('GET', CRDS);
  assert.is(list.status, 200, show(list));
  assert.is(list.json.kind, 'CustomResourceDefinitionList');
  assert.ok(list.json.items.some((x: any) => x.metadata.name === name));

  // Metadata only: generation stays; a status in the body is ignored.
  const labelled = { ...got.json, metadata: { ...got.json.metadata, labels: { a: 'b' } }, status: { ...got.json.status, storedVersions: ['v1', 'v2'] } };
  const u1 = await c.request('PUT', `${CRDS}/${name}`, { body: labelled });
  assert.is(u1.status, 200, show(u1));
  assert.is(u1.json.metadata.generation, 1);
  assert.equal(u1.json.status.storedVersions, ['v1']);
  // A spec change: generation 2.
  const changed = { ...u1.json, spec: { ...u1.json.spec, names: { ...u1.json.spec.names, categories: ['all-widgets'] } } };
  const u2 = await c.request('PUT', `${CRDS}/${name}`, { body: changed });
  assert.is(u2.status, 200, show(u2));
  assert.is(u2.json.metadata.generation, 2);
  const again = await settled(name, { NamesAccepted: ACCEPTED, Established: ESTABLISHED });
  await eventually('categories accepted', async () => JSON.stringify((await c.request('GET', `${CRDS}/${name}`)).json.status.acceptedNames.categories) === '["all-widgets"]');
  assert.ok(again);
  // Immutable: the group and the plural (the object's name is not checked again on update).
  const cur = (await c.request('GET', `${CRDS}/${name}`)).json;
  const moved = { ...cur, spec: { ...cur.spec, names: { ...cur.spec.names, plural: 'gadgets' } } };
  const u3 = await c.request('PUT', `${CRDS}/${name}`, { body: moved });
  assert.is(u3.status, 422, show(u3));
  assert.is(
    u3.json.message,
    `CustomResourceDefinition.apiextensions.k8s.io "${name}" is invalid: spec.names.plural: Invalid value: "gadgets": field is immutable`,
  );
});


/** Invalid CRDs (posted with dryRun=All, in a fixed group so the messages are literal) and kube 1.24.17's whole messages. */
const P = 'probe.example.com';
const probe = (o: Record<string, unknown> = {}) => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `widgets.${P}` },
  spec: { group: P, names: { plural: 'widgets', kind: 'Widget' }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object' } } }], ...o },
});
const objectSchema = { openAPIV3Schema: { type: 'object' } };
const INVALID: Record<string, unknown> = {
  wrongName: { ...probe(), metadata: { name: `gadgets.${P}` } },
  noStorage: probe({ versions: [{ name: 'v1', served: true, storage: false, schema: objectSchema }] }),
  twoStorage: probe({ versions: [{ name: 'v1', served: true, storage: true, schema: objectSchema }, { name: 'v2', served: true, storage: true, schema: objectSchema }] }),
  badGroup: { ...probe({ group: 'probe' }), metadata: { name: 'widgets.probe' } },
  badScope: probe({ scope: 'Global' }),
  badKind: probe({ names: { plural: 'widgets', kind: 'Wid_get', shortNames: ['W'], categories: ['a b'] } }),
  sameListKind: probe({ names: { plural: 'widgets', kind: 'Widget', listKind: 'Widget' } }),
  noSchema: probe({ versions: [{ name: 'v1', served: true, storage: true }] }),
  badSchema: probe({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { spec: { properties: { x: { type: 'string' } } } } } } }] }),
  twoSchemas: probe({ versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: { type: 'object', properties: { a: {} } } } }, { name: 'v2', served: true, storage: false, schema: { openAPIV3Schema: { type: 'string' } } }] }),
  deprecation: probe({ versions: [{ name: 'v1', served: true, storage: true, deprecationWarning: 'x', schema: objectSchema }] }),
  deprecationEmpty: probe({ versions: [{ name: 'v1', served: true, storage: true, deprecated: true, deprecationWarning: '', schema: objectSchema }] }),
  badVersion: probe({ versions: [{ name: 'V1', served: true, storage: true, schema: objectSchema }] }),
  dupVersion: probe({ versions: [{ name: 'v1', served: true, storage: true, schema: objectSchema }, { name: 'v1', served: true, storage: false, schema: objectSchema }] }),
  webhookNoConfig: probe({ conversion: { strategy: 'Webhook' } }),
  webhookNoVersions: probe({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'https://x.example.com/c' } } } }),
  noneWithWebhook: probe({ conversion: { strategy: 'None', webhook: { clientConfig: { url: 'https://x.example.com/c' }, conversionReviewVersions: ['v1'] } } }),
  badStrategy: probe({ conversion: { strategy: 'Magic' } }),
  webhookHttpUrl: probe({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { url: 'http://x.example.com/c' }, conversionReviewVersions: ['v1'] } } }),
  webhookService: probe({ conversion: { strategy: 'Webhook', webhook: { clientConfig: { service: { name: 'svc', namespace: '', path: 'x', port: 70000 } }, conversionReviewVersions: ['v3', 'v3'] } } }),
  missingNames: { ...probe({ names: {} }), metadata: { name: `x.${P}` } },
  approvalMissing: { ...probe({ group: 'x.k8s.io' }), metadata: { name: 'widgets.x.k8s.io' } },
  approvalInvalid: { ...probe({ group: 'x.kubernetes.io' }), metadata: { name: 'widgets.x.kubernetes.io', annotations: { 'api-approved.kubernetes.io': 'maybe' } } },
  preserveTrue: probe({ preserveUnknownFields: true }),
};

/** Valid with dryRun=All: a protected group with an approval URL or an "unapproved" reason. */
const VALID: Record<string, unknown> = {
  approvalBypassed: { ...probe({ group: 'x.k8s.io' }), metadata: { name: 'widgets.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'unapproved, testing' } } },
  approvalUrl: { ...probe({ group: 'x.k8s.io' }), metadata: { name: 'widgets.x.k8s.io', annotations: { 'api-approved.kubernetes.io': 'https://github.com/kubernetes/kubernetes/pull/1' } } },
};
const EXPECTED: Record<string, string> = {
  approvalMissing: 'CustomResourceDefinition.apiextensions.k8s.io "widgets.x.k8s.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Required value: protected groups must have approval annotation "api-approved.kubernetes.io", see https://github.com/kubernetes/enhancements/pull/1111',
  approvalInvalid: 'CustomResourceDefinition.apiextensions.k8s.io "widgets.x.kubernetes.io" is invalid: metadata.annotations[api-approved.kubernetes.io]: Invalid value: "maybe": protected groups must have approval annotation "api-approved.kubernetes.io" with either a URL or a reason starting with "unapproved", see https://github.com/kubernetes/enhancements/pull/1111',
  preserveTrue: 'CustomResourceDefinition.apiextensions.k8s.io "widgets.probe.example.com" is invalid: spec.preserveUnknownFields: Invalid value: true: cannot set to true, set x-preserve-unknown-fields to true in spec.versions[*].schema instead',
  webhookHttpUrl: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.conversion.webhookClientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
  webhookService: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.conversion.webhookClientConfig.service.name: Required value: service name is required, spec.conversion.webhookClientConfig.service.port: Invalid value: 70000: port is not valid: must be between 1 and 65535, inclusive, spec.conversion.webhookClientConfig.service.path: Invalid value: \"x\": must start with a '/', spec.conversion.webhookClientConfig.service.path: Invalid value: \"x\": segment[0] may not be empty, spec.conversion.conversionReviewVersions[1]: Invalid value: \"v3\": duplicate version, spec.conversion.conversionReviewVersions: Invalid value: []string{\"v3\", \"v3\"}: must include at least one of v1, v1beta1]",
  wrongName: "CustomResourceDefinition.apiextensions.k8s.io \"gadgets.probe.example.com\" is invalid: metadata.name: Invalid value: \"gadgets.probe.example.com\": must be spec.names.plural+\".\"+spec.group",
  noStorage: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}}: must have exactly one version marked as storage version, status.storedVersions: Invalid value: []string(nil): must have at least one stored version]",
  twoStorage: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}, apiextensions.CustomResourceDefinitionVersion{Name:\"v2\", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}}: must have exactly one version marked as storage version, status.storedVersions: Invalid value: apiextensions.CustomResourceDefinitionVersion{Name:\"v2\", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}: must have the storage version v2]",
  badGroup: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe\" is invalid: spec.group: Invalid value: \"probe\": should be a domain with at least one dot",
  badScope: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.scope: Unsupported value: \"Global\": supported values: \"Cluster\", \"Namespaced\"",
  badKind: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.names.singular: Invalid value: \"wid_get\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.names.kind: Invalid value: \"Wid_get\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.names.listKind: Invalid value: \"Wid_getList\": may have mixed case, but should otherwise match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.names.shortNames[0]: Invalid value: \"W\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.names.categories[0]: Invalid value: \"a b\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]",
  sameListKind: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.names.listKind: Invalid value: \"Widget\": kind and listKind may not be the same",
  noSchema: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.versions[0].schema.openAPIV3Schema: Required value: schemas are required",
  badSchema: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.validation.openAPIV3Schema.properties[spec].type: Required value: must not be empty for specified object fields",
  twoSchemas: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.versions[0].schema.openAPIV3Schema.properties[a].type: Required value: must not be empty for specified object fields, spec.versions[1].schema.openAPIV3Schema.type: Invalid value: \"string\": must be object at the root]",
  deprecation: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.versions[0].deprecationWarning: Invalid value: \"x\": can only be set for deprecated versions",
  deprecationEmpty: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.versions[0].deprecationWarning: Invalid value: \"\": must not be an empty string",
  badVersion: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.versions[0].name: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?'), spec.version: Invalid value: \"V1\": a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')]",
  dupVersion: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.versions: Invalid value: []apiextensions.CustomResourceDefinitionVersion{apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, Storage:true, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}, apiextensions.CustomResourceDefinitionVersion{Name:\"v1\", Served:true, Storage:false, Deprecated:false, DeprecationWarning:(*string)(nil), Schema:(*apiextensions.CustomResourceValidation)(nil), Subresources:(*apiextensions.CustomResourceSubresources)(nil), AdditionalPrinterColumns:[]apiextensions.CustomResourceColumnDefinition(nil)}}: must contain unique version names",
  webhookNoConfig: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.conversion.webhookClientConfig: Required value: required when strategy is set to Webhook, spec.conversion.conversionReviewVersions: Required value]",
  webhookNoVersions: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.conversion.conversionReviewVersions: Required value",
  noneWithWebhook: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: [spec.conversion.webhookClientConfig: Forbidden: should not be set when strategy is not set to Webhook, spec.conversion.conversionReviewVersions: Forbidden: should not be set when strategy is not set to Webhook]",
  badStrategy: "CustomResourceDefinition.apiextensions.k8s.io \"widgets.probe.example.com\" is invalid: spec.conversion.strategy: Unsupported value: \"Magic\": supported values: \"None\", \"Webhook\"",
  missingNames: "CustomResourceDefinition.apiextensions.k8s.io \"x.probe.example.com\" is invalid: [metadata.name: Invalid value: \"x.probe.example.com\": must be spec.names.plural+\".\"+spec.group, spec.names.plural: Required value, spec.names.singular: Required value, spec.names.kind: Required value, spec.names.listKind: Required value]",
};

test('validation: names, scope, versions, storage version, schema, deprecationWarning, conversion (kube\'s messages)', async () => {
  for (const [name, body] of Object.entries(INVALID)) {
    const r = await c.request('POST', `${CRDS}?dryRun=All`, { body });
    assert.is(r.status, 422, `${name}: ${show(r)}`);
    assert.is(r.json.reason, 'Invalid', name);
    assert.is(r.json.message, EXPECTED[name], name);
  }
  for (const [name, body] of Object.entries(VALID)) {
    const r = await c.request('POST', `${CRDS}?dryRun=All`, { body });
    assert.is(r.status, 201, `${name}: ${show(r)}`);
  }
});

test('patch: merge and strategic merge on the CRD; /status writes keep the spec (metadata changes, as in kube 1.24)', async () => {
  const name = `widgets.${group}`;
  const merge = await c.request('PATCH', `${CRDS}/${name}`, { raw: JSON.stringify({ metadata: { annotations: { note: 'm' } } }), contentType: 'application/merge-patch+json' });
  assert.is(merge.status, 200, show(merge));
  assert.is(merge.json.metadata.annotations.note, 'm');
  // spec.versions has no merge key: a strategic merge patch replaces the list (kube's Go types).
  const partial = await c.request('PATCH', `${CRDS}/${name}`, { raw: JSON.stringify({ spec: { versions: [{ name: 'v1', deprecated: true, deprecationWarning: 'use v2' }] } }), contentType: 'application/strategic-merge-patch+json' });
  assert.is(partial.status, 422, show(partial));
  assert.match(partial.json.message, /^CustomResourceDefinition.apiextensions.k8s.io "[^"]+" is invalid: \[spec.versions\[0\].schema.openAPIV3Schema: Required value: schemas are required, spec.versions: Invalid value: .*: must have exactly one version marked as storage version\]$/);
  const v1 = { ...merge.json.spec.versions[0], deprecated: true, deprecationWarning: 'use v2' };
  const smp = await c.request('PATCH', `${CRDS}/${name}`, { raw: JSON.stringify({ spec: { versions: [v1] } }), contentType: 'application/strategic-merge-patch+json' });
  assert.is(smp.status, 200, show(smp));
  assert.equal(smp.json.spec.versions.map((v: any) => [v.name, v.storage, v.deprecated, v.deprecationWarning]), [['v1', true, true, 'use v2']]);
  const before = smp.json;
  const st = await c.request('PATCH', `${CRDS}/${name}/status`, {
    raw: JSON.stringify({ metadata: { labels: { ignored: 'yes' } }, spec: { scope: 'Cluster' }, status: { storedVersions: ['v1'] } }),
    contentType: 'application/merge-patch+json',
  });
  assert.is(st.status, 200, show(st));
  assert.is(st.json.spec.scope, 'Namespaced');
  assert.equal(st.json.metadata.labels, { ...before.metadata.labels, ignored: 'yes' });
  assert.is(st.json.metadata.generation, before.metadata.generation);
});

test('name conflicts within a group: the second CRD is refused the names the first accepted', async () => {
  // Another plural, the same kind (so the same defaulted singular and listKind): the last conflict
  // found names the condition; only the free plural is accepted; not Established.
  const r = await create(crd('gizmos', 'Widget'));
  assert.is(r.status, 201, show(r));
  const got = await settled(`gizmos.${group}`, {
    NamesAccepted: ['False', 'ListKindConflict', '"WidgetList" is already in use'],
    Established: ['False', 'NotAccepted', 'not all names are accepted'],
  });
  assert.equal(got.status.acceptedNames, { plural: 'gizmos', kind: '' });
  // A short name taken as the other CRD's plural: ShortNamesConflict.
  const s = await create(crd('sprockets', 'Sprocket', { names: { shortNames: ['widgets'] } }));
  assert.is(s.status, 201, show(s));
  await settled(`sprockets.${group}`, { NamesAccepted: ['False', 'ShortNamesConflict', '"widgets" is already in use'] });
  // Never Established: not served; deleted at once (NeverEstablished: nothing to clean up).
  assert.is((await c.request('GET', `/apis/${group}/v1/gizmos`)).status, 404);
  const d = await c.request('DELETE', `${CRDS}/sprockets.${group}`);
  assert.is(d.status, 200, show(d));
  await eventually('sprockets gone', async () => (await c.request('GET', `${CRDS}/sprockets.${group}`)).status === 404);
});

test('v1beta1 is not served (removed in 1.22): 404, and discovery lists v1 only', async () => {
  const r = await c.request('GET', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions');
  assert.is(r.status, 404, show(r));
  const g = await c.request('GET', '/apis/apiextensions.k8s.io');
  assert.equal(g.json.versions, [{ groupVersion: 'apiextensions.k8s.io/v1', version: 'v1' }]);
  const post = await c.request('POST', '/apis/apiextensions.k8s.io/v1beta1/customresourcedefinitions', { body: { ...crd('things', 'Thing'), apiVersion: 'apiextensions.k8s.io/v1beta1' } });
  assert.is(post.status, 404, show(post));
});

test('Table: kube\'s default columns (Name, Created At)', async () => {
  const r = await c.request('GET', `${CRDS}/widgets.${group}`, { headers: { accept: TABLE } });
  assert.is(r.status, 200, show(r));
  assert.equal(r.json.columnDefinitions.map((x: any) => [x.name, x.type, x.format]), [['Name', 'string', 'name'], ['Created At', 'date', '']]);
  assert.is(r.json.rows[0].cells[0], `widgets.${group}`);
  assert.match(r.json.rows[0].cells[1], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test('delete: Terminating + cleanup finalizer, custom resources deleted, then the CRD', async () => {
  const name = `widgets.${group}`;
  const base = `/apis/${group}/v1/namespaces/${ns}/widgets`;
  const cr = await c.request('POST', base, { body: { apiVersion: `${group}/v1`, kind: 'Widget', metadata: { name: 'w2' } } });
  assert.is(cr.status, 201, show(cr));
  const del = await c.request('DELETE', `${CRDS}/${name}`);
  assert.is(del.status, 200, show(del));
  assert.is(del.json.kind, 'CustomResourceDefinition');
  assert.ok(del.json.metadata.deletionTimestamp);
  assert.equal(del.json.metadata.finalizers, ['customresourcecleanup.apiextensions.k8s.io']);
  assert.equal(conds(del.json).Terminating, ['True', 'InstanceDeletionPending', 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon']);
  await eventually('the CRD gone', async () => (await c.request('GET', `${CRDS}/${name}`)).status === 404, 30_000);
  await eventually('its kind gone', async () => (await c.request('GET', `/apis/${group}/v1/widgets`)).status === 404, 30_000);
  // The names it held are free again: the conflicting CRD of the group takes them.
  await settled(`gizmos.${group}`, { NamesAccepted: ACCEPTED, Established: ESTABLISHED });
  // A CRD created again under the same name finds none of the old objects.
  const again = await create(crd('widgets', 'Doohickey'));
  assert.is(again.status, 201, show(again));
  await settled(name, { Established: ESTABLISHED });
  await eventually('served again', async () => (await c.request('GET', `/apis/${group}/v1/widgets`)).status === 200);
  const list = await c.request('GET', `/apis/${group}/v1/widgets`);
  assert.equal(list.json.items, []);
});

test.run();
