/**
 * The `--service-account-*` and `--api-audiences` flags, checked and resolved as kube-apiserver
 * 1.24 does (cmd/kube-apiserver/app/server.go Complete, pkg/kubeapiserver/options/
 * authentication.go Validate, cmd/kube-apiserver/app/options/validation.go validateTokenRequest),
 * with kube's start-up messages, into the configuration the token issuer, the authenticators and
 * the discovery endpoints share.
 *
 * This server's one departure: started with none of --service-account-signing-key-file,
 * --service-account-key-file and --service-account-issuer, it does not fail as kube does
 * ("--service-account-signing-key-file and --service-account-issuer are required flags") but
 * signs with a key generated once under the PKI dir and the issuer kubeadm configures
 * (`https://kubernetes.default.svc.cluster.local`), so `npm start` needs no flags. Given any of
 * the three, kube's rules apply unchanged.
 */
import type { KeyObject } from 'node:crypto';
import { algorithmOf, ensureDefaultSigningKey, keyId, privateKeyFromFile, publicKeysFromFile, type SigningAlgorithm } from './keys.ts';

/** kubeadm's --service-account-issuer (https://kubernetes.default.svc.<cluster domain>). */
export const DEFAULT_ISSUER = 'https://kubernetes.default.svc.cluster.local';

/** The flags as given (kube names in comments). */
export interface ServiceAccountFlags {
  /** --service-account-signing-key-file */
  signingKeyFile?: string;
  /** --service-account-key-file (repeatable) */
  keyFiles?: string[];
  /** --service-account-issuer (repeatable; the first issues) */
  issuers?: string[];
  /** --api-audiences (comma-separated, repeatable) */
  apiAudiences?: string[];
  /** --service-account-lookup (default true) */
  lookup?: boolean;
  /** --service-account-max-token-expiration in ms (0/absent: no maximum) */
  maxTokenExpirationMs?: number;
  /** --service-account-extend-token-expiration (default true) */
  extendTokenExpiration?: boolean;
  /** --service-account-jwks-uri (default: https://<external address>/openid/v1/jwks) */
  jwksUri?: string;
}

/** The key tokens are signed with. */
export interface SigningKey {
  key: KeyObject;
  alg: SigningAlgorithm;
  kid: string;
}

/** What the issuer, the authenticators and the discovery documents are built from. */
export interface ServiceAccountConfig {
  /** Every accepted issuer; the first is written into new tokens. */
  issuers: string[];
  /** The API audiences (--api-audiences, default the issuers). */
  apiAudiences: string[];
  /** Verification keys, in flag and file order. */
  publicKeys: KeyObject[];
  signing: SigningKey;
  lookup: boolean;
  /** 0: no maximum. */
  maxExpirationSeconds: number;
  extendExpiration: boolean;
  /** The discovery document's jwks_uri, when given ('' → built from the external address). */
  jwksUri: string;
}

/** WarnOnlyBoundTokenExpirationSeconds: the projected-token lifetime that triggers the extension. */
export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 60 * 60 + 7;
/** ExpirationExtensionSeconds: one year. */
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;

const MAX_EXPIRATION_LOW_S = 3600;
const MAX_EXPIRATION_HIGH_S = 2 ** 32;

/** utilerrors.NewAggregate's text: one error as is, several as `[a, b]`. */
function aggregate(errs: string[]): Error {
  return new Error(errs.length === 1 ? errs[0] : `[${errs.join(', ')}]`);
}

/**
 * Go's url.Parse failure for a string, or '' when it parses. Only the failures a plausible
 * issuer can hit: a leading colon, a colon in the first segment of a scheme-less path, control
 * characters.
 */
export function goUrlParseError(raw: string): string {
  if (/[\x00-\x1f\x7f]/.test(raw)) return 'net/url: invalid control character in URL';
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) break;
      continue;
    }
    if (c === ':') {
      if (i === 0) return 'missing protocol scheme';
      return '';
    }
    break;
  }
  // No scheme: a relative path whose first segment holds a colon is refused.
  const firstSegment = raw.split('/')[0]!;
  if (!raw.startsWith('/') && firstSegment.includes(':')) return 'first path segment in URL cannot contain colon';
  return '';
}

/** No signing key, key file or issuer given: this server's own key (ensureDefaultSigningKey) and issuer. */
export function usesDefaultSigningKey(flags: ServiceAccountFlags): boolean {
  return !flags.signingKeyFile && (flags.keyFiles ?? []).length === 0 && (flags.issuers ?? []).length === 0;
}

