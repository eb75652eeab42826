"""Passkeys end to end (issue 23) with clients Hearth did not write: headless Chromium's WebDriver virtual authenticator
(CTAP2, internal transport, resident keys, user verification) on Hearth's passkey page, and a software authenticator
built here on fido2's WebAuthn structures (ES256, EdDSA, RS256; `none` attestation; chosen flags and counters).

Usage: passkeys.py HEARTH_BINARY PORT [SCREENSHOT_DIR]
Starts its own `hearth serve --dev` on PORT with `--public-url http://localhost:PORT` (WebAuthn needs a secure
context and a domain rp id: localhost, never 127.0.0.1), turns passkeys on through the admin API, and checks:
- Chromium: a password user enrolls a passkey on the page (passkeyEnrollment:start → page → finalize → passkeyInfo),
  then signs in with it (passkeySignIn:start → page → finalize → tokens for the same uid, verified with google-auth
  and firebase-admin); a cancelled ceremony (user verification refused) shows an error and returns `error=` to the app;
- the software authenticator drives the RPCs for the three algorithms, and every attack is refused with Google's
  envelope (replayed assertion and challenge, wrong origin, wrong rp id hash, UV missing, cloned counter, another
  user's userHandle, tampered signature, another user's enrollment challenge, oversized fields, garbage base64/CBOR);
- a passkey as the second factor after TOTP's flow (mfaSignIn:start passkeySignInInfo → mfaSignIn:finalize
  passkeyVerificationInfo → sign_in_second_factor "passkey");
- the page: an unregistered return address refused, its CSP, garbage options answered with a page, not a 500;
- removal with accounts:update deletePasskey, after which the passkey signs in no more;
- `hearth signin passkey` (and `--enroll`) with the page's return played by the test.
Prints one line per check and 'passkeys: N passed, M failed'; exits non-zero on any failure.
"""
import atexit
import base64
import hashlib
import http.server
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlparse

import pyotp
import requests
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519, padding, rsa
from fido2 import cbor
from fido2.cose import ES256, RS256, EdDSA
from fido2.webauthn import AttestationObject, AttestedCredentialData, AuthenticatorData, CollectedClientData
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token as google_id_token

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://localhost:{PORT}"
ORIGIN = BASE
RP_ID = "localhost"
PROJECT = "demo-hearth"
KEY = "passkeys-e2e-key"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
CONFIG = f"{V2}/projects/{PROJECT}/config"
ADMIN = {"Authorization": "Bearer owner"}
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
PAGE = f"{BASE}/__/auth/passkey"
APP_ID = "passkeys-e2e-desktop"
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
from firebase_admin import auth  # noqa: E402
from checks import check, finish, record_failure  # noqa: E402
from hearth_server import start_server  # noqa: E402

work = tempfile.mkdtemp(prefix="hearth-passkeys-e2e-")
SHOTS = sys.argv[3] if len(sys.argv) > 3 else work
os.makedirs(SHOTS, exist_ok=True)
server, LOG_PATH, stop_server = start_server(HEARTH, PORT, work, BASE, extra=("--public-url", BASE))

APP = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="passkeys-e2e")


# --- helpers -------------------------------------------------------------------------------------------------------

def b64u(data):
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode()


def unb64(text):
    """Bytes of base64 in either alphabet, padded or not (what Hearth sends: standard, padded)."""
    text = text.replace("-", "+").replace("_", "/")
    return base64.b64decode(text + "=" * (-len(text) % 4))


def v1(method, body):
    response = requests.post(f"{V1}/accounts:{method}?key={KEY}", json=body, timeout=20)
    return response.status_code, response.json()


def v2(method, body):
    response = requests.post(f"{V2}/accounts/{method}?key={KEY}", json=body, timeout=20)
    return response.status_code, response.json()


def v2_raw(method, raw):
    response = requests.post(f"{V2}/accounts/{method}?key={KEY}", data=raw, headers={"Content-Type": "application/json"}, timeout=20)
    return response.status_code, response.text


def error_of(status, body):
    """Firebase's error string (the message up to ' : '), asserting the Google envelope around it."""
    assert 400 <= status < 500, (status, body)
    error = body["error"]
    assert error["code"] == status and isinstance(error["message"], str), body
    return error["message"].split(" : ")[0].strip()


def expect_error(expected, status, body):
    got = error_of(status, body)
    allowed = expected if isinstance(expected, (set, tuple, list)) else {expected}
    assert got in allowed, f"expected {sorted(allowed)}, got {got!r}: {body}"
    assert "idToken" not in body and "refreshToken" not in body, body


