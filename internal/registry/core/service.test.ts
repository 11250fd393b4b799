import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../../api/types.ts';
import { check, type Want } from './testing.ts';
import { serviceKind, defaultService, validateService, validateServiceUpdate, kubernetesServiceIP, serviceTable } from './service.ts';

const S = serviceKind.strategy;
const svc = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'default' }, spec });
const defaulted = (spec: Record<string, unknown>): KubeObject => {
  const o = svc(spec);
  defaultService(o);
  return o;
};

test('descriptor: names, scope, short names, category, proxy and status subresources', () => {
  assert.is(serviceKind.resource, 'services');
  assert.equal(serviceKind.shortNames, ['svc']);
  assert.equal(serviceKind.categories, ['all']);
  assert.is(serviceKind.nameFormat, 'dns1035');
  assert.equal(serviceKind.subresources!.map((s) => s.name), ['proxy', 'status']);
  assert.is(serviceKind.deleteReturns, 'Object');
  assert.ok(S.allowCreateOnUpdate);
  assert.is(kubernetesServiceIP(), '10.0.0.1');
  assert.is(kubernetesServiceIP('10.96.0.0/12'), '10.96.0.1');
  assert.is(kubernetesServiceIP('fd00:10::/108'), 'fd00:10::1');
});

test('SetDefaults_Service', () => {
  const cases: [Record<string, unknown>, Record<string, unknown>][] = [
    [{ ports: [{ port: 80 }] }, { ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster' }],
    [
      { type: 'NodePort', ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }] },
      { type: 'NodePort', ports: [{ port: 53, protocol: 'UDP', targetPort: 'dns' }], sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster' },
    ],
    [
      { type: 'LoadBalancer', ports: [{ port: 80, targetPort: 0 }] },
      { type: 'LoadBalancer', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }], sessionAffinity: 'None', externalTrafficPolicy: 'Cluster', internalTrafficPolicy: 'Cluster', allocateLoadBalancerNodePorts: true },
    ],
    [{ type: 'ExternalName', externalName: 'a.b' }, { type: 'ExternalName', externalName: 'a.b', sessionAffinity: 'None' }],
    [{ sessionAffinity: 'ClientIP', ports: [{ port: 1 }] }, { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } }, type: 'ClusterIP', internalTrafficPolicy: 'Cluster', ports: [{ port: 1, protocol: 'TCP', targetPort: 1 }] }],
    [{ sessionAffinity: 'None', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } }, clusterIP: '' }, { sessionAffinity: 'None', type: 'ClusterIP', internalTrafficPolicy: 'Cluster' }],
  ];
  cases.forEach(([spec, want], i) => assert.equal(defaulted(spec).spec, want, `case ${i}`));
});

