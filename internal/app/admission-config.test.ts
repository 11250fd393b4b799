/**
 * --admission-control-config-file start-up errors: each message is the one kube-apiserver 1.24.17
 * printed for the same file (`"command failed" err="…"`, recorded by running the reference binary
 * with it), and good files (v1beta1 inline, v1alpha1 in a relative `path`, the
 * apiserver.k8s.io/v1alpha1 AdmissionConfiguration, a legacy flat file) load.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admissionConfiguration } from './admission.ts';

const dir = mkdtempSync(join(tmpdir(), 'admission-config-'));
const file = (name: string, text: string): string => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const admission = (psa: string, version = 'apiserver.config.k8s.io/v1'): string =>
  `apiVersion: ${version}\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  configuration:\n${psa
    .split('\n')
    .map((l) => `    ${l}`)
    .join('\n')}\n`;
const PSA = 'apiVersion: pod-security.admission.config.k8s.io/v1beta1\nkind: PodSecurityConfiguration';
const fails = (path: string): string => {
  try {
    admissionConfiguration(path);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`${path} loaded`);
};

test('good files load: defaults filled with privileged:latest, exemptions kept', () => {
  const inline = admissionConfiguration(file('good.yaml', admission(`${PSA}\ndefaults:\n  enforce: baseline\n  warn: restricted\n  warn-version: v1.23\nexemptions:\n  usernames: [u]\n  namespaces: [n]\n  runtimeClasses: [r]`)));
  assert.equal(inline.podSecurity, {
    defaults: {
      enforce: { level: 'baseline', version: { latest: true } },
      audit: { level: 'privileged', version: { latest: true } },
      warn: { level: 'restricted', version: { latest: false, minor: 23 } },
    },
    exemptions: { usernames: ['u'], namespaces: ['n'], runtimeClasses: ['r'] },
  });
  file('psa-alpha.yaml', 'apiVersion: pod-security.admission.config.k8s.io/v1alpha1\nkind: PodSecurityConfiguration\ndefaults:\n  enforce: restricted\n');
  const viaPath = admissionConfiguration(file('alpha.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: psa-alpha.yaml\n'));
  assert.is(viaPath.podSecurity.defaults.enforce.level, 'restricted');
  assert.is(admissionConfiguration(file('v1alpha1.yaml', admission(`${PSA}\ndefaults:\n  enforce: baseline`, 'apiserver.k8s.io/v1alpha1'))).podSecurity.defaults.enforce.level, 'baseline');
  // Unknown fields of the AdmissionConfiguration itself are ignored (not strict); other plugins too.
  assert.is(admissionConfiguration(file('other.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nbogus: 1\nplugins:\n- name: EventRateLimit\n  path: none.yaml\n')).podSecurity.defaults.enforce.level, 'privileged');
  assert.is(admissionConfiguration(file('legacy.yaml', 'imagePolicy:\n  kubeConfigFile: x\n')).podSecurity.defaults.enforce.level, 'privileged');
  assert.is(admissionConfiguration(undefined).podSecurity.defaults.enforce.level, 'privileged');
});

test("bad files: kube-apiserver's start-up errors", () => {
  const p = (name: string) => join(dir, name);
  const cases: [string, string, string][] = [
    [
      'badlevel.yaml',
      admission(`${PSA}\ndefaults:\n  enforce: bogus\n  audit-version: v2.0\nexemptions:\n  usernames: ["", a, a]`),
      'failed to initialize admission: failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: [enforce: must be one of privileged, baseline, restricted, audit-version: must be "latest" or "v1.x"]',
    ],
    ['badversiononly.yaml', admission(`${PSA}\ndefaults:\n  warn-version: "1.2"`), 'failed to initialize admission: failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: warn-version: must be "latest" or "v1.x"'],
    [
      'badexempt.yaml',
      admission(`${PSA}\nexemptions:\n  usernames: ["", a, a]\n  namespaces: [Bad_NS, ok, ok]\n  runtimeClasses: [UPPER, x, x]`),
      'failed to initialize admission: failed to initialize admission plugin "PodSecurity": PodSecurity invalid: [exemptions.namespaces[0]: Invalid value: "Bad_NS": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or \'-\', and must start and end with an alphanumeric character (e.g. \'my-name\',  or \'123-abc\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?\'), exemptions.namespaces[2]: Duplicate value: "ok", exemptions.runtimeClasses[0]: Invalid value: "UPPER": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, \'-\' or \'.\', and must start and end with an alphanumeric character (e.g. \'example.com\', regex used for validation is \'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\'), exemptions.runtimeClasses[2]: Duplicate value: "x", exemptions.usernames[0]: Invalid value: "": username must not be empty, exemptions.usernames[2]: Duplicate value: "a"]',
    ],
    ['wrongkind.yaml', admission('apiVersion: pod-security.admission.config.k8s.io/v1beta1\nkind: Foo'), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": no kind "Foo" is registered for version "pod-security.admission.config.k8s.io/v1beta1" in scheme "pkg/runtime/scheme.go:100"'],
    ['psawrongver.yaml', admission('apiVersion: pod-security.admission.config.k8s.io/v9\nkind: PodSecurityConfiguration'), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": no kind "PodSecurityConfiguration" is registered for version "pod-security.admission.config.k8s.io/v9" in scheme "pkg/runtime/scheme.go:100"'],
    ['noversion.yaml', admission('defaults:\n  enforce: baseline'), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": Object \'Kind\' is missing in \'{"defaults":{"enforce":"baseline"}}\''],
    ['unknownfield.yaml', admission(`${PSA}\ndefaults:\n  enforce: baseline\n  bogusField: x`), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": strict decoding error: unknown field "defaults.bogusField"'],
    ['admunknown.yaml', admission(`${PSA}\nbogusTop: 1`), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": strict decoding error: unknown field "bogusTop"'],
    ['psaplainstr.yaml', admission(`${PSA}\ndefaults:\n  enforce: 5`), 'failed to initialize admission: couldn\'t init admission plugin "PodSecurity": json: cannot unmarshal number into Go struct field PodSecurityDefaults.defaults.enforce of type string'],
    ['notadmission.yaml', 'apiVersion: v1\nkind: ConfigMap\n', 'failed to initialize admission: failed to read plugin config: no kind "ConfigMap" is registered for version "v1" in scheme "pkg/runtime/scheme.go:100"'],
    ['wrongadmver.yaml', 'apiVersion: apiserver.config.k8s.io/v2\nkind: AdmissionConfiguration\n', 'failed to initialize admission: failed to read plugin config: no kind "AdmissionConfiguration" is registered for version "apiserver.config.k8s.io/v2" in scheme "pkg/runtime/scheme.go:100"'],
    ['empty-obj.yaml', '{}\n', "failed to initialize admission: failed to read plugin config: Object 'Kind' is missing in '{}\n'"],
    ['emptyfile.yaml', '', "failed to initialize admission: failed to read plugin config: Object 'Kind' is missing in ''"],
    ['psajson.json', JSON.stringify({ apiVersion: 'apiserver.config.k8s.io/v1', kind: 'AdmissionConfiguration', plugins: [{ name: 'PodSecurity', configuration: { apiVersion: 'pod-security.admission.config.k8s.io/v1beta1', kind: 'PodSecurityConfiguration', defaults: { enforce: 'baseline', audit: 'nope' } } }] }), 'failed to initialize admission: failed to initialize admission plugin "PodSecurity": PodSecurity configuration error: audit: must be one of privileged, baseline, restricted'],
    ['missingpath.yaml', 'apiVersion: apiserver.config.k8s.io/v1\nkind: AdmissionConfiguration\nplugins:\n- name: PodSecurity\n  path: nope.yaml\n', `failed to initialize admission: Couldn't open admission plugin configuration ${p('nope.yaml')}: &fs.PathError{Op:"open", Path:"${p('nope.yaml')}", Err:0x2}`],
  ];
  for (const [name, text, message] of cases) assert.is(fails(file(name, text)), message, name);
  assert.is(fails(p('doesnotexist.yaml')), `failed to initialize admission: failed to read plugin config: unable to read admission control configuration from "${p('doesnotexist.yaml')}" [open ${p('doesnotexist.yaml')}: no such file or directory]`);
});

test.run();