def verify(token):
    """The ID token's claims, verified by google-auth against Hearth's x509 keys, and by firebase-admin."""
    claims = google_id_token.verify_token(token, google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    assert auth.verify_id_token(token, app=APP)["uid"] == claims["sub"]
    return claims


def password_user(prefix):
    email = f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"
    password = f"pw {uuid.uuid4().hex[:12]}"
    status, body = v1("signUp", {"email": email, "password": password, "returnSecureToken": True})
    assert status == 200, body
    return {"email": email, "password": password, "uid": body["localId"], "idToken": body["idToken"]}


def lookup(id_token):
    status, body = v1("lookup", {"idToken": id_token})
    assert status == 200, body
    return body["users"][0]


def oob_code(email, request_type):
    listed = requests.get(f"{BASE}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=20).json()["oobCodes"]
    codes = [c for c in listed if c["email"] == email and c["requestType"] == request_type]
    assert codes, (email, request_type, listed[-3:])
    return codes[-1]["oobCode"]


def verify_email(id_token, email):
    status, body = v1("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": id_token})
    assert status == 200, body
    status, body = v1("update", {"oobCode": oob_code(email, "VERIFY_EMAIL")})
    assert status == 200 and body["emailVerified"] is True, body


def skip(name, why):
    print(f"SKIP {name}: {why}")


# An unknown or used challenge is a bad response (PASSKEY_CHALLENGE_TIMEOUT is for an expired one).
CHALLENGE_ERRORS = {"INVALID_AUTHENTICATOR_RESPONSE"}
RESPONSE_ERRORS = {"INVALID_AUTHENTICATOR_RESPONSE"}


# --- a software authenticator on fido2's structures ---------------------------------------------------------------

FLAG = AuthenticatorData.FLAG
COSE = {-7: ES256, -8: EdDSA, -257: RS256}


class Credential:
    def __init__(self, alg, user_handle, credential_id, key):
        self.alg, self.user_handle, self.id, self.key = alg, user_handle, credential_id, key
        self.counter = 0

    @property
    def id_text(self):
        return b64u(self.id)


class SoftAuthenticator:
    """Makes registration and assertion responses as a platform authenticator would, in WebAuthn's JSON forms, with
    every part chosen by the caller (origin, rp id, flags, counter, user handle, challenge) for the attacks."""

    def __init__(self):
        self.credentials = []

    @staticmethod
    def new_key(alg):
        if alg == -7:
            return ec.generate_private_key(ec.SECP256R1())
        if alg == -8:
            return ed25519.Ed25519PrivateKey.generate()
        return rsa.generate_private_key(public_exponent=65537, key_size=2048)

    @staticmethod
    def sign(key, alg, message):
        if alg == -7:
            return key.sign(message, ec.ECDSA(hashes.SHA256()))
        if alg == -8:
            return key.sign(message)
        return key.sign(message, padding.PKCS1v15(), hashes.SHA256())

    def create(self, options, alg=-7, origin=ORIGIN, rp_id=None, flags=FLAG.UP | FLAG.UV, challenge=None, fmt="none", credential_id=None):
        """A registration response for creation options; the credential is kept (returned too)."""
        assert options["rp"]["id"] == RP_ID, options
        assert any(p["alg"] == alg for p in options["pubKeyCredParams"]), options["pubKeyCredParams"]
        key = self.new_key(alg)
        credential = Credential(alg, unb64(options["user"]["id"]), credential_id or secrets.token_bytes(32), key)
        client_data = CollectedClientData.create("webauthn.create", challenge if challenge is not None else unb64(options["challenge"]), origin)
        auth_data = AuthenticatorData.create(hashlib.sha256((rp_id or options["rp"]["id"]).encode()).digest(), flags | FLAG.AT, 0,
                                             AttestedCredentialData.create(b"\0" * 16, credential.id, COSE[alg].from_cryptography_key(key.public_key())))
        attestation = AttestationObject.create(fmt, auth_data, {})
        self.credentials.append(credential)
        return credential, {"id": credential.id_text, "rawId": credential.id_text, "type": "public-key",
                            "response": {"clientDataJSON": b64u(client_data), "attestationObject": b64u(bytes(attestation)),
                                         "transports": ["internal"]}}

    def get(self, options, credential, origin=ORIGIN, rp_id=None, flags=FLAG.UP | FLAG.UV, counter=None, user_handle=None,
            challenge=None, tamper=False, client_type="webauthn.get"):
        """An assertion for request options with `credential` (its counter goes up unless `counter` is given)."""
        if counter is None:
            credential.counter += 1
            counter = credential.counter
        client_data = CollectedClientData.create(client_type, challenge if challenge is not None else unb64(options["challenge"]), origin)
        auth_data = AuthenticatorData.create(hashlib.sha256((rp_id or options["rpId"]).encode()).digest(), flags, counter)
        signature = self.sign(credential.key, credential.alg, bytes(auth_data) + hashlib.sha256(bytes(client_data)).digest())
        if tamper:
            signature = signature[:-1] + bytes([signature[-1] ^ 0x01])
        handle = credential.user_handle if user_handle is None else user_handle
        response = {"clientDataJSON": b64u(client_data), "authenticatorData": b64u(bytes(auth_data)), "signature": b64u(signature)}
        if handle:
            response["userHandle"] = b64u(handle)
        return {"id": credential.id_text, "rawId": credential.id_text, "type": "public-key", "response": response}


SOFT = SoftAuthenticator()


def enroll_start(user):
    status, body = v2("passkeyEnrollment:start", {"idToken": user["idToken"]})
    assert status == 200, body
    return body["credentialCreationOptions"]


def enroll_finalize(user, response, name="Soft key"):
    return v2("passkeyEnrollment:finalize", {"idToken": user["idToken"], "name": name, "authenticatorRegistrationResponse": response})


def soft_enroll(user, alg=-7, name=None):
    options = enroll_start(user)
    credential, response = SOFT.create(options, alg=alg)
    status, body = enroll_finalize(user, response, name or f"alg {alg}")
    assert status == 200, body
    assert body.get("idToken") and body.get("refreshToken"), body
    user["idToken"] = body["idToken"]
    return credential


def signin_start():
    status, body = v2("passkeySignIn:start", {})
    assert status == 200, body
    return body["credentialRequestOptions"]


def signin_finalize(response):
    return v2("passkeySignIn:finalize", {"authenticatorAuthenticationResponse": response})


# --- a loopback listener playing the app ----------------------------------------------------------------------------

class Listener:
    """The app's loopback address: records every query it receives and answers a short page."""

    def __init__(self):
        self.received = []
        listener = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self):  # noqa: N802 - the library's name
                if urlparse(self.path).path == "/passkey-callback":  # not the browser's /favicon.ico
                    listener.received.append(parse_qs(urlparse(self.path).query))
                body = b"<!doctype html><title>app</title><p>back in the app</p>"
                self.send_response(200)
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/passkey-callback"

    def wait(self, count, timeout=30):
        deadline = time.time() + timeout
        while time.time() < deadline:
            if len(self.received) >= count:
                return {k: v[0] for k, v in self.received[count - 1].items()}
            time.sleep(0.1)
        raise AssertionError(f"the app's loopback address received nothing (got {len(self.received)} answers)")


