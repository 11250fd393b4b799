/**
 * The string formats a CRD schema may check (apiextensions-apiserver's supportedFormats, checked
 * by kube-openapi's strfmt.Default). Any other format is stripped from the schema before
 * validation (StripUnsupportedFormatsPostProcess), so it checks nothing. Names are normalized as
 * go-openapi does: dashes dropped (`date-time` → `datetime`).
 */
import { isIP } from 'node:net';

const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID3 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?3[0-9a-f]{3}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i;
const UUID4 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?4[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
const UUID5 = /^[0-9a-f]{8}-?[0-9a-f]{4}-?5[0-9a-f]{3}-?[89ab][0-9a-f]{3}-?[0-9a-f]{12}$/i;
// strfmt.HostnamePattern (RFC 1034 labels, letters and symbols of any script).
const HOSTNAME =
  /^([a-zA-Z0-9\p{S}\p{L}]((-?[a-zA-Z0-9\p{S}\p{L}]{0,62})?)|([a-zA-Z0-9\p{S}\p{L}](([a-zA-Z0-9\-\p{S}\p{L}]{0,61}[a-zA-Z0-9\p{S}\p{L}])?)(\.)){1,}([a-zA-Z\p{L}]){2,63})$/u;
const DATE_TIME_TAIL = /^([0-9]{2}):([0-9]{2}):([0-9]{2})(.[0-9]+)?(z|([+-][0-9]{2}:[0-9]{2}))$/;
const MAC = /^([0-9a-f]{2}[:-]){5}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){7}[0-9a-f]{2}$|^([0-9a-f]{2}[:-]){19}[0-9a-f]{2}$|^([0-9a-f]{4}\.){2}[0-9a-f]{4}$|^([0-9a-f]{4}\.){3}[0-9a-f]{4}$|^([0-9a-f]{4}\.){9}[0-9a-f]{4}$/i;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{4})$/;
const EMAIL = /^[^\s@<>()[\]\\,;:"]+@[^\s@<>()[\]\\,;:"]+$/;
const SSN = /^\d{3}[- ]?\d{2}[- ]?\d{4}$/;
const HEXCOLOR = /^#?([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const RGBCOLOR = /^rgb\(\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*,\s*(0|[1-9]\d?|1\d\d?|2[0-4]\d|25[0-5])\s*\)$/;
const CREDITCARD = /^(?:4[0-9]{12}(?:[0-9]{3})?|5[1-5][0-9]{14}|6(?:011|5[0-9][0-9])[0-9]{12}|3[47][0-9]{13}|3(?:0[0-5]|[68][0-9])[0-9]{11}|(?:2131|1800|35\d{3})\d{11})$/;
const ISBN10 = /^(?:[0-9]{9}X|[0-9]{10})$/;
const ISBN13 = /^(?:[0-9]{13})$/;
const DURATION_GO = /^[-+]?([0-9]*(\.[0-9]*)?(ns|us|\u00b5s|\u03bcs|ms|s|m|h))+$/;
const DURATION_UNITS = /^((\d+)\s*([A-Za-z\u00b5]+))(\s*(\d+)\s*([A-Za-z\u00b5]+))*$/;
const DURATION_UNIT_NAMES = new Set(
  'ns nano nanos nanosecond nanoseconds us µs micro micros microsecond microseconds ms milli millis millisecond milliseconds s sec secs second seconds m min mins minute minutes h hr hour hours d day days w wk week weeks'.split(' '),
);

