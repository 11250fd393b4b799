/**
 * The module map of docs/architecture.md ("Module map"), checked by dependency-cruiser on every
 * `npm test` (internal/layering.test.ts runs `depcruise internal cmd test bench`).
 *
 * Each folder under internal/ (and internal/lazy.ts) may import only the folders listed for it
 * below; cmd/, test/ and bench/ are checked as wholes. Type-only imports count (they are imports of
 * the contract's owner all the same). A new folder under internal/ must be added to FOLDERS, or the
 * `unmapped` rule fails.
 */

/** Leaves: shared libraries that import nothing but the leaves listed (no I/O, no server state). */
const LEAVES = ['api', 'features', 'gocompat', 'schema', 'lazy.ts', 'validation', 'selectors', 'decode', 'patch', 'apiextensions'];
/** Above the leaves, below the registry: storage, and the request services that need only leaves. */
const ENGINES = ['storage', 'flowcontrol', 'health', 'audit'];

/** folder → the internal folders it may import (besides itself). */
const FOLDERS = {
  // shared leaves; gocompat (Go's quoting, time, JSON equality) is the bottom one
  gocompat: [],
  api: ['gocompat'],
  features: ['gocompat'],
  schema: ['gocompat'],
  'lazy.ts': [],
  validation: ['api', 'gocompat'],
  selectors: ['api', 'validation', 'gocompat'],
  decode: ['api', 'schema', 'gocompat'],
  patch: ['api', 'gocompat', 'schema', 'decode'],
  // CRD schemas: structural checks, validation, pruning, defaulting of custom resources (pure)
  apiextensions: ['api', 'gocompat', 'schema', 'validation', 'decode'],
  // engines and request services: leaves only
  storage: LEAVES,
  flowcontrol: LEAVES,
  health: LEAVES,
  audit: LEAVES,
  // on storage
  registry: [...LEAVES, 'storage', 'flowcontrol'],
  replay: [...LEAVES, 'storage'],
  metrics: [...LEAVES, 'storage', 'flowcontrol'],
  // on the registry: admission may use auth's RBAC rules (the escalation check), never the reverse
  auth: [...LEAVES, ...ENGINES, 'registry'],
  admission: [...LEAVES, ...ENGINES, 'registry', 'auth'],
  watch: [...LEAVES, ...ENGINES, 'registry'],
  http: [...LEAVES, ...ENGINES, 'registry', 'metrics', 'auth', 'admission', 'watch'],
  controllers: [...LEAVES, ...ENGINES, 'registry', 'metrics', 'auth', 'admission', 'watch', 'http'],
  app: [...LEAVES, ...ENGINES, 'registry', 'replay', 'metrics', 'auth', 'admission', 'watch', 'http', 'controllers'],
};

/**
 * auth builds on the registry's contracts, it does not read kinds' stores: only the wiring that
 * ctrlmgr moves out of auth does (see KNOWN). So auth → registry is limited to registry/rest.
 */
const NARROW = {
  auth: { registry: '^internal/registry/rest/' },
};

/**
 * The one documented exception: the review kinds (TokenReview, SubjectAccessReview and the other
 * access reviews, TokenRequest) are answered by auth's authenticators, authorizers and token
 * issuer, so these registry files (and only these) may import auth.
 */
const REVIEW_KINDS = [
  '^internal/registry/rest/strategy[.]ts$', // the options carrying the Authorizer / TokenAuthenticator
  '^internal/registry/rest/token-request[.]ts$',
  '^internal/registry/registry[.]ts$', // the reviews' default authorizer
  '^internal/registry/authentication/',
  '^internal/registry/authorization/',
  '^internal/registry/core/serviceaccount-token[.]ts$',
];

/**
 * Upward imports being removed by other helpers of issue 25 (the lead drops each entry when that
 * branch is merged: internal/layering.test.ts fails on an entry that no import matches any more).
 * from → to, both regular expressions.
 */
const KNOWN = [
];

const esc = (s) => s.replace(/[.]/g, '[.]');
const folderPath = (f) => (f.endsWith('.ts') ? `^internal/${esc(f)}$` : `^internal/${f}/`);
const knownFrom = (rx) => KNOWN.filter((k) => k.from === rx);

const forbidden = [];

for (const [folder, allowed] of Object.entries(FOLDERS)) {
  const narrow = NARROW[folder] ?? {};
  const allowedPaths = [folderPath(folder), ...allowed.filter((a) => !narrow[a]).map(folderPath), ...Object.values(narrow)];
  const exempt = [...KNOWN.map((k) => k.from), ...(folder === 'registry' ? REVIEW_KINDS : [])];
  forbidden.push({
    name: `layer-${folder}`,
    comment: `internal/${folder} may import only: ${allowed.join(', ') || 'nothing internal'} (docs/architecture.md, Module map)`,
    severity: 'error',
    from: { path: folderPath(folder), pathNot: exempt },
    to: { path: '^(internal|cmd|test|bench|dist)/', pathNot: allowedPaths },
  });
}

