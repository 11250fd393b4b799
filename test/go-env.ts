/**
 * The environment the client-go suites run `go` in: modules and build cache under `.cache/go`
 * (outside git, kept between runs), modules fetched through the Go module proxy as go.mod
 * requires, and the machine's Go toolchain only (no toolchain download).
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Writable } from 'node:stream';
import * as assert from 'uvu/assert';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const GO_CACHE = path.join(ROOT, '.cache', 'go');

/** A Go program's directory under test/go/. */
export const goProgram = (name: string): string => path.join(ROOT, 'test', 'go', name);

/** process.env plus the Go cache settings; creates the cache directory. */
export function goEnv(): NodeJS.ProcessEnv {
  mkdirSync(GO_CACHE, { recursive: true });
  return { ...process.env, GOPATH: GO_CACHE, GOMODCACHE: path.join(GO_CACHE, 'mod'), GOCACHE: path.join(GO_CACHE, 'build'), GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
}

/** A Go program of test/go/ run with `go run .`, read as one JSON line per step on its stdout. */
export interface GoSteps {
  /** The next line, which must be step `name` without an `error`; fails the test otherwise. */
  step(name: string): Promise<Record<string, any>>;
  /** Its stdin (for programs that wait for a go-ahead). */
  stdin: Writable;
  exited: Promise<number | null>;
  /** The last 2,000 characters of its stderr. */
  stderr(): string;
  /** SIGKILL it if it still runs. */
  kill(): void;
}

/**
 * Start `go run . <args>` in test/go/<name>. A step waits up to 9 minutes (the first build fetches
 * and compiles client-go); a program that ends early fails the step with its stderr.
 */
export function startGoSteps(name: string, args: string[]): GoSteps {
  const go = spawn('go', ['run', '.', ...args], { cwd: goProgram(name), env: goEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  go.stderr!.on('data', (b: Buffer) => (stderr += b));
  const lines = createInterface({ input: go.stdout! })[Symbol.asyncIterator]();
  const exited = new Promise<number | null>((r) => go.on('exit', r));
  return {
    stdin: go.stdin!,
    exited,
    stderr: () => stderr.slice(-2000),
    kill: () => {
      if (go.exitCode === null) go.kill('SIGKILL');
    },
    async step(step) {
      const timer = setTimeout(() => go.kill('SIGKILL'), 9 * 60 * 1000);
      const n = await lines.next();
      clearTimeout(timer);
      if (n.done) assert.unreachable(`go program ended before "${step}" (Go and the module proxy are required): ${stderr.slice(-4000)}`);
      const v = JSON.parse(n.value) as Record<string, any>;
      assert.is(v.step, step, n.value);
      assert.not.ok(v.error, `${step}: ${v.error}\n${stderr.slice(-2000)}`);
      return v;
    },
  };
}
