import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluatePolicy, parsePolicy, type AuditAttributes } from './policy.ts';
import { backupTimestamp } from './log-writer.ts';
import { microTime } from './auditor.ts';

const attrs = (o: Partial<AuditAttributes>): AuditAttributes => ({
  user: { username: 'alice', groups: ['devs', 'system:authenticated'] },
  verb: 'get',
  isResourceRequest: true,
  path: '/api/v1/namespaces/a/pods/p',
  namespace: 'a',
  group: '',
  resource: 'pods',
  subresource: '',
  name: 'p',
  ...o,
});

const policy = parsePolicy(`
apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
- level: None
  users: ["system:kube-proxy"]
- level: Request
  userGroups: ["ops"]
  omitStages: [ResponseStarted]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["pods/log", "*/status"]
- level: Metadata
  resources:
  - group: apps
    resources: ["deployments/*"]
    resourceNames: ["web"]
- level: Request
  namespaces: ["kube-system"]
- level: Metadata
  nonResourceURLs: ["/version", "/apis*"]
- level: RequestResponse
  verbs: ["delete"]
`);

test('evaluatePolicy: first matching rule wins; stages are the union with the policy', () => {
  const cases: [Partial<AuditAttributes>, string, string[]][] = [
    [{ user: { username: 'system:kube-proxy', groups: [] } }, 'None', ['RequestReceived']],
    [{ user: { username: 'bob', groups: ['ops'] } }, 'Request', ['RequestReceived', 'ResponseStarted']],
    [{ subresource: 'log' }, 'RequestResponse', ['RequestReceived']],
    [{ resource: 'services', subresource: 'status' }, 'RequestResponse', ['RequestReceived']],
    [{ group: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }, 'Metadata', ['RequestReceived']],
    // checker.go: `deployments/*` also matches the resource itself.
    [{ group: 'apps', resource: 'deployments', name: 'web' }, 'Metadata', ['RequestReceived']],
    [{ group: 'apps', resource: 'deployments', subresource: 'scale', name: 'api' }, 'None', ['RequestReceived']],
    [{ namespace: 'kube-system' }, 'Request', ['RequestReceived']],
    [{ isResourceRequest: false, path: '/version', resource: '', namespace: '', name: '' }, 'Metadata', ['RequestReceived']],
    [{ isResourceRequest: false, path: '/apis/apps/v1', resource: '', namespace: '', name: '' }, 'Metadata', ['RequestReceived']],
    [{ isResourceRequest: false, path: '/healthz', resource: '', namespace: '', name: '' }, 'None', ['RequestReceived']],
    [{ verb: 'delete' }, 'RequestResponse', ['RequestReceived']],
    [{}, 'None', ['RequestReceived']],
  ];
  cases.forEach(([a, level, stages], i) => {
    const d = evaluatePolicy(policy, attrs(a));
    assert.is(d.level, level, `case ${i}`);
    assert.equal([...d.omitStages].sort(), stages.sort(), `case ${i} stages`);
  });
});

test('parsePolicy: kube validation messages', () => {
  const bad = (rules: string, msg: string) => assert.throws(() => parsePolicy(`apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n${rules}`), (e: Error) => e.message === msg, msg);
  bad('- level: ""', 'rules[0].level: Required value');
  bad('- level: Loud', 'rules[0].level: Unsupported value: "Loud": supported values: "None", "Metadata", "Request", "RequestResponse"');
  bad('- level: None\n  nonResourceURLs: ["healthz"]', 'rules[0].nonResourceURLs[0]: Invalid value: "healthz": non-resource URL rules must begin with a \'/\' character');
  bad('- level: None\n  nonResourceURLs: ["/a*b"]', "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be the final character of the rule");
  bad('- level: None\n  omitStages: [Never]', 'rules[0].omitStages[0]: Invalid value: "Never": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic');
  assert.throws(() => parsePolicy('apiVersion: v1\nkind: ConfigMap\n'), /want kind Policy/);
});

test('timestamps: lumberjack backup names and Go MicroTime', () => {
  assert.is(backupTimestamp(new Date(Date.UTC(2026, 10, 25, 2, 47, 19, 535))), '2026-11-25T02-47-19.535');
  assert.is(microTime(Date.UTC(2026, 10, 25, 2, 47, 19, 535) + 0.071), '2026-11-25T02:47:19.535071Z');
});

test.run();