// The review-kind files: the registry's own imports plus auth.
forbidden.push({
  name: 'layer-registry-review-kinds',
  comment: 'the review kinds may import auth besides what the registry may import',
  severity: 'error',
  from: { path: REVIEW_KINDS },
  to: { path: '^(internal|cmd|test|bench|dist)/', pathNot: [folderPath('registry'), ...FOLDERS.registry.map(folderPath), folderPath('auth')] },
});

// Files with a known violation: everything their folder allows, plus that one target.
for (const from of new Set(KNOWN.map((k) => k.from))) {
  const folder = Object.keys(FOLDERS).find((f) => new RegExp(`^\\^internal/${f.replace('.', '\\[\\.\\]')}`).test(from));
  const base = folder ? [folderPath(folder), ...FOLDERS[folder].map(folderPath)] : ['^(internal|cmd)/'];
  forbidden.push({
    name: `known-violation`,
    comment: `temporarily allowed (${knownFrom(from).map((k) => k.owner).join(', ')} removes it): ${from} → ${knownFrom(from).map((k) => k.to).join(', ')}`,
    severity: 'error',
    from: { path: from },
    to: { path: '^(internal|cmd|test|bench|dist)/', pathNot: [...base, ...knownFrom(from).map((k) => k.to)] },
  });
}

// Inside the registry: rest (the contracts every kind implements) ← generic (the store engine) ←
// the kinds' folders (core, storage, rbac, …) ← registry.ts, kinds.ts (the table of kinds).
const KIND_FOLDERS = '^internal/registry/(?!rest/|generic/)[^/]+/';
forbidden.push(
  {
    name: 'registry-rest',
    comment: 'registry/rest holds the contracts: it imports no other part of the registry',
    severity: 'error',
    from: { path: '^internal/registry/rest/' },
    to: { path: '^internal/registry/', pathNot: '^internal/registry/rest/' },
  },
  {
    name: 'registry-generic',
    comment: 'registry/generic is the engine every kind uses: it imports rest, never a kind (its tests may use kinds as fixtures)',
    severity: 'error',
    from: { path: '^internal/registry/generic/', pathNot: '[.]test[.]ts$' },
    to: { path: ['^internal/registry/[^/]+[.]ts$', KIND_FOLDERS] },
  },
  {
    name: 'registry-kinds',
    comment: "a kind's folder does not import the table of kinds (registry.ts, kinds.ts)",
    severity: 'error',
    from: { path: KIND_FOLDERS },
    to: { path: '^internal/registry/[^/]+[.]ts$' },
  },
);

forbidden.push(
  {
    name: 'unmapped',
    comment: 'every folder under internal/ has its line in FOLDERS (and in the module map)',
    severity: 'error',
    from: { path: '^internal/', pathNot: [...Object.keys(FOLDERS).map(folderPath), '^internal/layering[.]test[.]ts$'] },
    to: {},
  },
  {
    name: 'cmd-not-test',
    comment: 'cmd/ is shipped in dist/: it imports internal/ and cmd/, never test/ or bench/',
    severity: 'error',
    from: { path: '^cmd/', pathNot: KNOWN.map((k) => k.from) },
    to: { path: '^(test|bench|dist)/' },
  },
  {
    name: 'test-not-bench',
    comment: 'bench/ builds on test/ (harness, targets), not the reverse',
    severity: 'error',
    from: { path: '^test/' },
    to: { path: '^(bench|dist)/' },
  },
  {
    name: 'not-dist',
    comment: 'dist/ is build output: nothing imports it',
    severity: 'error',
    from: {},
    to: { path: '^dist/' },
  },
  {
    name: 'no-cycle-across-folders',
    comment: 'an import cycle stays inside one folder of internal/ (or inside cmd/, test/, bench/)',
    severity: 'error',
    from: { path: '^(internal/[^/]+|cmd|test|bench)/' },
    to: { circular: true, via: { pathNot: '^$1/' } },
  },
  {
    name: 'not-unresolvable',
    comment: 'an import that does not resolve is a typo or a missing file',
    severity: 'error',
    from: { path: '^(internal|cmd|test|bench)/' },
    to: { couldNotResolve: true },
  },
);

module.exports = {
  forbidden,
  options: {
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // node_modules is a symlink in worktrees (resolved as ../../main/node_modules/…): not anchored.
    doNotFollow: { path: ['node_modules', '^dist/'] },
  },
};
// For internal/layering.test.ts (not enumerable: dependency-cruiser's schema allows no extra keys).
Object.defineProperty(module.exports, 'known', { value: KNOWN, enumerable: false });
