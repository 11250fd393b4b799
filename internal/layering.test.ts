/**
 * The layering rule of docs/architecture.md ("Layers"), for the two lowest layers: storage imports
 * no layer above it, and the registry imports neither admission, http, controllers nor app
 * (those implement or call the registry's contracts, e.g. registry/rest/admission.ts).
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const internal = dirname(fileURLToPath(import.meta.url));
const ABOVE: Record<string, string[]> = {
  storage: ['registry', 'admission', 'auth', 'http', 'watch', 'controllers', 'app'],
  // The review kinds (TokenReview, SubjectAccessReview) are answered by auth's authenticators and
  // authorizers, so registry → auth stays allowed (docs/architecture.md, Layers).
  registry: ['admission', 'http', 'controllers', 'app'],
};

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) yield* sources(p);
    else if (e.name.endsWith('.ts')) yield p;
  }
}

/** Every `import … from '<relative>'` / `export … from` / `import('<relative>')` of a file, resolved. */
function imports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const out: string[] = [];
  for (const m of text.matchAll(/(?:from\s+|import\s*\(\s*)'(\.{1,2}\/[^']+)'/g)) out.push(resolve(dirname(file), m[1]!));
  return out;
}

for (const [layer, above] of Object.entries(ABOVE)) {
  test(`internal/${layer} imports no higher layer (${above.join(', ')})`, () => {
    const offending: string[] = [];
    for (const file of sources(join(internal, layer))) {
      for (const target of imports(file)) {
        const top = relative(internal, target).split('/')[0]!;
        if (above.includes(top)) offending.push(`${relative(internal, file)} → ${relative(internal, target)}`);
      }
    }
    assert.equal(offending, []);
  });
}

test('the check sees an upward import', () => {
  const top = relative(internal, resolve(join(internal, 'registry/core'), '../../http/table.ts')).split('/')[0];
  assert.is(top, 'http');
});

test.run();
