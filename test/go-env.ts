/**
 * The environment the client-go suites run `go` in: modules and build cache under `.cache/go`
 * (outside git, kept between runs), modules fetched through the Go module proxy as go.mod
 * requires, and the machine's Go toolchain only (no toolchain download).
 */
import { mkdirSync } from 'node:fs';
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