LISTENER = Listener()
atexit.register(LISTENER.server.shutdown)


def page_url(mode, options, state, redirect=None, app_id=APP_ID):
    params = {"mode": mode, "options": b64u(json.dumps(options).encode()), "redirectUrl": redirect or LISTENER.url, "state": state}
    if app_id:
        params["appId"] = app_id
    return f"{PAGE}?{urlencode(params)}"


state = {}

# --- the project setting ---------------------------------------------------------------------------------------------


@check("before the setting: passkeySignIn:start answers PASSKEY_NOT_ENABLED with Google's envelope")
def _():
    expect_error("PASSKEY_NOT_ENABLED", *v2("passkeySignIn:start", {}))


@check("config: PATCH /v2/projects/demo-hearth/config {passkeys: {enabled: true}} (Bearer owner) turns passkeys on")
def _():
    response = requests.patch(f"{CONFIG}?updateMask=passkeys.enabled", json={"passkeys": {"enabled": True}}, headers=ADMIN, timeout=20)
    assert response.status_code == 200, response.text
    got = requests.get(CONFIG, headers=ADMIN, timeout=20).json()
    assert got.get("passkeys", {}).get("enabled") is True, got
    options = signin_start()
    assert options["rpId"] == RP_ID, options
    assert len(unb64(options["challenge"])) >= 16, options


# --- the page itself -----------------------------------------------------------------------------------------------

@check("page: served with CSP script-src 'self'; connect-src 'none'; no inline script; its script from this origin")
def _():
    page = requests.get(page_url("signin", signin_start(), "s1"), timeout=20)
    assert page.status_code == 200, page.text[:500]
    csp = page.headers["Content-Security-Policy"]
    directives = {d.strip().split(" ")[0]: d.strip() for d in csp.split(";")}
    assert directives["script-src"] == "script-src 'self'", csp
    assert directives["connect-src"] == "connect-src 'none'", csp
    assert directives["frame-ancestors"] == "frame-ancestors 'none'", csp
    assert "unsafe-inline" not in directives["script-src"] and "unsafe-eval" not in csp, csp
    scripts = re.findall(r"<script[^>]*>(.*?)</script>", page.text, re.S)
    assert scripts == [""], scripts
    assert '<script src="/__/auth/passkey.js">' in page.text, page.text
    assert page.headers.get("Referrer-Policy") == "no-referrer", page.headers
    script = requests.get(f"{BASE}/__/auth/passkey.js", timeout=20)
    assert script.status_code == 200 and script.headers["Content-Type"].startswith("text/javascript"), script.headers
    assert "navigator.credentials.get" in script.text


