import { decodeCustomResource, validateCustomResource } from '../internal/apiextensions/custom-resource.ts';
const { CRD, CR_BODY } = await import('/tmp/crbench-mb/defs.ts');
const schema = CRD.spec.versions[0].schema.openAPIV3Schema;
const body = CR_BODY.replace('$NAME', 'x').replace('$NAMESPACE', 'ns');
function run(n: number) {
  let dec = 0, val = 0;
  for (let i = 0; i < n; i++) {
    const o = JSON.parse(body);
    const t0 = performance.now();
    decodeCustomResource(o, schema, {});
    const t1 = performance.now();
    const e = validateCustomResource(o, schema, undefined);
    const t2 = performance.now();
    if (e.length) throw new Error(JSON.stringify(e));
    dec += t1 - t0; val += t2 - t1;
  }
  return [dec / n * 1000, val / n * 1000];
}
run(20000);
const rs = [1, 2, 3, 4, 5].map(() => run(20000));
const med = (a: number[]) => a.sort((x, y) => x - y)[2];
console.log(`decode ${med(rs.map((r) => r[0])).toFixed(2)} µs, validate ${med(rs.map((r) => r[1])).toFixed(2)} µs`);
