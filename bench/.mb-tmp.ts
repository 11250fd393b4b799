import { decodeCustomResource, validateCustomResource } from '../internal/apiextensions/custom-resource.ts';
const { CRD, CR_BODY } = await import('/tmp/crbench-mb/defs.ts');
const schema = CRD.spec.versions[0].schema.openAPIV3Schema;
const body = CR_BODY.replace('$NAME', 'x').replace('$NAMESPACE', 'ns');
const cpu = () => { const u = process.cpuUsage(); return u.user + u.system; };
function run(n: number, work: boolean) {
  const objs = Array.from({ length: n }, () => JSON.parse(body));
  const t0 = cpu();
  for (const o of objs) {
    if (!work) continue;
    decodeCustomResource(o, schema, {});
    const e = validateCustomResource(o, schema, undefined);
    if (e.length) throw new Error(JSON.stringify(e));
  }
  return (cpu() - t0) / n;
}
run(20000, true);
const rs = [1, 2, 3, 4, 5, 6, 7].map(() => run(20000, true)).sort((a, b) => a - b);
console.log(`decode+validate ${rs[3].toFixed(2)} µs CPU (min ${rs[0].toFixed(2)})`);
