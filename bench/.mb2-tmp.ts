import { prune, pruneNonNullableNulls, applyDefaults } from '../internal/apiextensions/prune.ts';
import { coerceObjectMeta, coerceEmbedded } from '../internal/apiextensions/embedded.ts';
import { validateAgainstSchema } from '../internal/apiextensions/validate.ts';
import { validateListSetsAndMaps } from '../internal/apiextensions/listtype.ts';
const { CRD, CR_BODY } = await import('/tmp/crbench-mb/defs.ts');
const schema = CRD.spec.versions[0].schema.openAPIV3Schema;
const body = CR_BODY.replace('$NAME', 'x').replace('$NAMESPACE', 'ns');
const steps: [string, (o: any) => void][] = [
  ['parse', () => {}],
  ['prune', (o) => prune(o, schema)],
  ['nulls', (o) => pruneNonNullableNulls(o, schema)],
  ['meta', (o) => coerceObjectMeta(o)],
  ['embedded', (o) => coerceEmbedded(o, schema)],
  ['defaults', (o) => applyDefaults(o, schema)],
  ['schema', (o) => validateAgainstSchema(schema, o)],
  ['listtype', (o) => validateListSetsAndMaps(schema, o)],
];
const n = 20000;
for (let rep = 0; rep < 2; rep++) {
  const tot = new Map<string, number>();
  for (let i = 0; i < n; i++) {
    const t00 = performance.now();
    const o = JSON.parse(body);
    tot.set('parse', (tot.get('parse') ?? 0) + performance.now() - t00);
    for (const [name, f] of steps.slice(1)) { const t0 = performance.now(); f(o); tot.set(name, (tot.get(name) ?? 0) + performance.now() - t0); }
  }
  if (rep) console.log([...tot].map(([k, v]) => `${k} ${(v / n * 1000).toFixed(2)}`).join(', '));
}