test('ValidateService (after defaulting)', () => {
  const cases: [string, Record<string, unknown>, Want[]][] = [
    ['minimal', { ports: [{ port: 80 }] }, []],
    ['no ports', {}, [{ type: 'FieldValueRequired', field: 'spec.ports' }]],
    ['headless without ports', { clusterIP: 'None', clusterIPs: ['None'] }, []],
    ['two unnamed ports', { ports: [{ port: 1 }, { port: 2 }] }, [{ type: 'FieldValueRequired', field: 'spec.ports[0].name' }, { type: 'FieldValueRequired', field: 'spec.ports[1].name' }]],
    ['port name', { ports: [{ port: 1, name: 'A_b' }] }, [{ type: 'FieldValueInvalid', field: 'spec.ports[0].name', msg: 'RFC 1123 label' }]],
    ['target port name', { ports: [{ port: 1, targetPort: 'waytoolongportname' }] }, [{ type: 'FieldValueInvalid', field: 'spec.ports[0].targetPort', msg: 'must be no more than 15 characters' }]],
    ['sctp ok', { ports: [{ port: 1, protocol: 'SCTP' }] }, []],
    ['external name', { type: 'ExternalName', externalName: 'Bad_Name' }, [{ type: 'FieldValueInvalid', field: 'spec.externalName', msg: 'RFC 1123 subdomain' }]],
    ['external name trailing dot', { type: 'ExternalName', externalName: 'example.com.' }, []],
    ['ipv6 clusterIP with IPv4 family', { clusterIP: 'fd00::1', clusterIPs: ['fd00::1'], ipFamilies: ['IPv4'], ports: [{ port: 1 }] }, [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', msg: 'expected an IPv4 value as indicated by `ipFamilies[0]`' }]],
    ['three clusterIPs', { clusterIP: '10.0.0.2', clusterIPs: ['10.0.0.2', 'fd00::2', '10.0.0.3'], ports: [{ port: 1 }] }, [
      { type: 'FieldValueInvalid', field: 'spec.clusterIPs', msg: 'may only hold up to 2 values' },
      // netutils.IsDualStackIPStrings is false for more than two addresses.
      { type: 'FieldValueInvalid', field: 'spec.clusterIPs', msg: 'may specify no more than one IP for each IP family' },
    ]],
    ['two IPv4 clusterIPs', { clusterIP: '10.0.0.2', clusterIPs: ['10.0.0.2', '10.0.0.3'], ports: [{ port: 1 }] }, [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs', msg: 'may specify no more than one IP for each IP family' }]],
    ['duplicate families', { ipFamilies: ['IPv4', 'IPv4'], ports: [{ port: 1 }] }, [{ type: 'FieldValueDuplicate', field: 'spec.ipFamilies[1]' }]],
    ['bad family policy', { ipFamilyPolicy: 'Maybe', ports: [{ port: 1 }] }, [{ type: 'FieldValueNotSupported', field: 'spec.ipFamilyPolicy' }]],
    ['allocateLoadBalancerNodePorts on ClusterIP', { allocateLoadBalancerNodePorts: true, ports: [{ port: 1 }] }, [{ type: 'FieldValueForbidden', field: 'spec.allocateLoadBalancerNodePorts' }]],
    ['health check port on ClusterIP', { healthCheckNodePort: 30001, ports: [{ port: 1 }] }, [{ type: 'FieldValueInvalid', field: 'spec.healthCheckNodePort' }]],
    ['loadBalancerClass on ClusterIP', { loadBalancerClass: 'a/b', ports: [{ port: 1 }] }, [{ type: 'FieldValueForbidden', field: 'spec.loadBalancerClass' }]],
    ['source ranges annotation', { type: 'LoadBalancer', ports: [{ port: 1 }] }, []],
  ];
  for (const [label, spec, want] of cases) check(label, validateService(defaulted(spec)), want);
});

test('ValidateServiceUpdate: allocated values are immutable', () => {
  const old = defaulted({ clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5'], ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ports: [{ port: 1 }] });
  const cases: [string, Record<string, unknown>, Want[]][] = [
    ['unchanged', {}, []],
    ['clusterIP', { clusterIP: '10.0.0.6', clusterIPs: ['10.0.0.6'] }, [{ type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', msg: 'Invalid value: []string{"10.0.0.6"}: may not change once set' }]],
    ['families', { ipFamilies: ['IPv6'] }, [{ type: 'FieldValueInvalid', field: 'spec.ipFamilies[0]', msg: 'may not change once set' }, { type: 'FieldValueInvalid', field: 'spec.clusterIPs[0]', msg: 'expected an IPv6 value' }]],
    ['to ExternalName with IPs kept', { type: 'ExternalName', externalName: 'a.b' }, [
      { type: 'FieldValueForbidden', field: 'spec.clusterIPs' },
      { type: 'FieldValueForbidden', field: 'spec.ipFamilies' },
      { type: 'FieldValueForbidden', field: 'spec.ipFamilyPolicy' },
    ]],
  ];
  for (const [label, change, want] of cases) {
    const n = structuredClone(old);
    Object.assign(n.spec as object, change);
    check(label, validateServiceUpdate(n, old), want);
  }
});

test('prepareForUpdate keeps status and drops what the new type does not use', () => {
  const old = defaulted({ type: 'NodePort', clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5'], ports: [{ port: 1, nodePort: 30001 }] });
  old.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } };
  const n = structuredClone(old);
  (n.spec as any).type = 'ClusterIP';
  n.status = { loadBalancer: {} };
  S.prepareForUpdate!(n, old);
  assert.equal(n.status, old.status);
  assert.is((n.spec as any).ports[0].nodePort, undefined);
  assert.is((n.spec as any).externalTrafficPolicy, undefined);
});

test('table cells as printService', () => {
  const lb = defaulted({ type: 'LoadBalancer', clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5'], selector: { b: '2', a: '1' }, ports: [{ port: 80, nodePort: 30080 }, { port: 53, protocol: 'UDP' }] });
  lb.metadata.creationTimestamp = '2026-01-01T00:00:00Z';
  assert.equal(serviceTable.cells(lb), ['s', 'LoadBalancer', '10.0.0.5', '<pending>', '80:30080/TCP,53/UDP', '2026-01-01T00:00:00Z', 'a=1,b=2']);
  lb.status = { loadBalancer: { ingress: [{ hostname: 'a-very-long-load-balancer.example.com' }] } };
  assert.is(serviceTable.cells(lb)[3], 'a-very-long-l...');
  const ext = defaulted({ type: 'ExternalName', externalName: 'x.example.com' });
  assert.equal(serviceTable.cells(ext).slice(1, 5), ['ExternalName', '<none>', 'x.example.com', '<none>']);
});

test.run();
