import { test } from 'uvu';
import * as assert from 'uvu/assert';
import pino from 'pino';
import { ControllerManager, controllerEnabled, parseControllersFlag } from './manager.ts';
import type { Controller } from './controller.ts';

test('parseControllersFlag: kube-controller-manager names, `*` and `-name`; unknown names with kube\'s message', () => {
  assert.equal(parseControllersFlag(['*,-garbagecollector', 'ttl']), ['*', '-garbagecollector', 'ttl']);
  assert.equal(parseControllersFlag(['*']), ['*']);
  assert.throws(() => parseControllersFlag(['*,bogus']), (e: Error) => e.message === '"bogus" is not in the list of known controllers');
  assert.throws(() => parseControllersFlag(['-bogus,nope']), (e: Error) => e.message === '["bogus" is not in the list of known controllers, "nope" is not in the list of known controllers]');
});

test('controllerEnabled: kube\'s IsControllerEnabled (first naming entry wins, `*` = on by default)', () => {
  assert.ok(controllerEnabled('namespace', ['*']));
  assert.not.ok(controllerEnabled('namespace', ['-namespace', '*']));
  assert.not.ok(controllerEnabled('namespace', ['*', '-namespace']));
  assert.ok(controllerEnabled('namespace', ['namespace', '-namespace']));
  assert.not.ok(controllerEnabled('namespace', []));
  assert.not.ok(controllerEnabled('tokencleaner', ['*']), 'disabled by default');
  assert.ok(controllerEnabled('tokencleaner', ['*', 'tokencleaner']));
});

test('ControllerManager: starts the enabled controllers of a stage in order, never the disabled ones; stop and idle reach every started one', async () => {
  const calls: string[] = [];
  const fake = (name: string): Controller => ({
    start: () => void calls.push(`start ${name}`),
    stop: () => void calls.push(`stop ${name}`),
    idle: async () => void calls.push(`idle ${name}`),
  });
  const m = new ControllerManager(['*', '-garbagecollector'], pino({ level: 'silent' }))
    .add({ name: 'namespace', runBy: 'kube-controller-manager', stage: 'before-serving', make: () => fake('namespace') })
    .add({ name: 'garbagecollector', runBy: 'kube-controller-manager', stage: 'serving', make: () => fake('garbagecollector') })
    .add({ name: 'bootstrap-controller', runBy: 'kube-apiserver', stage: 'serving', make: () => fake('bootstrap-controller') })
    .add({ name: 'serviceaccount', runBy: 'kube-controller-manager', stage: 'serving', make: () => null })
    .add({ name: 'tokencleaner', runBy: 'kube-controller-manager', stage: 'serving', make: () => fake('tokencleaner') });
  await m.start('before-serving');
  assert.equal(calls, ['start namespace']);
  await m.start('serving');
  assert.equal(calls, ['start namespace', 'start bootstrap-controller', 'start tokencleaner']);
  assert.equal(m.report(), [
    { name: 'namespace', runBy: 'kube-controller-manager', state: 'running' },
    { name: 'garbagecollector', runBy: 'kube-controller-manager', state: 'disabled' },
    { name: 'bootstrap-controller', runBy: 'kube-apiserver', state: 'running' },
    { name: 'serviceaccount', runBy: 'kube-controller-manager', state: 'not-applicable' },
    { name: 'tokencleaner', runBy: 'kube-controller-manager', state: 'running' },
  ]);
  calls.length = 0;
  await m.stop();
  await m.idle();
  assert.equal(calls, ['stop namespace', 'stop bootstrap-controller', 'stop tokencleaner', 'idle namespace', 'idle bootstrap-controller', 'idle tokencleaner']);
});

test('ControllerManager: kube-apiserver\'s controllers are not selectable; `-tokencleaner` turns the cleaner off', async () => {
  const started: string[] = [];
  const fake = (name: string): Controller => ({ start: () => void started.push(name), stop: () => undefined, idle: () => Promise.resolve() });
  const m = new ControllerManager(['-tokencleaner'], pino({ level: 'silent' }))
    .add({ name: 'bootstrap-controller', runBy: 'kube-apiserver', stage: 'serving', make: () => fake('bootstrap-controller') })
    .add({ name: 'namespace', runBy: 'kube-controller-manager', stage: 'serving', make: () => fake('namespace') })
    .add({ name: 'tokencleaner', runBy: 'kube-controller-manager', stage: 'serving', make: () => fake('tokencleaner') });
  await m.start('serving');
  assert.equal(started, ['bootstrap-controller'], 'no `*`: no kube-controller-manager controller');
});

test.run();
