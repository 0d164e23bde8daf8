"""libsodium (python3-nacl) on the command line, for interop tests.

  libsodium_cli.py keygen                 -> "<public b64> <secret b64>"
  libsodium_cli.py seal <public b64>      stdin: message b64 -> sealed b64
  libsodium_cli.py open <secret b64>      stdin: sealed b64  -> message b64 (exit 1 on failure)
"""
import base64
import sys

from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, PublicKey, SealedBox


def main():
    cmd = sys.argv[1]
    if cmd == "keygen":
        sk = PrivateKey.generate()
        print(base64.b64encode(bytes(sk.public_key)).decode(), base64.b64encode(bytes(sk)).decode())
        return 0
    data = base64.b64decode(sys.stdin.read().strip())
    if cmd == "seal":
        box = SealedBox(PublicKey(base64.b64decode(sys.argv[2])))
        print(base64.b64encode(box.encrypt(data)).decode())
        return 0
    if cmd == "open":
        box = SealedBox(PrivateKey(base64.b64decode(sys.argv[2])))
        try:
            print(base64.b64encode(box.decrypt(data)).decode())
        except CryptoError as err:
            print(f"open failed: {err}", file=sys.stderr)
            return 1
        return 0
    print(f"unknown command {cmd}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
