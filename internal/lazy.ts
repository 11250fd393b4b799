/**
 * A CommonJS package loaded at its first use instead of at import. Start-up time: an HTTP client
 * (undici, ~45 ms to load) is needed only once a webhook or a provider is called, and a server
 * that never calls one never loads it. Properties are read from the real module on every access,
 * so classes, functions and constants behave as with a static import; `import type` gives the
 * types.
 *
 *   import type * as Undici from 'undici';
 *   const undici = lazyRequire<typeof Undici>('undici');   // new undici.Agent(…), undici.request(…)
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

export function lazyRequire<T extends object>(specifier: string): T {
  let loaded: T | undefined;
  const load = (): T => (loaded ??= require(specifier) as T);
  return new Proxy({} as T, { get: (_target, prop) => Reflect.get(load(), prop) });
}
