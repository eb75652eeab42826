"""Tokens signed by each of Hearth's RS256 signers (OpenSSL 3 loaded at run time, and swift-crypto) verified by
clients nobody here wrote: google-auth against the x509 map and the JWKS, and the Firebase Admin SDK's
verify_id_token in production mode (signature checked; its certificate URL pointed at Hearth).

Usage: rs256_signers.py HEARTH_BINARY PORT
Starts `hearth serve --dev` once per signer (HEARTH_CRYPTO_RSA_SIGNER=openssl, then swift-crypto) on PORT.
Prints one line per check and 'rs256-signers: N passed, N failed'; exits non-zero on any failure.
"""
import base64
import json
import os
import sys
import tempfile

import firebase_admin
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from firebase_admin import _token_gen, auth, credentials
from google.auth import jwt as google_jwt
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token
from checks import check, finish  # the shared runner
from hearth_server import start_server

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "demo-hearth"
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
# Production-mode verification (signatures checked) against Hearth's published certificates.
_token_gen.ID_TOKEN_CERT_URI = CERTS
# A throwaway service account: firebase-admin wants a credential, verify_id_token never uses it.
_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
CREDENTIAL = credentials.Certificate({
    "type": "service_account", "project_id": PROJECT, "private_key_id": "throwaway",
    "private_key": _key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()).decode(),
    "client_email": f"verifier@{PROJECT}.iam.gserviceaccount.com", "client_id": "1",
    "token_uri": f"{BASE}/oauth2.googleapis.com/token",
})



def post(path, body):
    response = requests.post(f"{BASE}{path}?key=any", json=body, timeout=10)
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()


def sign_up():
    return post("/identitytoolkit.googleapis.com/v1/accounts:signUp", {"returnSecureToken": True})


def refresh(token):
    response = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key=any",
                             data={"grant_type": "refresh_token", "refresh_token": token}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def header(token):
    part = token.split(".")[0]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


for signer in ("openssl", "swift-crypto"):
    work = tempfile.mkdtemp()
    os.environ["HEARTH_CRYPTO_RSA_SIGNER"] = signer
    server, log_path, stop = start_server(HEARTH, PORT, work, BASE, extra=("--log-level", "info"))
    # An app per server: firebase-admin caches the certificates per app, and each server has its own keys.
    APP = firebase_admin.initialize_app(CREDENTIAL, options={"projectId": PROJECT}, name=f"rs256-{signer}")

    @check(f"{signer}: the server says which signer it uses")
    def _(signer=signer, log_path=log_path):
        log = open(log_path).read()
        expected = "openssl 3" if signer == "openssl" else "swift-crypto"
        assert "RS256 signer" in log and expected in log, log[-2000:]

    @check(f"{signer}: google-auth verifies a new user's ID token and a refreshed one (x509 map)")
    def _():
        body = sign_up()
        claims = id_token.verify_token(body["idToken"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
        assert claims["sub"] == body["localId"] and claims["iss"] == f"https://securetoken.google.com/{PROJECT}"
        assert header(body["idToken"]) == {"alg": "RS256", "kid": header(body["idToken"])["kid"], "typ": "JWT"}
        refreshed = refresh(body["refreshToken"])
        again = id_token.verify_token(refreshed["id_token"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
        assert again["sub"] == body["localId"]

    @check(f"{signer}: google-auth's JWT verifier with the JWKS' key")
    def _():
        body = sign_up()
        jwks = requests.get(f"{BASE}/.well-known/jwks.json", timeout=10)
        assert jwks.status_code == 200, jwks.status_code
        kid = header(body["idToken"])["kid"]
        assert any(key["kid"] == kid for key in jwks.json()["keys"])
        certs = requests.get(CERTS, timeout=10).json()
        claims = google_jwt.decode(body["idToken"], certs=certs, audience=PROJECT)
        assert claims["user_id"] == body["localId"]

    @check(f"{signer}: firebase-admin verify_id_token (production mode, signature checked)")
    def _():
        body = sign_up()
        claims = auth.verify_id_token(body["idToken"], app=APP)
        assert claims["uid"] == body["localId"]

    @check(f"{signer}: a token with one signature bit flipped is refused by both")
    def _():
        token = sign_up()["idToken"]
        head, payload, signature = token.split(".")
        raw = bytearray(base64.urlsafe_b64decode(signature + "=" * (-len(signature) % 4)))
        raw[len(raw) // 2] ^= 0x01
        forged = f"{head}.{payload}." + base64.urlsafe_b64encode(bytes(raw)).decode().rstrip("=")
        try:
            id_token.verify_token(forged, google_requests.Request(), audience=PROJECT, certs_url=CERTS)
            raise AssertionError("google-auth accepted a forged signature")
        except ValueError:
            pass
        try:
            auth.verify_id_token(forged, app=APP)
            raise AssertionError("firebase-admin accepted a forged signature")
        except auth.InvalidIdTokenError:
            pass

    stop()

finish("rs256-signers")