/** Digits of s from i to j (exclusive) as a number, or -1 if one is not 0-9. */
function digits(s: string, i: number, j: number): number {
  let n = 0;
  for (; i < j; i++) {
    const c = s.charCodeAt(i) - 0x30;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** time.Parse("2006-01-02", s): a real calendar day (proleptic Gregorian, as Go's). */
function isDate(s: string): boolean {
  if (s.length !== 10 || s.charCodeAt(4) !== 0x2d || s.charCodeAt(7) !== 0x2d) return false;
  const y = digits(s, 0, 4);
  const mo = digits(s, 5, 7);
  const d = digits(s, 8, 10);
  if (y < 0 || mo < 1 || mo > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (mo === 2 && leap ? 29 : DAYS_IN_MONTH[mo - 1]);
}

/** strfmt.IsDateTime: a date, a `t`, then hh:mm:ss[.frac](z|±hh:mm), lower-cased. */
function isDateTime(s: string): boolean {
  if (s.length < 4) return false;
  const parts = s.toLowerCase().split('t');
  if (parts.length < 2 || !isDate(parts[0])) return false;
  const m = DATE_TIME_TAIL.exec(parts[1]);
  return !!m && m[1] <= '23' && m[2] <= '59' && m[3] <= '59';
}

const isIPv4 = (s: string): boolean => s.includes('.') && (isIP(s) !== 0 || isIP(s.replace(/(^|\.)0+(\d)/g, '$1$2')) === 4);

function isCIDR(s: string): boolean {
  const slash = s.indexOf('/');
  if (slash < 0) return false;
  const ip = s.slice(0, slash).replace(/(^|\.)0+(\d)/g, '$1$2');
  const bits = s.slice(slash + 1);
  const v = isIP(ip);
  if (!v || !/^\d{1,3}$/.test(bits)) return false;
  return Number(bits) <= (v === 4 ? 32 : 128);
}

/** url.ParseRequestURI, roughly: an absolute URI with a scheme, or an absolute path. */
function isRequestURI(s: string): boolean {
  if (s.startsWith('/')) return !/\s/.test(s);
  try {
    return /^[a-zA-Z][a-zA-Z0-9+.-]*:/.test(s) && !!new URL(s);
  } catch {
    return false;
  }
}

const CHECKERS: Record<string, (s: string) => boolean> = {
  bsonobjectid: (s) => /^[0-9a-fA-F]{24}$/.test(s),
  uri: isRequestURI,
  email: (s) => EMAIL.test(s),
  hostname: (s) => HOSTNAME.test(s) && Buffer.byteLength(s) <= 255 && s.split('.').every((p) => Buffer.byteLength(p) <= 63),
  ipv4: isIPv4,
  ipv6: (s) => isIP(s) === 6,
  cidr: isCIDR,
  mac: (s) => MAC.test(s),
  uuid: (s) => UUID.test(s),
  uuid3: (s) => UUID3.test(s),
  uuid4: (s) => UUID4.test(s),
  uuid5: (s) => UUID5.test(s),
  isbn: (s) => ISBN10.test(s.replace(/[\s-]/g, '')) || ISBN13.test(s.replace(/[\s-]/g, '')),
  isbn10: (s) => ISBN10.test(s.replace(/[\s-]/g, '')),
  isbn13: (s) => ISBN13.test(s.replace(/[\s-]/g, '')),
  creditcard: (s) => CREDITCARD.test(s.replace(/[^0-9]/g, '')),
  ssn: (s) => SSN.test(s),
  hexcolor: (s) => HEXCOLOR.test(s),
  rgbcolor: (s) => RGBCOLOR.test(s),
  byte: (s) => BASE64.test(s),
  password: () => true,
  date: isDate,
  duration: (s) =>
    DURATION_GO.test(s) ||
    (DURATION_UNITS.test(s.trim()) && [...s.matchAll(/(\d+)\s*([A-Za-z\u00b5]+)/g)].every((m) => DURATION_UNIT_NAMES.has(m[2]))),
  datetime: isDateTime,
};

/** The format as kube checks it, or undefined when kube strips it (an unsupported format). */
export function supportedFormat(format: string | undefined): string | undefined {
  if (!format) return undefined;
  const normalized = format.replace(/-/g, '');
  return CHECKERS[normalized] ? normalized : undefined;
}

/** Whether `s` is valid in the (normalized, supported) format. */
export const checkFormat = (format: string, s: string): boolean => CHECKERS[format]?.(s) ?? true;