@check("page: an unregistered return address (web URL, unknown scheme, javascript:) is refused with a 400 page")
def _():
    options = signin_start()
    for target in ["https://evil.example.com/steal", "evilapp://cb", "javascript:alert(1)//", "http://localhost:8080/cb",
                   "http://127.0.0.1:65000/cb#fragment"]:
        page = requests.get(page_url("signin", options, "s2", redirect=target), timeout=20, allow_redirects=False)
        assert page.status_code == 400, (target, page.status_code)
        assert "Return address not allowed" in page.text, (target, page.text[:300])
        assert "<script" not in page.text and "Location" not in page.headers, target


@check("page: garbage, truncated or oversized options get an error page (400), never a 500")
def _():
    good = b64u(json.dumps(signin_start()).encode())
    cases = {"garbage": "!!not-base64!!", "not JSON": b64u(b"hello"), "truncated": good[: len(good) // 2],
             "wrong shape": b64u(json.dumps({"rpId": 5}).encode()), "oversized": "A" * 9000, "bad mode": None}
    for name, options in cases.items():
        params = {"mode": "steal" if options is None else "signin", "options": options or good, "redirectUrl": LISTENER.url,
                  "state": "s3", "appId": APP_ID}
        page = requests.get(f"{PAGE}?{urlencode(params)}", timeout=20)
        assert page.status_code == 400, (name, page.status_code, page.text[:300])
        assert page.headers["Content-Type"].startswith("text/html"), name
    for junk in ["%00", "mode=signin&options=%FF%FE", "mode=enroll&options=" + "%" * 50]:
        page = requests.get(f"{PAGE}?{junk}", timeout=20)
        assert 400 <= page.status_code < 500, (junk, page.status_code)


# --- Chromium's virtual authenticator on the page ------------------------------------------------------------------

def chromium():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.virtual_authenticator import VirtualAuthenticatorOptions
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,760"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    driver.add_virtual_authenticator(VirtualAuthenticatorOptions(protocol="ctap2", transport="internal", has_resident_key=True,
                                                                 has_user_verification=True, is_user_verified=True))
    return driver


