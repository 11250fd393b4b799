import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseWebhookKubeconfig } from './webhook-config.ts';
import { parseWebhookVersion } from './webhook.ts';

const b64 = (s: string): string => Buffer.from(s).toString('base64');

const doc = (cluster: string, user: string, current = 'c') => `apiVersion: v1
kind: Config
clusters:
- name: svc
  cluster:
${cluster}
users:
- name: me
  user:
${user}
contexts:
- name: c
  context: {cluster: svc, user: me}
current-context: ${current}
`;

test('inline data, file paths relative to the kubeconfig, tokens and basic credentials', () => {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-config-'));
  try {
    writeFileSync(join(dir, 'ca.pem'), 'CA');
    writeFileSync(join(dir, 'tok'), 'file-token\n');
    const file = join(dir, 'kc.yaml');
    assert.equal(parseWebhookKubeconfig(doc(`    server: https://h:1/x\n    certificate-authority-data: ${b64('CAD')}\n    tls-server-name: name`, `    client-certificate-data: ${b64('C')}\n    client-key-data: ${b64('K')}`), file), {
      url: 'https://h:1/x',
      insecureSkipTlsVerify: false,
      ca: 'CAD',
      servername: 'name',
      cert: 'C',
      key: 'K',
    });
    assert.equal(parseWebhookKubeconfig(doc('    server: https://h\n    certificate-authority: ca.pem\n    insecure-skip-tls-verify: true', '    tokenFile: tok'), file), {
      url: 'https://h',
      insecureSkipTlsVerify: true,
      ca: 'CA',
      authorization: 'Bearer file-token',
    });
    assert.is(parseWebhookKubeconfig(doc('    server: https://h', '    username: u\n    password: p'), file).authorization, `Basic ${b64('u:p')}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unusable configurations are start-up errors', () => {
  const cases: [string, RegExp][] = [
    [doc('    server: https://h', '    token: t', 'missing'), /context "missing" not found/],
    [doc('    insecure-skip-tls-verify: true', '    token: t'), /has no server defined/],
    [doc('    server: https://h', `    client-certificate-data: ${b64('C')}`), /must be specified together/],
    [doc('    server: ftp://h', '    token: t'), /is not an http\(s\) URL/],
    ['apiVersion: v1\nkind: Config\n', /no current-context/],
    ['- just\n- a list\n', /no configuration has been provided/],
    ['a: [unclosed', /error loading config file/],
  ];
  for (const [i, [text, err]] of cases.entries()) assert.throws(() => parseWebhookKubeconfig(text, '/nowhere/kc'), err, `case ${i}`);
});

test('--authentication-token-webhook-version', () => {
  assert.is(parseWebhookVersion('v1'), 'v1');
  assert.is(parseWebhookVersion('v1beta1'), 'v1beta1');
  assert.throws(() => parseWebhookVersion('v2'), /^unsupported authentication webhook version "v2", supported versions are "v1", "v1beta1"$/);
});

test.run();
