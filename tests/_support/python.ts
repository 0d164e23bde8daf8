/**
 * libsodium through python3-nacl (Debian's python3, installed by `.ci/run`; the python3
 * first on PATH may be another one), for interop tests.
 */
export const PYTHON = Deno.env.get("SEALPOST_PYTHON") ?? "/usr/bin/python3";

const SCRIPT = new URL("./libsodium_cli.py", import.meta.url).pathname;

async function run(args: string[], input = ""): Promise<string> {
  const child = new Deno.Command(PYTHON, {
    args: [SCRIPT, ...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(input));
  await writer.close();
  const out = await child.output();
  if (!out.success) {
    throw new Error(`libsodium_cli.py ${args[0]}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return new TextDecoder().decode(out.stdout).trim();
}

/** libsodium's crypto_box_keypair. */
export async function naclKeygen(): Promise<{ publicKey: Uint8Array; secretKey: Uint8Array }> {
  const [pk, sk] = (await run(["keygen"])).split(" ");
  return { publicKey: Uint8Array.fromBase64(pk), secretKey: Uint8Array.fromBase64(sk) };
}

/** libsodium's crypto_box_seal. */
export async function naclSeal(message: Uint8Array, publicKey: Uint8Array): Promise<Uint8Array> {
  return Uint8Array.fromBase64(await run(["seal", publicKey.toBase64()], message.toBase64()));
}

/** libsodium's crypto_box_seal_open; throws when it fails. */
export async function naclOpen(sealed: Uint8Array, secretKey: Uint8Array): Promise<Uint8Array> {
  return Uint8Array.fromBase64(await run(["open", secretKey.toBase64()], sealed.toBase64()));
}