def run_page(driver, url, screenshot=None):
    """Opens the page, presses its button, and returns the app's answer at the loopback address."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
    before = len(LISTENER.received)
    driver.get(url)
    button = WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable((By.ID, "passkey-go")))
    if screenshot:
        driver.save_screenshot(os.path.join(SHOTS, screenshot))
    button.click()
    return LISTENER.wait(before + 1)


driver = None
try:
    driver = chromium()
except Exception as error:  # noqa: BLE001 - reported as a failure below
    record_failure("Chromium with a virtual authenticator starts", error)


@check("Chromium: a password user enrolls a passkey on the page (virtual authenticator, CTAP2, UV) → passkeyInfo")
def _():
    assert driver is not None, "no Chromium"
    user = password_user("chromium")
    options = enroll_start(user)
    assert options["authenticatorSelection"].get("userVerification", "required") == "required", options
    assert unb64(options["user"]["id"]) and user["email"].encode() not in unb64(options["user"]["id"]), "the user handle is not the email"
    answer = run_page(driver, page_url("enroll", options, "enroll-state"), screenshot="passkey-page-enroll.png")
    assert answer.get("state") == "enroll-state", answer
    assert "passkeyResponse" in answer, answer
    response = json.loads(unb64(answer["passkeyResponse"]))
    assert response["type"] == "public-key" and set(response["response"]) >= {"clientDataJSON", "attestationObject"}, response
    client_data = json.loads(unb64(response["response"]["clientDataJSON"]))
    assert client_data["origin"] == ORIGIN and client_data["type"] == "webauthn.create", client_data
    status, body = enroll_finalize(user, response, "Chromium")
    assert status == 200, body
    infos = lookup(body["idToken"]).get("passkeyInfo", [])
    assert [i["name"] for i in infos] == ["Chromium"], infos
    assert infos[0]["credentialId"] == b64u(unb64(response["id"])), (infos, response["id"])
    credentials = driver.get_credentials()
    assert len(credentials) == 1 and credentials[0].is_resident_credential and credentials[0].rp_id == RP_ID, credentials
    state["chromium"] = {"user": user, "credentialId": infos[0]["credentialId"]}


@check("Chromium: passkeySignIn:start → page → assertion → passkeySignIn:finalize signs in the same user (tokens verified)")
def _():
    enrolled = state["chromium"]
    answer = run_page(driver, page_url("signin", signin_start(), "signin-state"), screenshot="passkey-page-signin.png")
    assert answer.get("state") == "signin-state" and "passkeyResponse" in answer, answer
    response = json.loads(unb64(answer["passkeyResponse"]))
    assert response["response"].get("userHandle"), "a discoverable credential returns its user handle"
    status, body = signin_finalize(response)
    assert status == 200, body
    assert body["localId"] == enrolled["user"]["uid"], body
    claims = verify(body["idToken"])
    assert claims["sub"] == enrolled["user"]["uid"], claims
    assert claims["firebase"]["sign_in_provider"] == "passkey", claims["firebase"]
    # The same answer again: the challenge was taken once.
    expect_error(CHALLENGE_ERRORS, *signin_finalize(response))


@check("Chromium: user verification refused → the page shows why and returns error=NotAllowedError with the state")
def _():
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions
    from selenium.webdriver.support.ui import WebDriverWait
    driver.set_user_verified(False)
    try:
        driver.get(page_url("signin", signin_start(), "cancel-state"))
        WebDriverWait(driver, 15).until(expected_conditions.element_to_be_clickable((By.ID, "passkey-go"))).click()
        back = WebDriverWait(driver, 30).until(expected_conditions.visibility_of_element_located((By.ID, "passkey-return")))
        message = driver.find_element(By.ID, "passkey-error").text
        assert message, "the page says what happened"
        driver.save_screenshot(os.path.join(SHOTS, "passkey-page-error.png"))
        before = len(LISTENER.received)
        back.click()
        answer = LISTENER.wait(before + 1)
        assert answer.get("error") == "NotAllowedError" and answer.get("state") == "cancel-state", answer
        assert "passkeyResponse" not in answer, answer
    finally:
        driver.set_user_verified(True)


@check("Chromium: a planted copy of the passkey with a lower counter (a clone) is refused")
def _():
    from selenium.webdriver.common.virtual_authenticator import Credential as WebDriverCredential
    enrolled = state["chromium"]
    original = driver.get_credentials()[0]
    # Use it once more, so its counter is above 1 on the server.
    answer = run_page(driver, page_url("signin", signin_start(), "count-state"))
    status, body = signin_finalize(json.loads(unb64(answer["passkeyResponse"])))
    assert status == 200, body
    stored = driver.get_credentials()[0].sign_count
    assert stored >= 2, stored
    driver.remove_all_credentials()
    # The driver's Credential gives its parts as base64url text; create_resident_credential takes bytes.
    driver.add_credential(WebDriverCredential.create_resident_credential(
        unb64(original.id), RP_ID, unb64(original.user_handle), unb64(original.private_key), 0))
    answer = run_page(driver, page_url("signin", signin_start(), "clone-state"))
    response = json.loads(unb64(answer["passkeyResponse"]))
    assert b64u(unb64(response["id"])) == enrolled["credentialId"], response["id"]
    expect_error(RESPONSE_ERRORS, *signin_finalize(response))


if driver is not None:
    driver.quit()
    driver = None


# --- the software authenticator against the RPCs --------------------------------------------------------------------

@check("soft authenticator: ES256, EdDSA and RS256 passkeys enroll (none attestation) and sign in")
def _():
    for alg in (-7, -8, -257):
        user = password_user(f"soft{abs(alg)}")
        credential = soft_enroll(user, alg)
        status, body = signin_finalize(SOFT.get(signin_start(), credential))
        assert status == 200, (alg, body)
        assert body["localId"] == user["uid"], (alg, body)
        assert verify(body["idToken"])["firebase"]["sign_in_provider"] == "passkey"
        state.setdefault("soft", {})[alg] = (user, credential)
    user = password_user("other")
    state["other"] = (user, soft_enroll(user, -7))


def attack(name, expected, make):
    @check(f"attack refused: {name}")
    def _():
        expect_error(expected, *make())


def soft_user():
    return state["soft"][-7]


def replayed_assertion():
    _, credential = soft_user()
    response = SOFT.get(signin_start(), credential)
    status, body = signin_finalize(response)
    assert status == 200, body
    return signin_finalize(response)


def replayed_challenge():
    _, credential = soft_user()
    options = signin_start()
    status, body = signin_finalize(SOFT.get(options, credential))
    assert status == 200, body
    return signin_finalize(SOFT.get(options, credential))


def unknown_challenge():
    _, credential = soft_user()
    return signin_finalize(SOFT.get(signin_start(), credential, challenge=secrets.token_bytes(32)))


attack("a replayed assertion", CHALLENGE_ERRORS, replayed_assertion)
attack("a fresh assertion on a used challenge", CHALLENGE_ERRORS, replayed_challenge)
attack("a challenge the server never issued", CHALLENGE_ERRORS, unknown_challenge)
attack("wrong origin (https://evil.example.com)", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], origin="https://evil.example.com")))
attack("wrong origin (Hearth's host on another port)", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], origin="http://localhost:1")))
attack("a registration's clientData type on an assertion", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], client_type="webauthn.create")))
attack("wrong rp id hash (evil.example.com)", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], rp_id="evil.example.com")))
attack("user verification missing when required (UP only)", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], flags=FLAG.UP)))
attack("user presence missing", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], flags=FLAG.UV)))
attack("tampered signature", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], tamper=True)))


def cloned_counter():
    _, credential = state["soft"][-8]
    status, body = signin_finalize(SOFT.get(signin_start(), credential, counter=50))
    assert status == 200, body
    return signin_finalize(SOFT.get(signin_start(), credential, counter=10))


attack("a cloned credential (counter going back)", RESPONSE_ERRORS, cloned_counter)
attack("a credential presented with another user's userHandle", RESPONSE_ERRORS,
       lambda: signin_finalize(SOFT.get(signin_start(), soft_user()[1], user_handle=state["other"][1].user_handle)))


def foreign_credential_id():
    # Another user's credential id on a signature by this user's key: the stored key does not verify it.
    _, mine = soft_user()
    response = SOFT.get(signin_start(), mine)
    response["id"] = response["rawId"] = state["other"][1].id_text
    return signin_finalize(response)


attack("another user's credential id on this key's signature", RESPONSE_ERRORS, foreign_credential_id)


def unknown_credential():
    stray = Credential(-7, secrets.token_bytes(32), secrets.token_bytes(32), SoftAuthenticator.new_key(-7))
    return signin_finalize(SOFT.get(signin_start(), stray))


attack("a credential never registered", "PASSKEY_ENROLLMENT_NOT_FOUND", unknown_credential)


def other_users_enrollment_challenge():
    victim = password_user("victim")
    attacker = password_user("attacker")
    victim_options = enroll_start(victim)
    enroll_start(attacker)
    # The attacker registers with the victim's challenge (and the victim's user handle) on the attacker's token.
    _, response = SOFT.create(victim_options)
    return enroll_finalize(attacker, response)


attack("a registration response for another user's enrollment challenge", CHALLENGE_ERRORS, other_users_enrollment_challenge)


def registration_wrong_origin():
    user = password_user("regorigin")
    _, response = SOFT.create(enroll_start(user), origin="https://evil.example.com")
    return enroll_finalize(user, response)


def registration_wrong_rp():
    user = password_user("regrp")
    _, response = SOFT.create(enroll_start(user), rp_id="evil.example.com")
    return enroll_finalize(user, response)


def registration_without_uv():
    user = password_user("reguv")
    _, response = SOFT.create(enroll_start(user), flags=FLAG.UP)
    return enroll_finalize(user, response)


attack("registration from a wrong origin", RESPONSE_ERRORS, registration_wrong_origin)
attack("registration with a wrong rp id hash", RESPONSE_ERRORS, registration_wrong_rp)
attack("registration without user verification", RESPONSE_ERRORS, registration_without_uv)


@check("attack refused: registering a credential id already registered, by another user or the same → PASSKEY_EXISTS")
def _():
    _, credential = soft_user()
    for user in (state["other"][0], soft_user()[0]):
        # A new key under the registered credential id.
        _, response = SOFT.create(enroll_start(user), credential_id=credential.id)
        expect_error("PASSKEY_EXISTS", *enroll_finalize(user, response))
    # A response whose id names another credential than its attestationObject.
    user = state["other"][0]
    _, response = SOFT.create(enroll_start(user))
    response["id"] = response["rawId"] = credential.id_text
    expect_error(RESPONSE_ERRORS, *enroll_finalize(user, response))


@check("attack refused: oversized fields (a 200 KB clientDataJSON, a 2 KB credential id) → 4xx with the envelope")
def _():
    _, credential = soft_user()
    big = SOFT.get(signin_start(), credential)
    big["response"]["clientDataJSON"] = b64u(b"{" + b" " * 200_000 + b"}")
    status, text = v2_raw("passkeySignIn:finalize", json.dumps({"authenticatorAuthenticationResponse": big}))
    assert 400 <= status < 500, (status, text[:300])
    assert json.loads(text)["error"]["code"] == status, text[:300]
    long_id = SOFT.get(signin_start(), credential)
    long_id["id"] = long_id["rawId"] = b64u(b"\1" * 2048)
    expect_error({"INVALID_AUTHENTICATOR_RESPONSE", "PASSKEY_ENROLLMENT_NOT_FOUND"}, *signin_finalize(long_id))


@check("attack refused: garbage base64, CBOR and JSON → 4xx with Google's envelope, never a 500")
def _():
    user, credential = soft_user()
    good = SOFT.get(signin_start(), credential)
    variants = []
    for field, value in [("clientDataJSON", "!!!"), ("clientDataJSON", b64u(b"not json")), ("authenticatorData", "%%%"),
                         ("authenticatorData", b64u(b"\0" * 10)), ("signature", "***"), ("signature", ""), ("userHandle", "@@")]:
        broken = json.loads(json.dumps(good))
        broken["response"][field] = value
        variants.append(("passkeySignIn:finalize", json.dumps({"authenticatorAuthenticationResponse": broken})))
    variants += [("passkeySignIn:finalize", json.dumps({"authenticatorAuthenticationResponse": {"id": "x"}})),
                 ("passkeySignIn:finalize", json.dumps({"authenticatorAuthenticationResponse": {"id": 5, "response": []}})),
                 ("passkeySignIn:finalize", "{not json"), ("passkeySignIn:finalize", "{}"),
                 ("passkeyEnrollment:finalize", "[]")]
    registration = SOFT.create(enroll_start(user))[1]
    for value in ["!!!", b64u(b"\xff\xff\xff"), b64u(cbor.encode({"fmt": "none", "attStmt": {}, "authData": b"\0" * 5})),
                  b64u(cbor.encode([1, 2, 3])), b64u(b"\xa3" + b"\x61" * 40)]:
        broken = json.loads(json.dumps(registration))
        broken["response"]["attestationObject"] = value
        variants.append(("passkeyEnrollment:finalize", json.dumps({"idToken": user["idToken"], "authenticatorRegistrationResponse": broken})))
    for method, raw in variants:
        status, text = v2_raw(method, raw)
        assert 400 <= status < 500, (method, raw[:200], status, text[:300])
        body = json.loads(text)
        assert body["error"]["code"] == status and "idToken" not in body, (raw[:200], text[:300])


# --- a passkey as the second factor after TOTP's flow ---------------------------------------------------------------

@check("second factor: TOTP user with a passkey → password → mfaPendingCredential → passkeySignInInfo → passkeyVerificationInfo → sign_in_second_factor passkey")
def _():
    response = requests.patch(f"{CONFIG}?updateMask=mfa", headers=ADMIN, timeout=20, json={
        "mfa": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}})
    assert response.status_code == 200, response.text
    user = password_user("twofactor")
    verify_email(user["idToken"], user["email"])
    status, body = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
    assert status == 200, body
    user["idToken"] = body["idToken"]
    status, started = v2("mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}})
    assert status == 200, started
    session = started["totpSessionInfo"]
    totp = pyotp.TOTP(session["sharedSecretKey"], digits=int(session["verificationCodeLength"]), interval=int(session["periodSec"]))
    status, finalized = v2("mfaEnrollment:finalize", {"idToken": user["idToken"], "displayName": "Phone",
                                                      "totpVerificationInfo": {"sessionInfo": session["sessionInfo"], "verificationCode": totp.now()}})
    assert status == 200, finalized
    user["idToken"] = finalized["idToken"]
    credential = soft_enroll(user, -7, "Second factor key")
    status, pending = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
    assert status == 200 and "idToken" not in pending and pending.get("mfaPendingCredential"), pending
    assert all("totpInfo" in info or "phoneInfo" in info for info in pending.get("mfaInfo", [])), "no passkey in mfaInfo: the SDKs fail on it"
    status, challenge = v2("mfaSignIn:start", {"mfaPendingCredential": pending["mfaPendingCredential"], "passkeySignInInfo": {}})
    assert status == 200, challenge
    options = challenge["passkeyResponseInfo"]["credentialRequestOptions"]
    allowed = [b64u(unb64(c["id"])) for c in options.get("allowCredentials", [])]
    assert credential.id_text in allowed, (allowed, credential.id_text)
    assertion = SOFT.get(options, credential)
    status, done = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                             "passkeyVerificationInfo": {"authenticatorAuthenticationResponse": assertion}})
    assert status == 200, done
    claims = verify(done["idToken"])
    assert claims["sub"] == user["uid"], claims
    assert claims["firebase"].get("sign_in_second_factor") == "passkey", claims["firebase"]
    assert claims["firebase"].get("second_factor_identifier") == credential.id_text, claims["firebase"]
    # The pending credential was used up; another user's passkey does not complete this user's sign-in.
    status, again = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                              "passkeyVerificationInfo": {"authenticatorAuthenticationResponse": SOFT.get(options, credential)}})
    assert status == 400, again
    status, pending2 = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
    status, challenge2 = v2("mfaSignIn:start", {"mfaPendingCredential": pending2["mfaPendingCredential"], "passkeySignInInfo": {}})
    assert status == 200, challenge2
    options2 = challenge2["passkeyResponseInfo"]["credentialRequestOptions"]
    foreign = SOFT.get(options2, state["other"][1])
    status, refused = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending2["mfaPendingCredential"],
                                                "passkeyVerificationInfo": {"authenticatorAuthenticationResponse": foreign}})
    assert status == 400 and "idToken" not in refused, refused
    state["twofactor"] = (user, credential)


# --- removal --------------------------------------------------------------------------------------------------------

@check("removal: accounts:update deletePasskey removes it from passkeyInfo, and it signs in no more")
def _():
    user, credential = state["soft"][-257]
    status, body = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
    assert status == 200, body
    status, updated = v1("update", {"idToken": body["idToken"], "deletePasskey": [credential.id_text], "returnSecureToken": True})
    assert status == 200, updated
    fresh = updated.get("idToken") or body["idToken"]
    assert credential.id_text not in [i["credentialId"] for i in lookup(fresh).get("passkeyInfo", [])], lookup(fresh)
    expect_error("PASSKEY_ENROLLMENT_NOT_FOUND", *signin_finalize(SOFT.get(signin_start(), credential)))
    # An unknown id is refused.
    expect_error("PASSKEY_ENROLLMENT_NOT_FOUND", *v1("update", {"idToken": fresh, "deletePasskey": [credential.id_text]}))


# --- hearth signin passkey -------------------------------------------------------------------------------------------

def start_cli(home, *arguments, env_extra=None):
    """Starts `hearth signin passkey …` with no browser opener; returns the process and the page URL it printed."""
    env = dict(os.environ, XDG_CONFIG_HOME=home, PATH="/usr/sbin:/sbin", **(env_extra or {}))
    cli = subprocess.Popen([HEARTH, "signin", "passkey", "--server", BASE, "--api-key", KEY, "--timeout", "60", *arguments],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    seen = []
    for line in cli.stderr:
        seen.append(line)
        match = re.search(r"(http://\S+/__/auth/passkey\?\S+)", line)
        if match:
            return cli, match.group(1)
    cli.wait(timeout=30)
    raise AssertionError("the CLI printed no page URL: " + "".join(seen) + cli.stdout.read())


def play_page(url, make_response, state_override=None):
    """What the page does in a browser: checks the page answers, then returns the response to the CLI's loopback."""
    page = requests.get(url, timeout=20)
    assert page.status_code == 200, page.text[:500]
    query = {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}
    options = json.loads(unb64(query["options"]))
    returned = {"passkeyResponse": b64u(json.dumps(make_response(options, query["mode"])).encode()),
                "state": state_override or query["state"]}
    redirect = query["redirectUrl"]
    answer = requests.get(redirect + ("&" if "?" in redirect else "?") + urlencode(returned), timeout=30)
    return query, answer


