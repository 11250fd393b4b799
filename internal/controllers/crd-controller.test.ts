import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { KubeObject } from '../api/types.ts';
import { acceptNames } from './crd-controller.ts';

const crd = (plural: string, kind: string, extra: Record<string, unknown> = {}): KubeObject => ({
  apiVersion: 'apiextensions.k8s.io/v1',
  kind: 'CustomResourceDefinition',
  metadata: { name: `${plural}.example.com` },
  spec: { group: 'example.com', names: { plural, kind }, scope: 'Namespaced', versions: [{ name: 'v1', served: true, storage: true }], ...extra },
});

test('acceptNames: free names taken, held ones refused (the last conflict names the condition)', () => {
  const first = crd('widgets', 'Widget', { names: { plural: 'widgets', singular: 'widget', kind: 'Widget', listKind: 'WidgetList', shortNames: ['wd'] } });
  first.status = { acceptedNames: (first.spec as any).names };
  const second = crd('gadgets', 'Gadget', { names: { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList', shortNames: ['wd'] } });
  const r = acceptNames(second, [first, second]);
  assert.equal(r.names, { plural: 'gadgets', singular: 'gadget', kind: 'Gadget', listKind: 'GadgetList' });
  assert.equal(r.namesAccepted, { type: 'NamesAccepted', status: 'False', reason: 'ShortNamesConflict', message: '"wd" is already in use' });
  assert.equal(r.established, { type: 'Established', status: 'False', reason: 'NotAccepted', message: 'not all names are accepted' });
  // Another group: no conflict.
  (first.spec as any).group = 'other.example.com';
  const ok = acceptNames(second, [first, second]);
  assert.equal(ok.namesAccepted, { type: 'NamesAccepted', status: 'True', reason: 'NoConflicts', message: 'no conflicts found' });
  assert.equal(ok.established, { type: 'Established', status: 'False', reason: 'Installing', message: 'the initial names have been accepted' });
});

test.run();
