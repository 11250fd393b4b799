import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import { goPathEscape, resolveService, setAuthProxyHeaders } from './aggregator.ts';

const svc = (spec: Record<string, unknown>): KubeObject => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: 's', namespace: 'n' }, spec });

test('resolveService: proxy.ResolveCluster', () => {
  const ref = { name: 's', port: 443 };
  assert.equal(resolveService(undefined, ref), { error: 'service "s" not found' });
  assert.equal(resolveService(svc({ type: 'ExternalName', externalName: 'backend.example.com' }), ref), { host: 'backend.example.com', port: 443 });
  assert.equal(resolveService(svc({ type: 'ClusterIP', clusterIP: '10.0.0.7', ports: [{ port: 443 }] }), ref), { host: '10.0.0.7', port: 443 });
  assert.equal(resolveService(svc({ type: 'NodePort', clusterIP: '10.0.0.7', ports: [{ port: 80 }] }), ref), { error: 'no service port 443 found for service "s"' });
  assert.equal(resolveService(svc({ type: 'ClusterIP', clusterIP: 'None', ports: [{ port: 443 }] }), ref), { error: 'cannot route to service with ClusterIP "None"' });
});

test('setAuthProxyHeaders: the caller replaces any X-Remote-* the request carried; extra keys path-escaped', () => {
  const h: Record<string, string | string[]> = { 'X-Remote-User': 'mallory', 'x-remote-extra-evil': 'x', 'X-Remote-Group': 'system:masters', accept: 'application/json' };
  setAuthProxyHeaders(h, { username: 'alice', groups: ['a', 'system:authenticated'], extra: { 'example.org/scope:x': ['1', '2'], empty: [] } });
  assert.equal(h, { accept: 'application/json', 'X-Remote-User': 'alice', 'X-Remote-Group': ['a', 'system:authenticated'], 'X-Remote-Extra-example.org%2Fscope:x': ['1', '2'] });
  assert.is(goPathEscape("a b!*'()~$&+=@;,?"), 'a%20b%21%2A%27%28%29~$&+=@%3B%2C%3F');
});

test.run();
