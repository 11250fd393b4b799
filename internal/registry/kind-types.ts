/**
 * The group/version/kinds the built-in kinds carry in bodies, derived from their descriptors (the
 * one hand-kept place a kind is described): each served version's kind, and the kind a
 * subresource takes when it is not its parent's (pods/eviction: policy/v1 Eviction), including
 * those `forOptions` may add (`optionalSubresourceKinds`). A kind's List needs no entry: its name
 * is the kind's plus `List`.
 *
 * cmd/gen-schemas.ts generates a schema for each (and its List) into internal/schema/generated;
 * from those definitions cmd/gen-proto.ts picks the protobuf messages, internal/http/protobuf-schema.ts
 * the kind table and the OpenAPI documents their definitions. docs/adding-a-kind.md is the recipe;
 * test/kinds.test.ts checks every served kind has what it needs.
 */
import type { KindDescriptor } from './rest/strategy.ts';

/** `group/version/Kind` (core: `v1/Kind`), the form of cmd/gen-schemas.ts' manifest. */
export const kindTypeName = (group: string, version: string, kind: string): string => (group ? `${group}/${version}/${kind}` : `${version}/${kind}`);

/** Every kind the descriptors carry in bodies, in registration order, once each. */
export function bodyKinds(descriptors: readonly KindDescriptor[]): string[] {
  const out = new Set<string>();
  for (const d of descriptors) {
    for (const v of d.versions) out.add(kindTypeName(d.group, v, d.kind));
    for (const s of d.subresources ?? []) if (s.kind && s.kind.generated !== false) out.add(kindTypeName(s.kind.group, s.kind.version, s.kind.kind));
    for (const k of d.optionalSubresourceKinds ?? []) out.add(kindTypeName(k.group, k.version, k.kind));
  }
  return [...out];
}
