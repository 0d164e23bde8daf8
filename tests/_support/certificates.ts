/**
 * Test certificates made with the `openssl` command line (Debian's `openssl`): a CA, and leaf
 * certificates it signs for given names; and the certificate a TLS server serves.
 */
import { X509Certificate } from "node:crypto";
import { join } from "node:path";
import tls from "node:tls";

/** A certificate and its key, as PEM text and as files. */
export interface TestPem {
  cert: string;
  key: string;
  certFile: string;
  keyFile: string;
  /** SHA-256 fingerprint of the certificate (`AB:CD:…`). */
  fingerprint: string;
}

async function openssl(args: string[], cwd: string): Promise<void> {
  const out = await new Deno.Command("openssl", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!out.success) {
    throw new Error(`openssl ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
}

async function read(dir: string, name: string): Promise<TestPem> {
  const certFile = join(dir, `${name}.crt`);
  const keyFile = join(dir, `${name}.key`);
  const cert = await Deno.readTextFile(certFile);
  return {
    cert,
    key: await Deno.readTextFile(keyFile),
    certFile,
    keyFile,
    fingerprint: new X509Certificate(cert).fingerprint256,
  };
}

const EC_KEY = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"];

/**
 * A self-signed CA (P-256) named `name`, in `dir`.
 *
 * @example
 * ```ts
 * const ca = await makeCa(dir, "test-ca");
 * ```
 */
export async function makeCa(dir: string, name: string): Promise<TestPem> {
  await openssl([
    "req",
    "-x509",
    ...EC_KEY,
    "-keyout",
    `${name}.key`,
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-subj",
    `/CN=${name}`,
  ], dir);
  return await read(dir, name);
}

/**
 * A leaf certificate for `names` (DNS names, or IP addresses) signed by `ca`, in `dir`.
 *
 * @example
 * ```ts
 * const leaf = await issue(dir, ca, "server", ["localhost", "127.0.0.1"]);
 * ```
 */
export async function issue(
  dir: string,
  ca: TestPem,
  name: string,
  names: string[],
): Promise<TestPem> {
  const san = names.map((n) => /^[\d.]+$|:/.test(n) ? `IP:${n}` : `DNS:${n}`).join(",");
  const ext = join(dir, `${name}.ext`);
  await Deno.writeTextFile(ext, `subjectAltName=${san}\nbasicConstraints=CA:FALSE\n`);
  await openssl(
    ["req", ...EC_KEY, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", `/CN=${names[0]}`],
    dir,
  );
  await openssl([
    "x509",
    "-req",
    "-in",
    `${name}.csr`,
    "-CA",
    ca.certFile,
    "-CAkey",
    ca.keyFile,
    "-CAcreateserial",
    "-out",
    `${name}.crt`,
    "-days",
    "2",
    "-extfile",
    ext,
  ], dir);
  return await read(dir, name);
}

/**
 * The SHA-256 fingerprint of the certificate a TLS server on loopback `port` serves to
 * `servername`, verified against `ca`.
 *
 * @example
 * ```ts
 * assert.equal(await servedFingerprint(port, ca.cert, "localhost"), leafFingerprint);
 * ```
 */
export async function servedFingerprint(
  port: number,
  ca: string | string[],
  servername: string,
): Promise<string> {
  const socket = tls.connect({ host: "127.0.0.1", port, servername, ca });
  try {
    await new Promise((resolve, reject) => {
      socket.once("secureConnect", resolve);
      socket.once("error", reject);
    });
    return socket.getPeerX509Certificate()!.fingerprint256;
  } finally {
    socket.destroy();
  }
}
