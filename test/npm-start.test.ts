/**
 * `npm start` as an operator runs it (prestart builds dist/ when stale, then the server), stopped
 * by a SIGTERM to npm's own pid (a process supervisor that knows only that pid): the server must
 * shut down with it, not be left running under init. npm forwards the signal to the script's
 * shell; package.json's `exec node …` makes that shell the server itself. This server only (how
 * it is launched).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { once } from 'node:events';
import { ROOT } from '../cmd/build-stamp.ts';
import { tempDir } from './harness.ts';

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

test('SIGTERM to npm\'s pid stops the server it started', async () => {
  const dataDir = tempDir('apiserver-npm-start-');
  // npm's own CLI when this runs under npm (npm test), else the npm on PATH.
  const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
  const proc = spawn(npm[0]!, [...npm.slice(1), 'start', '--', '--data-dir', dataDir, '--secure-port', '0'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = once(proc, 'exit');
  let serverPid = 0;
  try {
    let buf = '';
    // The prestart build may run first (a stale dist/): up to a few minutes on a busy machine.
    serverPid = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`npm start: no ready line: ${buf.slice(-4000)}`)), 240_000);
      const onData = (c: Buffer): void => {
        buf += c.toString();
        const m = /"pid":(\d+)[^\n]*API server ready/.exec(buf);
        if (m) {
          clearTimeout(timer);
          resolve(Number(m[1]));
        }
      };
      proc.stdout!.on('data', onData);
      proc.stderr!.on('data', onData);
      proc.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`npm start exited with ${code}: ${buf.slice(-4000)}`));
      });
    });
    assert.ok(alive(serverPid), 'the server runs');
    assert.is.not(serverPid, proc.pid, 'npm is not the server');
    proc.kill('SIGTERM');
    const deadline = Date.now() + 20_000;
    while (alive(serverPid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.not.ok(alive(serverPid), `the server (pid ${serverPid}) is still running after npm got SIGTERM`);
    await exited;
  } finally {
    if (serverPid && alive(serverPid)) process.kill(serverPid, 'SIGKILL');
    if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test.run();
