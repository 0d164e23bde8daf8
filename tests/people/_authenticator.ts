/**
 * A software WebAuthn authenticator for tests of the server half: P-256 (ES256) credentials,
 * `none` attestation, discoverable (it keeps the user handle), a signature counter it bumps
 * by `step` per sign-in (0: keeps none). It answers the JSON `@simplewebauthn/browser` would
 * send for the options the server made.
 */
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import { concatBytes as concat } from "../../src/crypto/encoding.ts";
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from "../../src/people/passkeys.ts";

const b64url = (bytes: Uint8Array) => isoBase64URL.fromBuffer(bytes as Uint8Array<ArrayBuffer>);
const sha256 = async (bytes: Uint8Array) =>
  new Uint8Array(await crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>));
const u32 = (n: number) => new Uint8Array([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);

/** An ECDSA signature from WebCrypto's r||s to the DER WebAuthn carries. */
function der(raw: Uint8Array): Uint8Array {
  const int = (x: Uint8Array) => {
    let i = 0;
    while (i < x.length - 1 && x[i] === 0) i++;
    const v = x[i] & 0x80 ? concat(new Uint8Array([0]), x.subarray(i)) : x.subarray(i);
    return concat(new Uint8Array([0x02, v.length]), v);
  };
  const body = concat(int(raw.subarray(0, 32)), int(raw.subarray(32)));
  return concat(new Uint8Array([0x30, body.length]), body);
}

interface Credential {
  keys: CryptoKeyPair;
  userHandle: string;
  counter: number;
}

/** Flags of authenticator data: user present, user verified, attested credential data. */
const UP = 0x01;
const UV = 0x04;
const AT = 0x40;

export class SoftAuthenticator {
  readonly credentials = new Map<string, Credential>();

  constructor(private origin: string, private step = 1) {}

  /** Creates a credential for `options`, as `startRegistration` would answer. */
  async register(
    options: PublicKeyCredentialCreationOptionsJSON,
  ): Promise<RegistrationResponseJSON> {
    const keys = await crypto.subtle.generateKey({ name: "ECDSA", namedCurve: "P-256" }, true, [
      "sign",
      "verify",
    ]);
    const raw = new Uint8Array(await crypto.subtle.exportKey("raw", keys.publicKey));
    const cose = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2],
        [3, -7],
        [-1, 1],
        [-2, raw.slice(1, 33)],
        [-3, raw.slice(33)],
      ]),
    );
    const id = crypto.getRandomValues(new Uint8Array(16));
    const credentialId = b64url(id);
    this.credentials.set(credentialId, { keys, userHandle: options.user.id, counter: 0 });
    const authData = concat(
      await sha256(new TextEncoder().encode(options.rp.id!)),
      new Uint8Array([UP | UV | AT]),
      u32(0),
      new Uint8Array(16),
      new Uint8Array([0, id.length]),
      id,
      cose,
    );
    const clientData = JSON.stringify({
      type: "webauthn.create",
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    });
    const attestation = isoCBOR.encode(
      new Map<string, unknown>([["fmt", "none"], ["attStmt", new Map()], [
        "authData",
        authData,
      ]]) as never,
    );
    return {
      id: credentialId,
      rawId: credentialId,
      type: "public-key",
      response: {
        clientDataJSON: isoBase64URL.fromUTF8String(clientData),
        attestationObject: b64url(attestation),
        transports: ["internal"],
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }

  /** Signs in with `credentialId` (default: the first) for `options`, as `startAuthentication` would. */
  async authenticate(
    options: PublicKeyCredentialRequestOptionsJSON,
    credentialId: string = [...this.credentials.keys()][0],
  ): Promise<AuthenticationResponseJSON> {
    const credential = this.credentials.get(credentialId)!;
    credential.counter += this.step;
    const authData = concat(
      await sha256(new TextEncoder().encode(options.rpId!)),
      new Uint8Array([UP | UV]),
      u32(credential.counter),
    );
    const clientData = new TextEncoder().encode(JSON.stringify({
      type: "webauthn.get",
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    }));
    const signed = concat(authData, await sha256(clientData));
    const signature = new Uint8Array(
      await crypto.subtle.sign(
        { name: "ECDSA", hash: "SHA-256" },
        credential.keys.privateKey,
        signed as Uint8Array<ArrayBuffer>,
      ),
    );
    return {
      id: credentialId,
      rawId: credentialId,
      type: "public-key",
      response: {
        clientDataJSON: b64url(clientData),
        authenticatorData: b64url(authData),
        signature: b64url(der(signature)),
        userHandle: credential.userHandle,
      },
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
    };
  }
}
