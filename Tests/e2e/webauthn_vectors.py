#!/usr/bin/env python3
"""Cross-checks Hearth's WebAuthn parsing against fido2 (python-fido2), an independent implementation (test-only).

The Swift suite `WebAuthnFido2VectorsTests` (Tests/HearthCoreTests/WebAuthnFido2VectorsTests.swift) holds a table
of ceremonies made with fido2 and `cryptography` keys: each row is a registration (clientDataJSON and an
attestationObject, format `none` or `packed` self attestation) and an assertion with the same credential
(clientDataJSON, authenticatorData, signature). The Swift test parses and verifies every row with HearthCore; this
script re-verifies every row with fido2 and fails on any difference. `--print` writes fresh rows (keys come from
fixed seeds where `cryptography` allows it; RSA keys and ECDSA signatures are random, so the bytes differ per run).

    .build/test-venv/bin/pip install fido2
    .build/test-venv/bin/python Tests/e2e/webauthn_vectors.py            # check the Swift table
    .build/test-venv/bin/python Tests/e2e/webauthn_vectors.py --print    # fresh rows
"""
import hashlib
import pathlib
import re
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cbor
from fido2.attestation import NoneAttestation, PackedAttestation
from fido2.cose import ES256, RS256, CoseKey, EdDSA
from fido2.utils import websafe_decode, websafe_encode
from fido2.webauthn import (AttestationObject, AttestedCredentialData, AuthenticatorData,
                            CollectedClientData)

TABLE = pathlib.Path(__file__).resolve().parents[1] / "HearthCoreTests" / "WebAuthnFido2VectorsTests.swift"
ROW = re.compile(r'V\((-?\d+), "(none|packed)", (0x[0-9a-f]{2}), (\d+), "([^"]+)", "([^"]+)", "([A-Za-z0-9_-]+)", '
                 r'"([A-Za-z0-9_-]+)", "([A-Za-z0-9_-]+)", "([A-Za-z0-9_-]+)", "([A-Za-z0-9_-]+)"\)')
FLAG = AuthenticatorData.FLAG


def seed(i: int) -> bytes:
    return hashlib.sha256(f"hearth-webauthn-{i}".encode()).digest()


def key_for(alg: int, i: int):
    if alg == -7:
        return ec.derive_private_key(int.from_bytes(seed(i), "big") % (2**255), ec.SECP256R1())
    if alg == -8:
        return ed25519.Ed25519PrivateKey.from_private_bytes(seed(i))
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


def sign(key, alg: int, message: bytes) -> bytes:
    if alg == -7:
        return key.sign(message, ec.ECDSA(hashes.SHA256()))
    if alg == -8:
        return key.sign(message)
    return key.sign(message, padding.PKCS1v15(), hashes.SHA256())


COSE = {-7: ES256, -8: EdDSA, -257: RS256}


def rows():
    cases = [  # alg, fmt, flags of both ceremonies, counter, rp id, origin, registration extensions
        (-7, "none", FLAG.UP | FLAG.UV, 0, "localhost", "http://localhost:9099", None),
        (-7, "packed", FLAG.UP, 41, "example.com", "https://login.example.com", None),
        (-257, "none", FLAG.UP | FLAG.UV | FLAG.BE, 7, "localhost", "http://localhost:9099", None),
        (-257, "packed", FLAG.UP | FLAG.UV | FLAG.BE | FLAG.BS, 0, "example.com", "https://example.com", None),
        (-8, "none", FLAG.UP, 1000, "localhost", "http://localhost:9099", None),
        (-8, "packed", FLAG.UP | FLAG.UV, 4294967294, "example.com", "https://example.com", None),
        (-7, "packed", FLAG.UP | FLAG.UV | FLAG.BE | FLAG.BS, 12, "example.com", "ios:bundle-id:com.example.app", {"credProtect": 2}),
        (-8, "none", FLAG.UP | FLAG.UV, 3, "localhost", "http://localhost:9099", {"credProtect": 3}),
    ]
    for i, (alg, fmt, flags, counter, rp_id, origin, extensions) in enumerate(cases):
        key = key_for(alg, i)
        public = COSE[alg].from_cryptography_key(key.public_key())
        credential_id = seed(100 + i)[: 16 + i * 2]
        rp_hash = hashlib.sha256(rp_id.encode()).digest()
        create = CollectedClientData.create("webauthn.create", seed(200 + i), origin)
        reg_flags = flags | FLAG.AT | (FLAG.ED if extensions else 0)
        auth_data = AuthenticatorData.create(rp_hash, reg_flags, counter,
                                             AttestedCredentialData.create(b"\0" * 16 if fmt == "none" else seed(300 + i)[:16],
                                                                           credential_id, public), extensions)
        statement = {}
        if fmt == "packed":
            statement = {"alg": alg, "sig": sign(key, alg, auth_data + create.hash)}
        attestation = AttestationObject.create(fmt, auth_data, statement)
        get = CollectedClientData.create("webauthn.get", seed(400 + i), origin)
        assertion = AuthenticatorData.create(rp_hash, flags, (counter + 1) % 2**32)
        signature = sign(key, alg, assertion + get.hash)
        yield (alg, fmt, f"0x{int(flags):02x}", counter, rp_id, origin, websafe_encode(create),
               websafe_encode(attestation), websafe_encode(get), websafe_encode(assertion), websafe_encode(signature))


def check(alg, fmt, flags, counter, rp_id, origin, create, attestation, get, assertion, signature) -> list[str]:
    problems = []
    create, get = CollectedClientData(websafe_decode(create)), CollectedClientData(websafe_decode(get))
    if create.type != "webauthn.create" or get.type != "webauthn.get" or create.origin != origin or get.origin != origin:
        problems.append("client data type or origin")
    obj = AttestationObject(websafe_decode(attestation))
    verifier = NoneAttestation() if fmt == "none" else PackedAttestation()
    verifier.verify(obj.att_stmt, obj.auth_data, create.hash)  # raises when wrong
    data = obj.auth_data
    if obj.fmt != fmt or data.rp_id_hash != hashlib.sha256(rp_id.encode()).digest() or data.counter != counter:
        problems.append("attestation object fields")
    if int(data.flags) & 0x3F & ~0x40 != int(flags, 16):
        problems.append(f"registration flags {int(data.flags):#x}")
    key = CoseKey.parse(cbor.decode(cbor.encode(data.credential_data.public_key)))
    if key.ALGORITHM != alg:
        problems.append("credential algorithm")
    assertion_data = AuthenticatorData(websafe_decode(assertion))
    if int(assertion_data.flags) != int(flags, 16) or assertion_data.counter != (counter + 1) % 2**32:
        problems.append("assertion flags or counter")
    key.verify(assertion_data + get.hash, websafe_decode(signature))  # raises when wrong
    return problems


def main() -> int:
    if "--print" in sys.argv:
        for row in rows():
            print("        V(" + ", ".join(f'"{v}"' if isinstance(v, str) and not v.startswith("0x") else str(v) for v in row) + "),")
        return 0
    table = ROW.findall(TABLE.read_text())
    if not table:
        print(f"no rows found in {TABLE}", file=sys.stderr)
        return 1
    failures = 0
    for row in table:
        alg, fmt, flags, counter, *rest = row
        try:
            problems = check(int(alg), fmt, flags, int(counter), *rest)
        except Exception as error:  # noqa: BLE001 - any fido2 refusal is a mismatch
            problems = [repr(error)]
        if problems:
            failures += 1
            print(f"MISMATCH alg {alg} {fmt} counter {counter}: {problems}")
    print(f"{len(table) - failures}/{len(table)} rows agree with fido2")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