/**
 * Resolve the flags, or throw kube's start-up error. `pkiDir` holds the generated default key;
 * `servingKeyFile` is the TLS key kube falls back to for verification when neither a signing key
 * nor key files are given (kube's --tls-private-key-file defaulting).
 */
export async function resolveServiceAccountConfig(flags: ServiceAccountFlags, pkiDir: string, servingKeyFile?: string): Promise<ServiceAccountConfig> {
  let signingKeyFile = flags.signingKeyFile ?? '';
  let keyFiles = [...(flags.keyFiles ?? [])];
  let issuers = [...(flags.issuers ?? [])];
  const apiAudiencesGiven = (flags.apiAudiences ?? []).filter((a) => a !== '');
  if (usesDefaultSigningKey(flags)) {
    signingKeyFile = await ensureDefaultSigningKey(pkiDir);
    keyFiles = [signingKeyFile];
    issuers = [DEFAULT_ISSUER];
  }
  // Complete(): without a signing key, verification falls back to the serving key.
  if (!signingKeyFile && keyFiles.length === 0 && servingKeyFile) keyFiles = [servingKeyFile];

  // Complete(): the signing key and the maximum lifetime, each fatal at once.
  const maxExpirationSeconds = Math.floor((flags.maxTokenExpirationMs ?? 0) / 1000);
  let signing: SigningKey | undefined;
  if (signingKeyFile && issuers.length && issuers[0] !== '') {
    let key: KeyObject;
    try {
      key = privateKeyFromFile(signingKeyFile);
    } catch (e) {
      throw new Error(`failed to parse service-account-issuer-key-file: ${(e as Error).message}`);
    }
    if (flags.maxTokenExpirationMs && (maxExpirationSeconds < MAX_EXPIRATION_LOW_S || maxExpirationSeconds > MAX_EXPIRATION_HIGH_S)) {
      throw new Error('the service-account-max-token-expiration must be between 1 hour and 2^32 seconds');
    }
    let alg: SigningAlgorithm;
    try {
      alg = algorithmOf(key);
    } catch (e) {
      throw new Error(`failed to build token generator: could not generate signer for ECDSA keypair: ${(e as Error).message}`);
    }
    signing = { key, alg, kid: keyId(key) };
  }

  // Validate(): every error, aggregated.
  const errs: string[] = [];
  const seen = new Set<string>();
  for (const issuer of issuers) {
    if (issuer.includes(':')) {
      const why = goUrlParseError(issuer);
      if (why) {
        errs.push(`service-account-issuer ${JSON.stringify(issuer)} contained a ':' but was not a valid URL: parse ${JSON.stringify(issuer)}: ${why}`);
        continue;
      }
    }
    if (issuer === '') {
      errs.push('service-account-issuer should not be an empty string');
      continue;
    }
    if (seen.has(issuer)) {
      errs.push(`service-account-issuer ${JSON.stringify(issuer)} is already specified`);
      continue;
    }
    seen.add(issuer);
  }
  if (issuers.length === 0) errs.push('service-account-issuer is a required flag');
  if (keyFiles.length === 0) errs.push('service-account-key-file is a required flag');
  const jwksUri = flags.jwksUri ?? '';
  if (jwksUri) {
    const why = goUrlParseError(jwksUri);
    if (why) errs.push(`service-account-jwks-uri must be a valid URL: parse ${JSON.stringify(jwksUri)}: ${why}`);
    else if (!/^https:/i.test(jwksUri)) errs.push(`service-account-jwks-uri requires https scheme, parsed as: ${jwksUri}`);
  }
  const enableAttempted = signingKeyFile !== '' || (issuers.length > 0 && issuers[0] !== '') || apiAudiencesGiven.length > 0;
  if (!enableAttempted) errs.push('--service-account-signing-key-file and --service-account-issuer are required flags');
  if (enableAttempted && !signing) errs.push('--service-account-signing-key-file, --service-account-issuer, and --api-audiences should be specified together');
  if (errs.length) throw aggregate(errs);

  // Building the authenticators: every key file read, its first failure fatal.
  const publicKeys = keyFiles.flatMap((f) => publicKeysFromFile(f));
  return {
    issuers,
    apiAudiences: apiAudiencesGiven.length ? apiAudiencesGiven : [...issuers],
    publicKeys,
    signing: signing!,
    lookup: flags.lookup ?? true,
    maxExpirationSeconds,
    extendExpiration: flags.extendTokenExpiration ?? true,
    jwksUri,
  };
}
