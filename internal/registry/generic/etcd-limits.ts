/**
 * etcd's request limits as kube-apiserver 1.24 meets them, for a write whose object is too big
 * (a plain 500, nothing written):
 *   - over etcd's --max-request-bytes (1.5 MiB): etcd answers `etcdserver: request is too large`;
 *   - over the gRPC client's send limit (2 MiB), before etcd sees it: `rpc error: code =
 *     ResourceExhausted desc = trying to send message larger than max (N vs. 2097152)`, N the
 *     size of the etcd Txn request. Given for custom resources, which kube stores as JSON (their
 *     etcd value is the object's JSON and a newline, so N is known); a built-in kind is stored in
 *     Protobuf there, and keeps the first answer.
 * kube's create, update and patch handlers try a too-large object once more without its
 * managedFields (handlers.isTooLargeError): the store does the same (store-base.ts write).
 */
import { ApiError, failure } from '../../api/errors.ts';

/** etcd's default --max-request-bytes. */
export const MAX_OBJECT_BYTES = 1.5 * 1024 * 1024;
/** The gRPC client's max send message size kube's etcd3 client runs with. */
const MAX_GRPC_SEND_BYTES = 2 * 1024 * 1024;
/** The resourceVersion placeholder our log bytes carry in metadata (`"resourceVersion":"",`), not in etcd's value. */
const RV_PLACEHOLDER_BYTES = '"resourceVersion":"",'.length;

const varintBytes = (n: number): number => {
  let bytes = 1;
  while (n >= 0x80) {
    n = Math.floor(n / 0x80);
    bytes++;
  }
  return bytes;
};
/** A length-delimited protobuf field (tag < 16): tag, length, content. */
const field = (len: number): number => 1 + varintBytes(len) + len;

/**
 * The size of etcd3's Txn for a create (If ModRevision(key) = 0, Then Put) or an update (If
 * ModRevision(key) = rev, Then Put, Else Get) of a `valueBytes` value at `keyBytes`.
 */
export function etcdTxnBytes(keyBytes: number, valueBytes: number, rev: number | null): number {
  const compare = 2 + field(keyBytes) + 1 + varintBytes(rev ?? 0); // target MOD, key, mod_revision (a oneof: written when 0)
  const put = field(keyBytes) + field(valueBytes);
  const success = field(put); // RequestOp.request_put
  const failure = rev === null ? 0 : field(field(field(keyBytes))); // RequestOp.request_range{key}
  return field(compare) + field(success) + failure;
}

export interface TooLargeCheck {
  /** The object's log bytes. */
  bytes: number;
  /** etcd's key of a custom resource (`/registry/<group>/<resource>/[<namespace>/]<name>`); undefined for a built-in kind. */
  customResourceKey?: string;
  /** The stored resourceVersion an update is conditional on (null: a create). */
  rev: number | null;
}

/** kube's 500 for an object etcd will not take, or undefined when it fits. */
export function etcdRefusal(c: TooLargeCheck): ApiError | undefined {
  if (c.bytes <= MAX_OBJECT_BYTES) return undefined;
  if (c.customResourceKey !== undefined) {
    const txn = etcdTxnBytes(Buffer.byteLength(c.customResourceKey), c.bytes - RV_PLACEHOLDER_BYTES + 1, c.rev);
    if (txn > MAX_GRPC_SEND_BYTES) return new ApiError(failure(500, undefined, `rpc error: code = ResourceExhausted desc = trying to send message larger than max (${txn} vs. ${MAX_GRPC_SEND_BYTES})`));
  }
  return new ApiError(failure(500, undefined, 'etcdserver: request is too large'));
}
