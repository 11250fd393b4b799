import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { formatIP, isValidPortName, parseCIDR, parseIP, specialIPErrors } from './network.ts';

test('parseIP / formatIP round trips as Go prints addresses', () => {
  const cases: [string, string | undefined][] = [
    ['10.0.0.1', '10.0.0.1'],
    ['010.000.000.001', '10.0.0.1'], // ParseIPSloppy reads leading zeros as decimal
    ['256.0.0.1', undefined],
    ['1.2.3', undefined],
    ['fd00:0:0:0:0:0:0:1', 'fd00::1'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['::', '::'],
    ['::ffff:10.1.2.3', '10.1.2.3'], // IPv4-mapped: an IPv4 address to Go
    ['fe80::1%eth0', undefined],
    ['x', undefined],
  ];
  for (const [text, want] of cases) {
    const ip = parseIP(text);
    assert.is(ip ? formatIP(ip) : undefined, want, text);
  }
});

test('parseCIDR clears host bits', () => {
  assert.is(parseCIDR('10.0.0.7/24')?.text, '10.0.0.0/24');
  assert.is(parseCIDR('10.0.0.0/24')?.size, 256n);
  assert.is(parseCIDR('fd00::1/120')?.text, 'fd00::/120');
  assert.is(parseCIDR('10.0.0.0/33'), undefined);
  assert.is(parseCIDR('10.0.0.0'), undefined);
});

test('special addresses (ValidateNonSpecialIP)', () => {
  const msgs = (s: string) => specialIPErrors(s, parseIP(s)!);
  assert.equal(msgs('0.0.0.0'), ['may not be unspecified (0.0.0.0)']);
  assert.equal(msgs('127.5.0.1'), ['may not be in the loopback range (127.0.0.0/8, ::1/128)']);
  assert.equal(msgs('169.254.169.254'), ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
  assert.equal(msgs('224.0.0.251'), ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
  assert.equal(msgs('fe80::1'), ['may not be in the link-local range (169.254.0.0/16, fe80::/10)']);
  assert.equal(msgs('ff12::1'), ['may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)']);
  assert.equal(msgs('224.0.1.1'), []);
  assert.equal(msgs('192.0.2.1'), []);
});

test('IsValidPortName', () => {
  assert.equal(isValidPortName('http'), []);
  assert.equal(isValidPortName('80'), ['must contain at least one letter or number (a-z, 0-9)']);
  assert.equal(isValidPortName('a--b'), ['must not contain consecutive hyphens']);
  assert.equal(isValidPortName('-ab'), ['must not begin or end with a hyphen']);
  assert.equal(isValidPortName('abcdefghijklmnop'), ['must be no more than 15 characters']);
});

test.run();
