/**
 * The authenticating proxy (kube's requestheader authenticator, k8s.io/apiserver
 * pkg/authentication/request/headerrequest): a front proxy authenticates the user itself and
 * passes the identity in headers (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>). The
 * headers are believed only from a proxy that proves itself with a client certificate verified
 * against `--requestheader-client-ca-file` and, when `--requestheader-allowed-names` is set, whose
 * CN is one of those names. Anything else — no certificate, a certificate of the client CA, a
 * proxy certificate with another CN — and the headers carry no identity.
 *
 * Contract (authn.ts): no certificate → null; a certificate that fails the proxy checks → 401
 * (kube's Verifier returns an error, so the union fails unless another authenticator succeeds);
 * a good proxy certificate without a username header → null (the x509 authenticator then judges
 * the certificate as a user certificate, and a proxy CA's certificate is none).
 */
import type { PeerCertificate } from 'node:tls';
import type { UserInfo } from '../api/types.ts';
import { unauthorized } from '../api/errors.ts';
import { withAuthenticatedGroup, type Authenticator } from './authn.ts';
import { ClientCertVerifier, DynamicCaBundle, commonName, type CaSource } from './client-ca.ts';
import { allValues, firstValue, headerLines, removeHeaders, sortedKeys, unescapeExtraKey } from './headers.ts';

export interface RequestHeaderConfig {
  /** --requestheader-client-ca-file's certificates. */
  ca: CaSource;
  /** --requestheader-allowed-names (empty: any CN the CA signed). */
  allowedNames: string[];
  /** --requestheader-username-headers, tried in order; the first with a value wins. */
  usernameHeaders: string[];
  /** --requestheader-group-headers: every value of every one is a group. */
  groupHeaders: string[];
  /** --requestheader-extra-headers-prefix: `<prefix><key>: value` lines become extra[key]. */
  extraHeaderPrefixes: string[];
}

/** The requestheader flags as given (kube-apiserver's names). */
export interface RequestHeaderFlags {
  clientCaFile: string;
  allowedNames: string[];
  usernameHeaders: string[];
  groupHeaders: string[];
  extraHeadersPrefix: string[];
}

/**
 * RequestHeaderAuthenticationOptions.Validate then trimHeaders: a whitespace-only value is a
 * start-up error in kube's words; header names are trimmed (allowed names are compared as given).
 */
export function validateRequestHeaderFlags(f: Omit<RequestHeaderFlags, 'clientCaFile'>): void {
  const check = (flag: string, values: string[]): void => {
    if (values.some((v) => v.trim() === '')) throw new Error(`empty value in ${JSON.stringify(flag)}`);
  };
  check('requestheader-username-headers', f.usernameHeaders);
  check('requestheader-group-headers', f.groupHeaders);
  check('requestheader-extra-headers-prefix', f.extraHeadersPrefix);
  check('requestheader-allowed-names', f.allowedNames);
}

/** The authenticator's configuration from the flags (the CA file is read here; errors as kube's). */
export function requestHeaderConfig(f: RequestHeaderFlags, onReloadError?: (err: Error) => void): RequestHeaderConfig & { ca: DynamicCaBundle } {
  validateRequestHeaderFlags(f);
  return {
    ca: DynamicCaBundle.load(f.clientCaFile, 'request-header', onReloadError),
    allowedNames: f.allowedNames,
    usernameHeaders: f.usernameHeaders.map((h) => h.trim()),
    groupHeaders: f.groupHeaders.map((h) => h.trim()),
    extraHeaderPrefixes: f.extraHeadersPrefix.map((h) => h.trim()),
  };
}

export function requestHeaderAuthenticator(cfg: RequestHeaderConfig): Authenticator {
  const verifier = new ClientCertVerifier(cfg.ca);
  const names = cfg.usernameHeaders.map((h) => h.toLowerCase());
  const groupNames = cfg.groupHeaders.map((h) => h.toLowerCase());
  const prefixes = cfg.extraHeaderPrefixes.map((h) => h.toLowerCase());
  const allowed = (peer: PeerCertificate): boolean => cfg.allowedNames.length === 0 || cfg.allowedNames.includes(commonName(peer));
  return {
    async authenticate(req) {
      const cert = req.peerCertificate;
      if (!cert || Object.keys(cert).length === 0) return null;
      if (!verifier.verify(cert).ok) throw unauthorized();
      if (!allowed(cert)) throw unauthorized();
      const lines = headerLines(req.headers, req.rawHeaders);
      let username = '';
      for (const h of names) {
        username = firstValue(lines, h);
        if (username) break;
      }
      if (!username) return null;
      const groups: string[] = [];
      for (const h of groupNames) for (const v of allValues(lines, h)) if (v) groups.push(v);
      const extra: Record<string, string[]> = {};
      for (const p of prefixes) {
        for (const [name, value] of lines) {
          if (name.length < p.length || !name.startsWith(p)) continue;
          const key = unescapeExtraKey(name.slice(p.length));
          (extra[key] ??= []).push(value);
        }
      }
      // kube clears the headers it used, so nothing later (or proxied on) sees them again.
      removeHeaders(req.headers, req.rawHeaders, (n) => names.includes(n) || groupNames.includes(n) || prefixes.some((p) => n.startsWith(p)));
      const user: UserInfo = { username, groups };
      if (Object.keys(extra).length) user.extra = sortedKeys(extra);
      return withAuthenticatedGroup(user);
    },
  };
}
