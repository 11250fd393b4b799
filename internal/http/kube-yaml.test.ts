import { test } from 'uvu';
import * as assert from 'uvu/assert';
import YAML from 'yaml';
import { kubeYaml } from './kube-yaml.ts';

const status = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, code: 500 });

test('a double-quoted string (it holds a tab) is written on one line with escapes, then folded, as go-yaml writes it', () => {
  // kube-apiserver 1.24.17's answer to a server-side apply with a field named "\t", Accept: application/yaml.
  const fromKube = 'apiVersion: v1\ncode: 500\nkind: Status\nmessage: "failed to create typed patch object (default/x; /v1, Kind=ConfigMap): .\\t:\n  field not declared in schema"\nmetadata: {}\nstatus: Failure\n';
  assert.is(kubeYaml(status('failed to create typed patch object (default/x; /v1, Kind=ConfigMap): .\t: field not declared in schema')), fromKube);
});

test('a double-quoted string with line breaks stays one YAML scalar (found by the fuzzer: it was spread over lines and cut)', () => {
  const message = 'failed to create typed patch object (ns/j; /v1, Kind=ConfigMap): errors:\n  .metadata.annotations: expected map, got &{false}\n  .\t: field not declared in schema';
  const text = kubeYaml(status(message));
  assert.is(YAML.parse(text).message, message);
  assert.match(text, /errors:\\n\n  \\ \.metadata/);
});

test.run();