@check("CLI: hearth signin passkey --enroll --email (password from HEARTH_PASSWORD) creates a passkey through the page")
def _():
    home = tempfile.mkdtemp(prefix="passkeys-cli-", dir=work)
    user = password_user("cli")
    cli, url = start_cli(home, "--enroll", "--email", user["email"], "--passkey-name", "Terminal key",
                         env_extra={"HEARTH_PASSWORD": user["password"]})
    made = {}

    def respond(options, mode):
        assert mode == "enroll", mode
        made["credential"], response = SOFT.create(options, alg=-8)
        return response

    query, answer = play_page(url, respond)
    assert query["redirectUrl"].startswith("http://127.0.0.1:"), query
    assert "Passkey created" in answer.text, answer.text[:300]
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, out + err
    assert f"Signed in as {user['uid']}" in out, out + err
    status, body = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
    infos = lookup(body["idToken"]).get("passkeyInfo", [])
    assert [i["name"] for i in infos] == ["Terminal key"], infos
    state["cli"] = (user, made["credential"], home)


@check("CLI: hearth signin passkey signs in through the page and prints the account (provider passkey)")
def _():
    user, credential, home = state["cli"]
    cli, url = start_cli(home)
    query, answer = play_page(url, lambda options, mode: SOFT.get(options, credential))
    assert query["mode"] == "signin", query
    assert "Signed in with your passkey" in answer.text, answer.text[:300]
    out, err = cli.communicate(timeout=60)
    assert cli.returncode == 0, out + err
    assert f"Signed in as {user['uid']}" in out and "provider:  passkey" in out, out + err
    assert "idToken" not in url and "refreshToken" not in url, "no token in the page URL"


