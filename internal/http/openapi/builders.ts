/**
 * Everything that builds or encodes a document, in one module the service imports on the first
 * OpenAPI request: a server that is never asked for OpenAPI never loads (or transpiles) it.
 */
export { buildSwagger, generatedProvider } from './v2.ts';
export { buildV3 } from './v3.ts';
export { encodeSwagger } from './proto.ts';
export { encodeOpenApiV3 } from './proto3.ts';
export { generatedSource, descriptionsOf } from '../../schema/registry.ts';
