/**
 * Buffers that outlive the request that made them (stored objects in the watch ring, the read
 * cache, a batch's unflushed versions). A small Buffer from `Buffer.allocUnsafe`, `Buffer.from`
 * or `Buffer.concat` is a slice of one of Node's pooled slabs (64 KiB on Node 24), shared with
 * whatever else was cut from it: holding the slice holds the whole slab. Measured after 20k
 * creates of 1 KiB ConfigMaps (issue 14): 90 MiB of ArrayBuffers for ~28 MiB of objects in the
 * ring and cache. These allocate memory of the buffer's own, exactly its size.
 */

/** `b` itself when it owns its memory, else a copy that does. */
export function own(b: Buffer): Buffer {
  if (b.byteOffset === 0 && b.buffer.byteLength === b.length) return b;
  const copy = Buffer.allocUnsafeSlow(b.length);
  b.copy(copy);
  return copy;
}

/** `Buffer.concat(parts)` into memory of its own. */
export function concatOwn(parts: readonly Buffer[]): Buffer {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = Buffer.allocUnsafeSlow(n);
  let at = 0;
  for (const p of parts) at += p.copy(out, at);
  return out;
}
