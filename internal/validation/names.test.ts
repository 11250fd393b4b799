import { test } from 'uvu';
import * as assert from 'uvu/assert';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  nameIsDNSLabel,
  nameIsDNSSubdomain,
  regexError,
} from './names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const QNAME_NAME_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const CM_KEY_MSG =
  "a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')";

interface Case {
  fn: (v: string) => string[];
  fnName: string;
  value: string;
  /** Exact messages expected (empty = valid). */
  want: string[];
}

const cases: Case[] = [
  // DNS-1123 subdomain
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'example.com', want: [] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a', want: [] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: '0-0.a-b', want: [] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'Foo', want: [SUBDOMAIN_MSG] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: '', want: [SUBDOMAIN_MSG] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a..b', want: [SUBDOMAIN_MSG] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: '-a', want: [SUBDOMAIN_MSG] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a_b', want: [SUBDOMAIN_MSG] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a'.repeat(253), want: [] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a'.repeat(254), want: ['must be no more than 253 characters'] },
  { fnName: 'subdomain', fn: isDNS1123Subdomain, value: 'a\n', want: [SUBDOMAIN_MSG] },
  // DNS-1123 label
  { fnName: 'label', fn: isDNS1123Label, value: 'my-name', want: [] },
  { fnName: 'label', fn: isDNS1123Label, value: '123-abc', want: [] },
  { fnName: 'label', fn: isDNS1123Label, value: 'a.b', want: [LABEL_MSG] },
  { fnName: 'label', fn: isDNS1123Label, value: 'a-', want: [LABEL_MSG] },
  { fnName: 'label', fn: isDNS1123Label, value: 'a'.repeat(63), want: [] },
  { fnName: 'label', fn: isDNS1123Label, value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
  { fnName: 'label', fn: isDNS1123Label, value: 'A'.repeat(64), want: ['must be no more than 63 characters', LABEL_MSG] },
  // DNS-1035 label
  { fnName: 'dns1035', fn: isDNS1035Label, value: 'abc-1', want: [] },
  { fnName: 'dns1035', fn: isDNS1035Label, value: '1abc', want: [isDNS1035Label('1abc')[0]!] },
  // qualified names
  { fnName: 'qname', fn: isQualifiedName, value: 'app', want: [] },
  { fnName: 'qname', fn: isQualifiedName, value: 'My_Name.x-1', want: [] },
  { fnName: 'qname', fn: isQualifiedName, value: 'example.com/MyName', want: [] },
  { fnName: 'qname', fn: isQualifiedName, value: 'kubernetes.io/metadata.name', want: [] },
  { fnName: 'qname', fn: isQualifiedName, value: '', want: ['name part must be non-empty', QNAME_NAME_MSG] },
  { fnName: 'qname', fn: isQualifiedName, value: '/a', want: ['prefix part must be non-empty'] },
  { fnName: 'qname', fn: isQualifiedName, value: 'Example.com/a', want: [`prefix part ${SUBDOMAIN_MSG}`] },
  { fnName: 'qname', fn: isQualifiedName, value: 'example.com/', want: ['name part must be non-empty', QNAME_NAME_MSG] },
  { fnName: 'qname', fn: isQualifiedName, value: '-a', want: [QNAME_NAME_MSG] },
  { fnName: 'qname', fn: isQualifiedName, value: 'a'.repeat(63), want: [] },
  { fnName: 'qname', fn: isQualifiedName, value: 'a'.repeat(64), want: ['name part must be no more than 63 characters'] },
  {
    fnName: 'qname',
    fn: isQualifiedName,
    value: 'a/b/c',
    want: [
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    ],
  },
  // label values
  { fnName: 'labelValue', fn: isValidLabelValue, value: '', want: [] },
  { fnName: 'labelValue', fn: isValidLabelValue, value: 'v1.2_3-x', want: [] },
  { fnName: 'labelValue', fn: isValidLabelValue, value: 'a b', want: [LABEL_VALUE_MSG] },
  { fnName: 'labelValue', fn: isValidLabelValue, value: '_a', want: [LABEL_VALUE_MSG] },
  { fnName: 'labelValue', fn: isValidLabelValue, value: 'a'.repeat(64), want: ['must be no more than 63 characters'] },
  // multi-byte: length is counted in UTF-8 bytes, as in Go
  { fnName: 'labelValue', fn: isValidLabelValue, value: 'é'.repeat(32), want: ['must be no more than 63 characters', LABEL_VALUE_MSG] },
  // config map keys
  { fnName: 'cmKey', fn: isConfigMapKey, value: 'key.name', want: [] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: 'KEY_NAME', want: [] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: '.dockercfg', want: [] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: 'a..b', want: [] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: '.', want: ["must not be '.'"] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: '..', want: ["must not be '..'"] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: '..a', want: ["must not start with '..'"] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: 'a/b', want: [CM_KEY_MSG] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: '', want: [CM_KEY_MSG] },
  { fnName: 'cmKey', fn: isConfigMapKey, value: 'a'.repeat(254), want: ['must be no more than 253 characters'] },
];

cases.forEach((c, i) => {
  test(`case ${i}: ${c.fnName}(${JSON.stringify(c.value.length > 40 ? `${c.value.slice(0, 20)}…(${c.value.length})` : c.value)})`, () => {
    assert.equal(c.fn(c.value), c.want, `case ${i} (${c.fnName}): messages differ`);
  });
});

interface NameCase {
  fn: typeof nameIsDNSSubdomain;
  fnName: string;
  value: string;
  prefix: boolean;
  valid: boolean;
}
const nameCases: NameCase[] = [
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: 'web-', prefix: true, valid: true },
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: 'web-', prefix: false, valid: false },
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: 'web.example-', prefix: true, valid: true },
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: 'Web-', prefix: true, valid: false },
  // masking replaces the last two characters with 'a': "a.-" → "aa" is fine, "-" alone is not masked
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: '-', prefix: true, valid: false },
  { fnName: 'subdomain', fn: nameIsDNSSubdomain, value: 'a.-', prefix: true, valid: true },
  { fnName: 'label', fn: nameIsDNSLabel, value: 'ns-', prefix: true, valid: true },
  { fnName: 'label', fn: nameIsDNSLabel, value: 'a.b-', prefix: true, valid: false },
  { fnName: 'label', fn: nameIsDNSLabel, value: 'ns', prefix: false, valid: true },
];

nameCases.forEach((c, i) => {
  test(`name case ${i}: ${c.fnName}(${JSON.stringify(c.value)}, prefix=${c.prefix})`, () => {
    const errs = c.fn(c.value, c.prefix);
    assert.is(errs.length === 0, c.valid, `name case ${i}: expected ${c.valid ? 'valid' : 'invalid'}, got ${JSON.stringify(errs)}`);
  });
});

test('regexError without examples', () => {
  assert.is(regexError('bad', 'x+'), "bad (regex used for validation is 'x+')");
});

test.run();