@check("CLI: an answer with another state is refused; a refused passkey says why")
def _():
    user, credential, home = state["cli"]
    cli, url = start_cli(home)
    play_page(url, lambda options, mode: SOFT.get(options, credential), state_override="not-the-state")
    out, err = cli.communicate(timeout=60)
    assert cli.returncode != 0 and "state" in err, out + err
    cli, url = start_cli(home)
    play_page(url, lambda options, mode: SOFT.get(options, credential, flags=FLAG.UP))
    out, err = cli.communicate(timeout=60)
    assert cli.returncode != 0 and "did not accept the passkey" in err, out + err
    assert "Traceback" not in err and "Fatal error" not in err, err


@check("CLI: usage errors before any request (--enroll elsewhere, --email without --enroll)")
def _():
    for arguments, expected in [(["signin", "password", "--email", "a@b.c", "--enroll"], "--enroll"),
                                (["signin", "passkey", "--email", "a@b.c"], "--email goes with --enroll"),
                                (["signin", "passkey", "--enroll", "--passkey-name", " "], "--passkey-name")]:
        run = subprocess.run([HEARTH, *arguments], capture_output=True, text=True, timeout=30,
                             env=dict(os.environ, XDG_CONFIG_HOME=work))
        assert run.returncode != 0 and expected in run.stderr, (arguments, run.stderr)


# --- the end ---------------------------------------------------------------------------------------------------------

@check("no server error and no secret in the server log")
def _():
    log = open(LOG_PATH).read()
    failures = [line for line in log.splitlines() if "unexpected error" in line or "status=5" in line]
    assert not failures, failures[:5]
    assert "hrt1." not in log and "BEGIN PRIVATE KEY" not in log


print(f"screenshots: {SHOTS}")
if driver is not None:
    driver.quit()
stop_server()
finish("passkeys")
