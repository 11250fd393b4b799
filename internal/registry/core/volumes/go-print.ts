/**
 * Go's `%#v` of the few values kube's validation messages print raw: a core.ResourceList (a
 * PersistentVolume's capacity in "Unsupported value: core.ResourceList{…}"). Quantities are
 * rebuilt as resource.ParseQuantity builds them from the stored string; a value on its slow
 * (inf.Dec) path holds a pointer whose address Go prints and nobody can reproduce.
 */
import { goQuote } from '../../../gocompat/quote.ts';

const DEC: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BIN: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

/** `%#v` of one resource.Quantity parsed from `str`. */
export function goQuantity(str: string): string {
  const fast = (value: bigint, scale: number, s: string, format: string): string =>
    `resource.Quantity{i:resource.int64Amount{value:${value}, scale:${scale}}, d:resource.infDecAmount{Dec:(*inf.Dec)(nil)}, s:${JSON.stringify(s)}, Format:${JSON.stringify(format)}}`;
  const slow = (format: string): string =>
    `resource.Quantity{i:resource.int64Amount{value:0, scale:0}, d:resource.infDecAmount{Dec:(*inf.Dec)(<ptr>)}, s:"", Format:${JSON.stringify(format)}}`;
  if (str === '0') return fast(0n, 0, '0', 'DecimalSI');
  const m = /^([+-]?)0*(\d*)(?:\.(\d*))?(.*)$/.exec(str);
  if (!m) return slow('DecimalSI');
  const positive = m[1] !== '-';
  const num = m[2] || '0';
  const denom = m[3] ?? '';
  const suffix = m[4]!;
  let format: string;
  let exponent: number;
  if (suffix in DEC) [format, exponent] = ['DecimalSI', DEC[suffix]!];
  else if (suffix in BIN) [format, exponent] = ['BinarySI', BIN[suffix]!];
  else if (/^[eE][+-]?\d+$/.test(suffix)) [format, exponent] = ['DecimalExponent', Number.parseInt(suffix.slice(1), 10)];
  else return slow('DecimalSI');
  let precision: number;
  let scale = 0;
  let mantissa = 1n;
  if (format === 'BinarySI') {
    if (exponent >= 0 && denom.length === 0) {
      mantissa = 1n << BigInt(exponent);
      precision = 15 - num.length - Math.trunc((exponent * 3) / 10) - 1;
    } else precision = -1;
  } else {
    scale = exponent;
    precision = 18 - (num.length + denom.length);
  }
  if (precision >= 0) {
    scale -= denom.length;
    if (scale >= -9) {
      const shifted = num + denom;
      const value = BigInt(shifted);
      const result = value * mantissa;
      if (result <= 2n ** 63n - 1n) {
        const signed = positive ? result : -result;
        const canonical =
          format === 'BinarySI' ? exponent % 10 === 0 && (value & 7n) !== 0n : scale % 3 === 0 && !shifted.endsWith('000') && shifted[0] !== '0';
        return fast(signed, scale, canonical ? str : '', format);
      }
    }
  }
  return slow(format);
}

/** `%#v` of a core.ResourceList (keys sorted, as fmt prints maps); undefined = nil. */
export function goResourceList(list: Record<string, unknown> | undefined): string {
  if (list === undefined) return 'core.ResourceList(nil)';
  const keys = Object.keys(list).sort();
  return `core.ResourceList{${keys.map((k) => `${goQuote(k)}:${goQuantity(String(list[k]))}`).join(', ')}}`;
}
