/**
 * The "bare Node" ceiling: an HTTPS server that reads the request body, parses and re-serializes
 * the JSON, and answers 201 with it. Same TLS setup as the API server (ECDSA P-256 serving cert
 * from internal/auth/pki.ts, client certificates requested and verified against the CA).
 *
 *   node --import tsx bench/ceiling-server.ts <pkiDir> [https|h2compat]
 *
 * `https`    node:https (HTTP/1.1 only) — the ceiling the report divides by.
 * `h2compat` node:http2 createSecureServer with allowHTTP1, the API server's kind of server, so
 *            the cost of the http2 compatibility layer on HTTP/1.1 shows separately.
 *
 * Prints {"port":N} on stdout once listening; stops on SIGTERM or when stdin closes.
 */
import https from 'node:https';
import http2 from 'node:http2';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Http2ServerRequest, Http2ServerResponse } from 'node:http2';
import { ensurePki } from '../internal/auth/pki.ts';

const [pkiDir, mode = 'https'] = process.argv.slice(2);
if (!pkiDir) {
  process.stderr.write('usage: ceiling-server.ts <pkiDir> [https|h2compat]\n');
  process.exit(2);
}
const pki = await ensurePki(pkiDir, { hosts: ['127.0.0.1'] });
const tlsOpts = { cert: pki.serverCertPem, key: pki.serverKeyPem, ca: [pki.caCertPem], requestCert: true, rejectUnauthorized: false, minVersion: 'TLSv1.2' as const };

function handle(req: IncomingMessage | Http2ServerRequest, res: ServerResponse | Http2ServerResponse): void {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let out: string;
    let code = 201;
    try {
      const obj = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      out = JSON.stringify(obj);
    } catch {
      code = 400;
      out = '{"kind":"Status","status":"Failure","code":400}';
    }
    const body = Buffer.from(out);
    res.writeHead(code, { 'content-type': 'application/json', 'content-length': body.length });
    res.end(body);
  });
}

const server = mode === 'h2compat' ? http2.createSecureServer({ ...tlsOpts, allowHTTP1: true, ALPNProtocols: ['h2', 'http/1.1'] }, handle) : https.createServer(tlsOpts, handle);
server.on('tlsClientError', () => undefined);
server.listen(0, '127.0.0.1', () => {
  const addr = server.address() as { port: number };
  process.stdout.write(JSON.stringify({ port: addr.port, mode }) + '\n');
});
const stop = () => process.exit(0);
process.on('SIGTERM', stop);
process.stdin.on('end', stop);
process.stdin.resume();
