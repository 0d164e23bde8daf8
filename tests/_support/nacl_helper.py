"""libsodium (python3-nacl) as a line-oriented JSON service for the interop tests and the bench.

Requests on stdin, one JSON object per line; one JSON reply per line on stdout. Bytes travel as
standard base64.
  {"op": "keypair"}                          -> {"pk": b64, "sk": b64}
  {"op": "seal", "pk": b64, "msg": b64}      -> {"ct": b64}
  {"op": "open", "pk": b64, "sk": b64, "ct": b64} -> {"msg": b64} or {"error": "..."}
  {"op": "bench", "size": n, "seconds": s}   -> {"seal": ops_per_s, "open": ops_per_s}
"""
import base64
import json
import sys
import time

from nacl.bindings import crypto_box_keypair, crypto_box_seal, crypto_box_seal_open
from nacl.exceptions import CryptoError

b64 = lambda b: base64.b64encode(b).decode()
unb64 = lambda s: base64.b64decode(s, validate=True)


def rate(fn, seconds):
    for _ in range(20):
        fn()
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        fn()
        n += 1
    return n / (time.perf_counter() - start)


def handle(req):
    op = req["op"]
    if op == "keypair":
        pk, sk = crypto_box_keypair()
        return {"pk": b64(pk), "sk": b64(sk)}
    if op == "seal":
        return {"ct": b64(crypto_box_seal(unb64(req["msg"]), unb64(req["pk"])))}
    if op == "open":
        try:
            return {"msg": b64(crypto_box_seal_open(unb64(req["ct"]), unb64(req["pk"]), unb64(req["sk"])))}
        except CryptoError as e:
            return {"error": str(e)}
    if op == "bench":
        pk, sk = crypto_box_keypair()
        msg = bytes(req["size"])
        ct = crypto_box_seal(msg, pk)
        return {
            "seal": rate(lambda: crypto_box_seal(msg, pk), req["seconds"]),
            "open": rate(lambda: crypto_box_seal_open(ct, pk, sk), req["seconds"]),
        }
    return {"error": "unknown op " + op}


for line in sys.stdin:
    sys.stdout.write(json.dumps(handle(json.loads(line))) + "\n")
    sys.stdout.flush()
