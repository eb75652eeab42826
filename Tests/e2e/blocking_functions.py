"""Blocking functions judged by a third party (issue 39): Google's `firebase-functions` (PyPI) handlers
`identity_fn.before_user_created` / `before_user_signed_in` (Tests/e2e/functions/main.py), served by
`functions-framework`, called by Hearth at sign-up and sign-in.

Usage: blocking_functions.py HEARTH_BINARY PORT
Starts `hearth serve --dev --project-id demo-hooks` on PORT and, on ports the system picks, one
`functions-framework --target …` per handler and mode:
(a) emulator mode: FIREBASE_AUTH_EMULATOR_HOST is set in the function's environment, so firebase-functions does NOT
    check the JWT's signature, key id, algorithm or audience (only its issuer, the project); anyone who can reach the
    function can forge an event (checked below: a JWT signed with a key Hearth never had is accepted);
(b) strict: the recipe of docs/hooks.md — firebase_admin's ID_TOKEN_CERT_URI pointed at Hearth's published
    certificates, and function URLs containing "run.app" (firebase-functions checks the audience only for that
    substring) — so every request's RS256 signature, kid, issuer, audience and expiry are verified against Hearth's
    keys (checked below: the forged JWT, a Hearth ID token and a URL without "run.app" are refused);
then docs/hooks.md's Python example, taken from the page between its recipe markers and served strictly as it is.
The hooks are configured through the admin API (PATCH /v2/projects/{p}/config?updateMask=blockingFunctions), and the
REST client drives sign-up, password sign-in (also from a blocked loopback address), email link, the --dev Microsoft
provider (with a forwarded ID token, and a native link to a password account), a TOTP second factor (pyotp), refresh,
anonymous and custom-token sign-ins, and a tenant's users; every check asserts what Hearth did (the error, the admin
API's view of the user, the ID token's claims, what the function saw and how many times). Then a dead function,
hook URLs refused at configuration (private, link-local, http, user info, hex IPv4) and /metrics.
Prints one line per check and 'blocking-functions: N passed, M failed'; exits non-zero on any failure.
"""
import atexit
import base64
import hashlib
import html
import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import pyotp
import requests
from google.auth import crypt as google_crypt
from google.auth import jwt as google_jwt
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token as google_id_token
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

HEARTH, PORT = sys.argv[1:3]
# This process's firebase-admin makes unsigned custom tokens (emulator mode); the functions get their own environment.
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
from firebase_admin import auth  # noqa: E402
from checks import check, finish  # noqa: E402
from hearth_server import start_server  # noqa: E402
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "demo-hooks"
KEY = "hooks-e2e-key"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
CONFIG = f"{V2}/projects/{PROJECT}/config"
ADMIN = {"Authorization": "Bearer owner"}
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
HANDLER = f"{BASE}/__/auth/handler"
APP_ID = "hooks-e2e-desktop"
APP_REDIRECT = "http://127.0.0.1:65000/hooks-callback"
CLIENT = {"User-Agent": "hearth-hooks-e2e/1.0", "X-Firebase-Locale": "fr-CA"}
DOMAIN = "hearth.example"
BLOCKED_IP = "127.0.0.2"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FRAMEWORK = os.path.join(os.path.dirname(sys.executable), "functions-framework")

work = tempfile.mkdtemp(prefix="hearth-hooks-e2e-")
atexit.register(shutil.rmtree, work, True)  # registered first: runs after the processes are stopped
server, LOG_PATH, stop_server = start_server(HEARTH, PORT, work, BASE, extra=("--project-id", PROJECT, "--api-key", KEY))
ADMIN_APP = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="hooks-e2e")
FLAGGED = os.path.join(work, "flagged.txt")
open(FLAGGED, "w").close()


# --- the functions ---------------------------------------------------------------------------------------------------

def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Function:
    """One `functions-framework --target TARGET` process serving SOURCE on a free loopback port."""

    def __init__(self, name, target, source, emulated, events=None):
        self.name, self.port = name, free_port()
        self.events = events or os.path.join(work, f"{name}.events.jsonl")
        open(self.events, "a").close()
        env = {k: v for k, v in os.environ.items() if k not in ("FIREBASE_AUTH_EMULATOR_HOST", "GOOGLE_APPLICATION_CREDENTIALS")}
        env.update({"GOOGLE_CLOUD_PROJECT": PROJECT, "HEARTH_URL": BASE, "ALLOWED_DOMAIN": DOMAIN, "FLAGGED": FLAGGED,
                    "BLOCKED_IPS": BLOCKED_IP, "HOOK_EVENTS": self.events, "PYTHONUNBUFFERED": "1"})
        if emulated:
            env["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"
        self.log_path = os.path.join(work, f"{name}.log")
        self.log = open(self.log_path, "w")  # noqa: SIM115 - open for the process's lifetime
        self.process = subprocess.Popen([FRAMEWORK, "--target", target, "--source", source, "--host", "127.0.0.1",
                                         "--port", str(self.port)], env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                        cwd=os.path.dirname(source))
        atexit.register(self.stop)

    def url(self, path=""):
        return f"http://127.0.0.1:{self.port}{path}"

    def wait(self):
        for _ in range(200):
            if self.process.poll() is not None:
                break
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.1)
        self.stop()
        print(open(self.log_path).read())
        raise SystemExit(f"functions-framework {self.name} did not start")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.log.close()

    def seen(self):
        with open(self.events) as handle:
            return [json.loads(line) for line in handle if line.strip()]


MAIN = os.path.join(HERE, "functions", "main.py")
emulated_events = os.path.join(work, "emulated.events.jsonl")
strict_events = os.path.join(work, "strict.events.jsonl")
FUNCTIONS = {
    "emulated": (Function("emulated-create", "before_create", MAIN, True, emulated_events),
                 Function("emulated-signin", "before_sign_in", MAIN, True, emulated_events)),
    "strict": (Function("strict-create", "before_create", MAIN, False, strict_events),
               Function("strict-signin", "before_sign_in", MAIN, False, strict_events)),
}
# docs/hooks.md's Python example, exactly as the page shows it, in its own folder.
recipe_dir = os.path.join(work, "recipe")
os.makedirs(recipe_dir)
with open(os.path.join(ROOT, "docs", "hooks.md")) as page:
    docs_text = page.read()
recipe_block = re.search(r"<!-- hooks-recipe:start -->.*?```python\n(.*?)```.*?<!-- hooks-recipe:end -->", docs_text, re.S)
RECIPE = None
if recipe_block:
    with open(os.path.join(recipe_dir, "main.py"), "w") as handle:
        handle.write(recipe_block.group(1))
    RECIPE = (Function("recipe-create", "before_create", os.path.join(recipe_dir, "main.py"), False),
              Function("recipe-signin", "before_sign_in", os.path.join(recipe_dir, "main.py"), False))
for pair in [*FUNCTIONS.values(), *([RECIPE] if RECIPE else [])]:
    for function in pair:
        function.wait()


# --- helpers ---------------------------------------------------------------------------------------------------------

def v1(method, body, headers=None):
    response = requests.post(f"{V1}/accounts:{method}?key={KEY}", json=body, headers={**CLIENT, **(headers or {})}, timeout=30)
    return response.status_code, response.json()


def from_address(source_ip, method, body):
    """A client RPC sent from another loopback address (the function sees it as the caller's IP)."""
    connection = http.client.HTTPConnection("127.0.0.1", int(PORT), timeout=30, source_address=(source_ip, 0))
    connection.request("POST", f"/identitytoolkit.googleapis.com/v1/accounts:{method}?key={KEY}", json.dumps(body),
                       {**CLIENT, "Content-Type": "application/json"})
    response = connection.getresponse()
    answer = response.status, json.loads(response.read())
    connection.close()
    return answer


def admin(method, body, tenant=None):
    path = f"{V1}/projects/{PROJECT}" + (f"/tenants/{tenant}" if tenant else "") + f"/accounts:{method}"
    response = requests.post(path, json=body, headers=ADMIN, timeout=30)
    return response.status_code, response.json()


def admin_user(email, tenant=None):
    """The admin API's record of `email` (None when there is no such user)."""
    status, body = admin("lookup", {"email": [email]}, tenant)
    assert status == 200, body
    users = body.get("users") or []
    assert len(users) <= 1, body
    return users[0] if users else None


def refresh(refresh_token):
    response = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key={KEY}", headers=CLIENT,
                             data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=30)
    return response.status_code, response.json()


def verify(token):
    """The ID token's claims, verified by google-auth against Hearth's published certificates."""
    return google_id_token.verify_token(token, google_requests.Request(), audience=PROJECT, certs_url=CERTS)


def blocked(status, body, *fragments):
    """Hearth's refusal for a function's answer: HTTP 400, BLOCKING_FUNCTION_ERROR_RESPONSE with the function's words."""
    assert status == 400, (status, body)
    message = body["error"]["message"]
    assert message.startswith("BLOCKING_FUNCTION_ERROR_RESPONSE"), body
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "idToken" not in body and "refreshToken" not in body, body
    return message


def failed(status, body, *fragments):
    """Hearth's answer when a function could not be used (down, too slow, garbage): HTTP 503,
    BLOCKING_FUNCTION_ERROR_RESPONSE saying why."""
    assert status == 503, (status, body)
    message = body["error"]["message"]
    assert message.startswith("BLOCKING_FUNCTION_ERROR_RESPONSE"), body
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    assert "idToken" not in body and "refreshToken" not in body, body
    return message


def error_code(status, body):
    assert status == 400, (status, body)
    return body["error"]["message"].split(" : ")[0].strip()


def configure(create_url, sign_in_url, forward=None):
    """PATCH …/config?updateMask=blockingFunctions with Identity Platform's shape (None: the trigger absent;
    `forward`: forwardInboundCredentials)."""
    triggers = {}
    if create_url:
        triggers["beforeCreate"] = {"functionUri": create_url}
    if sign_in_url:
        triggers["beforeSignIn"] = {"functionUri": sign_in_url}
    functions = {"triggers": triggers}
    if forward:
        functions["forwardInboundCredentials"] = forward
    response = requests.patch(f"{CONFIG}?updateMask=blockingFunctions", headers=ADMIN, timeout=30,
                              json={"blockingFunctions": functions})
    assert response.status_code == 200, response.text
    return response.json()


def address(prefix, domain=DOMAIN):
    return f"{prefix}-{uuid.uuid4().hex[:8]}@{domain}"


class Events:
    """What the functions saw since this object was made (the events file only grows)."""

    def __init__(self, path):
        self.path = path
        self.start = len(self._all())

    def _all(self):
        with open(self.path) as handle:
            return [json.loads(line) for line in handle if line.strip()]

    def new(self):
        return self._all()[self.start:]

    def handlers(self):
        return [event["handler"] for event in self.new()]


def microsoft_sign_in(email, name="Hook E2E", id_token=None):
    """The --dev Microsoft provider through Hearth's auth handler, as a browser would, then signInWithIdp (with the
    user's ID token for a link)."""
    browser = requests.Session()
    raw_session = uuid.uuid4().hex[:20].upper()
    params = {"apiKey": KEY, "appId": APP_ID, "authType": "signInWithRedirect", "providerId": "microsoft.com",
              "sessionId": hashlib.sha256(raw_session.encode()).hexdigest(), "eventId": uuid.uuid4().hex[:10],
              "redirectUrl": APP_REDIRECT}
    start = browser.get(f"{HANDLER}?{urlencode(params)}", allow_redirects=False, timeout=30)
    assert start.status_code in (302, 303), (start.status_code, start.text[:300])
    authorize = urljoin(BASE, start.headers["Location"])
    form = browser.get(authorize, timeout=30)
    request_id = re.search(r'name="request_id" value="([^"]+)"', form.text)
    assert request_id, form.text[:500]
    action = html.unescape(re.search(r'action="([^"]+)"', form.text).group(1))
    submitted = browser.post(urljoin(authorize, action), data={"request_id": request_id.group(1), "email": email, "name": name,
                                                              "action": "login"}, allow_redirects=False, timeout=30)
    assert submitted.status_code in (302, 303), (submitted.status_code, submitted.text[:300])
    delivered = browser.get(urljoin(BASE, submitted.headers["Location"]), allow_redirects=False, timeout=30)
    assert delivered.status_code in (302, 303), (delivered.status_code, delivered.text[:500])
    query = parse_qs(urlparse(delivered.headers["Location"]).query)
    assert "link" in query, query
    body = {"requestUri": query["link"][0], "sessionId": raw_session, "returnSecureToken": True}
    if id_token:
        body["idToken"] = id_token
    return v1("signInWithIdp", body)


def oob_code(email, request_type):
    listed = requests.get(f"{BASE}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=30).json()["oobCodes"]
    codes = [c for c in listed if c["email"] == email and c["requestType"] == request_type]
    assert codes, (email, request_type, listed[-3:])
    return codes[-1]["oobCode"]


def v2(method, body):
    response = requests.post(f"{V2}/accounts/{method}?key={KEY}", json=body, headers=CLIENT, timeout=30)
    return response.status_code, response.json()


def enroll_totp(email, password):
    """A verified user of `email` with a TOTP factor (pyotp computes the codes): its factor id and pyotp's TOTP, and
    the step last used."""
    status, body = v1("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    assert status == 200, body
    status, sent = v1("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": body["idToken"]})
    assert status == 200, sent
    status, verified = v1("update", {"oobCode": oob_code(email, "VERIFY_EMAIL")})
    assert status == 200 and verified["emailVerified"] is True, verified
    status, started = v2("mfaEnrollment:start", {"idToken": body["idToken"], "totpEnrollmentInfo": {}})
    assert status == 200, started
    session = started["totpSessionInfo"]
    totp = pyotp.TOTP(session["sharedSecretKey"], digits=int(session["verificationCodeLength"]), interval=int(session["periodSec"]))
    step = int(time.time()) // int(session["periodSec"])
    status, done = v2("mfaEnrollment:finalize", {"idToken": body["idToken"], "displayName": "phone", "totpVerificationInfo": {
        "sessionInfo": session["sessionInfo"], "verificationCode": totp.at(step * int(session["periodSec"]))}})
    assert status == 200, done
    status, found = v1("lookup", {"idToken": done["idToken"]})
    assert status == 200, found
    return found["users"][0]["mfaInfo"][0]["mfaEnrollmentId"], totp, step


def make_tenant(display_name):
    response = requests.post(f"{V2}/projects/{PROJECT}/tenants", json={"displayName": display_name}, headers=ADMIN, timeout=30)
    assert response.status_code == 200, response.text
    tenant_id = response.json()["name"].rsplit("/", 1)[1]
    patched = requests.patch(f"{V2}/projects/{PROJECT}/tenants/{tenant_id}?updateMask=allowPasswordSignup",
                             json={"allowPasswordSignup": True}, headers=ADMIN, timeout=30)
    assert patched.status_code == 200, patched.text
    return tenant_id


def forged_jwt(audience, uid="forged-uid", event_type="beforeCreate"):
    """A blocking-function JWT of the right shape signed with a key Hearth never had."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    signer = google_crypt.RSASigner.from_string(pem.decode(), key_id="forged-kid")
    now = int(time.time())
    claims = {"iss": f"https://securetoken.google.com/{PROJECT}", "aud": audience, "iat": now, "exp": now + 3600,
              "sub": uid, "event_id": base64.urlsafe_b64encode(os.urandom(16)).decode().rstrip("="),
              "event_type": event_type, "ip_address": "203.0.113.9", "user_agent": "forger", "locale": "en",
              "sign_in_method": "password",
              "user_record": {"uid": uid, "email": f"forged@{DOMAIN}", "email_verified": True, "disabled": False,
                              "metadata": {"creation_time": now * 1000}, "provider_data": []}}
    return google_jwt.encode(signer, claims).decode()


def post_jwt(url, token):
    response = requests.post(url, json={"data": {"jwt": token}}, timeout=30)
    return response.status_code, response.text


# --- the checks, once per mode ----------------------------------------------------------------------------------------

state = {}


def run_mode(mode):
    create, sign_in = FUNCTIONS[mode]
    # Strict functions are reached at a path containing "run.app" (firebase-functions' audience check, docs/hooks.md).
    path = "/run.app/hook" if mode == "strict" else "/hook"
    create_url, sign_in_url = create.url(path + "/before-create"), sign_in.url(path + "/before-sign-in")
    seen = create.events
    label = f"[{mode}]"

    @check(f"{label} PATCH …/config?updateMask=blockingFunctions sets both triggers; GET shows them with updateTime")
    def _():
        answer = configure(create_url, sign_in_url)
        triggers = answer["blockingFunctions"]["triggers"]
        assert triggers["beforeCreate"]["functionUri"] == create_url, answer
        assert triggers["beforeSignIn"]["functionUri"] == sign_in_url, answer
        shown = requests.get(CONFIG, headers=ADMIN, timeout=30).json()["blockingFunctions"]["triggers"]
        assert shown["beforeCreate"]["functionUri"] == create_url and shown["beforeCreate"].get("updateTime"), shown
        assert shown["beforeSignIn"]["functionUri"] == sign_in_url and shown["beforeSignIn"].get("updateTime"), shown

    @check(f"{label} a sign-up outside the allowed domain: BLOCKING_FUNCTION_ERROR_RESPONSE with the function's message, no user stored, beforeSignIn not called")
    def _():
        events = Events(seen)
        email = address("outsider", "elsewhere.example")
        status, body = v1("signUp", {"email": email, "password": "outsider pass 1", "returnSecureToken": True})
        blocked(status, body, f"Only {DOMAIN} addresses may sign up.", "PERMISSION_DENIED")
        assert admin_user(email) is None, "a refused sign-up stored a user"
        assert events.handlers() == ["before_create"], events.new()
        event = events.new()[0]
        assert event["email"] == email and event["is_new_user"] is True and event["provider_id"] == "password", event
        # A second try is refused the same way (nothing half-made by the first).
        status, body = v1("signUp", {"email": email, "password": "outsider pass 1", "returnSecureToken": True})
        blocked(status, body, "may sign up")
        assert admin_user(email) is None

    @check(f"{label} an allowed sign-up: beforeCreate then beforeSignIn (once each, the same uid, before the user exists); the role claim and session claims in the ID token")
    def _():
        events = Events(seen)
        email = address("ann")
        status, body = v1("signUp", {"email": email, "password": "ann pass 12", "returnSecureToken": True})
        assert status == 200, body
        assert events.handlers() == ["before_create", "before_sign_in"], events.new()
        made, signed = events.new()
        uid = body["localId"]
        assert made["uid"] == uid and signed["uid"] == uid, (uid, made, signed)
        assert made["event_type"].endswith("user.beforeCreate") and signed["event_type"].endswith("user.beforeSignIn"), made
        assert made["email"] == email and made["provider_id"] == "password" and made["custom_claims"] in (None, {}), made
        assert made["ip_address"] == "127.0.0.1" and made["user_agent"] == CLIENT["User-Agent"], made
        assert made["locale"] == "fr-CA", made
        # beforeSignIn during creation sees what beforeCreate answered.
        assert signed["custom_claims"] == {"role": "member"}, signed
        assert signed["display_name"] == email.split("@")[0], signed
        claims = verify(body["idToken"])
        assert claims["role"] == "member", claims
        assert claims["signed_in_with"] == "password" and claims["tenant"] == "none", claims
        assert claims["name"] == email.split("@")[0], claims
        assert claims["firebase"]["sign_in_provider"] == "password", claims
        record = admin_user(email)
        assert record and record["localId"] == uid, record
        assert json.loads(record["customAttributes"]) == {"role": "member"}, record
        assert record["displayName"] == email.split("@")[0], record
        state[mode] = {"email": email, "password": "ann pass 12", "uid": uid, "refreshToken": body["refreshToken"]}

    @check(f"{label} refresh keeps the session claims and the role; no function is called")
    def _():
        user = state[mode]
        events = Events(seen)
        status, body = refresh(user["refreshToken"])
        assert status == 200, body
        claims = verify(body["id_token"])
        assert claims["role"] == "member" and claims["signed_in_with"] == "password" and claims["tenant"] == "none", claims
        assert events.new() == [], events.new()

    @check(f"{label} signInWithPassword: beforeSignIn once (the stored user, its claims and last sign-in), not beforeCreate; session claims in the new token")
    def _():
        user = state[mode]
        events = Events(seen)
        status, body = v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})
        assert status == 200, body
        assert events.handlers() == ["before_sign_in"], events.new()
        event = events.new()[0]
        assert event["uid"] == user["uid"] and event["is_new_user"] is False and event["provider_id"] == "password", event
        assert event["custom_claims"] == {"role": "member"} and event["last_sign_in_time"], event
        assert event["providers"] == ["password"], event
        claims = verify(body["idToken"])
        assert claims["role"] == "member" and claims["signed_in_with"] == "password", claims

    @check(f"{label} boss@… gets the admin role at creation")
    def _():
        email = address("boss")
        status, body = v1("signUp", {"email": email, "password": "boss pass 12", "returnSecureToken": True})
        assert status == 200, body
        assert verify(body["idToken"])["role"] == "admin"

    @check(f"{label} a flagged address: beforeSignIn answers disabled → USER_DISABLED, the user stored disabled, its refresh token refused")
    def _():
        email = address("flagged")
        status, body = v1("signUp", {"email": email, "password": "flag pass 12", "returnSecureToken": True})
        assert status == 200, body
        with open(FLAGGED, "a") as handle:
            handle.write(email + "\n")
        status, signed = v1("signInWithPassword", {"email": email, "password": "flag pass 12", "returnSecureToken": True})
        assert error_code(status, signed) == "USER_DISABLED", signed
        assert "idToken" not in signed, signed
        assert admin_user(email)["disabled"] is True
        status, refreshed = refresh(body["refreshToken"])
        assert status == 400 and "USER_DISABLED" in refreshed["error"]["message"], refreshed

    @check(f"{label} a sign-in from a blocked IP address: refused with the function's message, nothing recorded; from another address it passes")
    def _():
        user = state[mode]
        before = admin_user(user["email"])["lastLoginAt"]
        events = Events(seen)
        status, body = from_address(BLOCKED_IP, "signInWithPassword", {"email": user["email"], "password": user["password"],
                                                                      "returnSecureToken": True})
        blocked(status, body, f"Sign-ins from {BLOCKED_IP} are blocked.")
        assert [e["ip_address"] for e in events.new()] == [BLOCKED_IP], events.new()
        assert admin_user(user["email"])["lastLoginAt"] == before, "a refused sign-in was recorded"
        status, body = from_address("127.0.0.3", "signInWithPassword", {"email": user["email"], "password": user["password"],
                                                                        "returnSecureToken": True})
        assert status == 200, body

    @check(f"{label} email link: a new address is created through beforeCreate (sign_in_method emailLink → provider password) then beforeSignIn; an outsider's link creates nobody")
    def _():
        email = address("link")
        status, body = v1("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": email, "continueUrl": "http://localhost/done",
                                          "canHandleCodeInApp": True})
        assert status == 200, body
        events = Events(seen)
        status, body = v1("signInWithEmailLink", {"email": email, "oobCode": oob_code(email, "EMAIL_SIGNIN")})
        assert status == 200, body
        assert events.handlers() == ["before_create", "before_sign_in"], events.new()
        assert all(e["provider_id"] == "password" and e["email_verified"] is True for e in events.new()), events.new()
        assert verify(body["idToken"])["role"] == "member"
        outsider = address("link", "elsewhere.example")
        status, body = v1("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": outsider, "continueUrl": "http://localhost/done",
                                          "canHandleCodeInApp": True})
        assert status == 200, body
        status, body = v1("signInWithEmailLink", {"email": outsider, "oobCode": oob_code(outsider, "EMAIL_SIGNIN")})
        blocked(status, body, "may sign up")
        assert admin_user(outsider) is None

    @check(f"{label} the --dev Microsoft provider: the first sign-in creates (beforeCreate with the profile, then beforeSignIn), the second only signs in; an outsider is refused and not stored")
    def _():
        email = address("mike")
        events = Events(seen)
        status, body = microsoft_sign_in(email)
        assert status == 200, body
        assert events.handlers() == ["before_create", "before_sign_in"], events.new()
        made = events.new()[0]
        assert made["provider_id"] == "microsoft.com" and made["is_new_user"] is True, made
        assert made["profile"] and made["profile"].get("email", email).lower() == email.lower(), made
        claims = verify(body["idToken"])
        assert claims["role"] == "member" and claims["signed_in_with"] == "microsoft.com", claims
        assert made["credential"] is None or not made["credential"]["id_token"], made
        # With forwardInboundCredentials.idToken the provider's ID token reaches the function (event.credential).
        configure(create_url, sign_in_url, forward={"idToken": True})
        events = Events(seen)
        status, body = microsoft_sign_in(email)
        assert status == 200, body
        assert events.handlers() == ["before_sign_in"], events.new()
        signed = events.new()[0]
        assert signed["providers"] == ["microsoft.com"], signed
        assert signed["credential"] and signed["credential"]["id_token"] is True, signed
        assert signed["credential"]["sign_in_method"] == "microsoft.com", signed
        configure(create_url, sign_in_url)
        outsider = address("mike", "elsewhere.example")
        status, body = microsoft_sign_in(outsider)
        blocked(status, body, "may sign up")
        assert admin_user(outsider) is None

    @check(f"{label} linking microsoft.com to a password account fires beforeSignIn once, seeing the account with the link")
    def _():
        email = address("linker")
        status, body = v1("signUp", {"email": email, "password": "linker pass 1", "returnSecureToken": True})
        assert status == 200, body
        events = Events(seen)
        # The Apple SDK's way (the desktop/native redirect flow): signInWithIdp with the user's idToken links.
        status, linked = microsoft_sign_in(address("linked"), id_token=body["idToken"])
        assert status == 200 and linked["localId"] == body["localId"], linked
        assert events.handlers() == ["before_sign_in"], events.new()
        assert events.new()[0]["providers"] == ["microsoft.com", "password"], events.new()
        record = admin_user(email)
        assert sorted(p["providerId"] for p in record["providerUserInfo"]) == ["microsoft.com", "password"], record

    @check(f"{label} a user with a TOTP factor: no function at the password, beforeSignIn once at mfaSignIn:finalize; the token has both the session claims and the second factor")
    def _():
        email = address("totp")
        status, body = v1("signUp", {"email": email, "password": "totp pass 12", "returnSecureToken": True})
        assert status == 200, body
        enrollment, totp, step = enroll_totp(email, "totp pass 12")
        events = Events(seen)
        status, pending = v1("signInWithPassword", {"email": email, "password": "totp pass 12", "returnSecureToken": True})
        assert status == 200 and pending.get("mfaPendingCredential") and "idToken" not in pending, pending
        assert events.new() == [], events.new()
        status, done = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": enrollment,
                                                 "totpVerificationInfo": {"verificationCode": totp.at((step + 1) * totp.interval)}})
        assert status == 200, done
        assert events.handlers() == ["before_sign_in"], events.new()
        claims = verify(done["idToken"])
        assert claims["firebase"]["sign_in_second_factor"] == "totp" and claims["signed_in_with"] == "password", claims
        assert claims["role"] == "member", claims

    @check(f"{label} anonymous sign-up and custom-token sign-in call no function")
    def _():
        events = Events(seen)
        status, body = v1("signUp", {"returnSecureToken": True})
        assert status == 200, body
        token = auth.create_custom_token(f"custom-{uuid.uuid4().hex[:8]}", app=ADMIN_APP)
        status, body = v1("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True})
        assert status == 200, body
        assert events.new() == [], events.new()

    @check(f"{label} a tenant's users go through the project's functions with tenant_id; an outsider is refused in the tenant too")
    def _():
        tenant = state.get("tenant") or state.setdefault("tenant", make_tenant("hooks-tenant"))
        email = address("ten")
        events = Events(seen)
        status, body = v1("signUp", {"email": email, "password": "tenant pass 1", "returnSecureToken": True, "tenantId": tenant})
        assert status == 200, body
        assert events.handlers() == ["before_create", "before_sign_in"], events.new()
        assert all(e["tenant_id"] == tenant for e in events.new()), events.new()
        claims = verify(body["idToken"])
        assert claims["firebase"]["tenant"] == tenant and claims["tenant"] == tenant and claims["role"] == "member", claims
        assert admin_user(email, tenant)["tenantId"] == tenant
        assert admin_user(email) is None, "the tenant's user is in the project"
        events = Events(seen)
        status, body = v1("signInWithPassword", {"email": email, "password": "tenant pass 1", "returnSecureToken": True,
                                                 "tenantId": tenant})
        assert status == 200, body
        assert [(e["handler"], e["tenant_id"]) for e in events.new()] == [("before_sign_in", tenant)], events.new()
        outsider = address("ten", "elsewhere.example")
        status, body = v1("signUp", {"email": outsider, "password": "tenant pass 1", "returnSecureToken": True, "tenantId": tenant})
        blocked(status, body, "may sign up")
        assert admin_user(outsider, tenant) is None


# TOTP second factors on for the project (the MFA check of each mode).
_totp = requests.patch(f"{CONFIG}?updateMask=mfa", headers=ADMIN, timeout=30, json={"mfa": {
    "state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}})
assert _totp.status_code == 200, _totp.text

run_mode("emulated")


@check("[emulated] what emulator mode means: a JWT signed with a key Hearth never had is accepted by the function")
def _():
    create, _sign_in = FUNCTIONS["emulated"]
    status, text = post_jwt(create.url("/hook/before-create"), forged_jwt(create.url("/hook/before-create")))
    assert status == 200 and "customClaims" in text, (status, text)


run_mode("strict")


@check("[strict] the function refuses a JWT signed with a key Hearth never had, and a real Hearth ID token")
def _():
    create, _sign_in = FUNCTIONS["strict"]
    url = create.url("/run.app/hook/before-create")
    events = Events(create.events)
    status, text = post_jwt(url, forged_jwt(url))
    assert status >= 400 and "customClaims" not in text, (status, text)
    status, body = v1("signUp", {"returnSecureToken": True})
    assert status == 200, body
    status, text = post_jwt(url, body["idToken"])
    assert status >= 400 and "customClaims" not in text, (status, text)
    assert events.new() == [], "the handler ran for an unverified JWT"


@check("[strict] a function URL without 'run.app': firebase-functions refuses Hearth's JWT (audience), so the sign-up fails and stores nothing")
def _():
    create, sign_in = FUNCTIONS["strict"]
    configure(create.url("/hook/before-create"), sign_in.url("/hook/before-sign-in"))
    email = address("noaud")
    status, body = v1("signUp", {"email": email, "password": "noaud pass 1", "returnSecureToken": True})
    blocked(status, body)
    assert admin_user(email) is None
    configure(create.url("/run.app/hook/before-create"), sign_in.url("/run.app/hook/before-sign-in"))


@check("[strict] a function that is down: the sign-up fails at once (503 BLOCKING_FUNCTION_ERROR_RESPONSE: the event and URL could not be reached), nothing stored")
def _():
    create, sign_in = FUNCTIONS["strict"]
    dead = f"http://127.0.0.1:{free_port()}/run.app/before-create"
    configure(dead, sign_in.url("/run.app/hook/before-sign-in"))
    email = address("down")
    started = time.monotonic()
    status, body = v1("signUp", {"email": email, "password": "down pass 12", "returnSecureToken": True})
    elapsed = time.monotonic() - started
    failed(status, body, "beforeCreate", dead, "could not be reached")
    assert elapsed < 3, f"a refused connection took {elapsed:.1f} s"
    assert admin_user(email) is None
    configure(create.url("/run.app/hook/before-create"), sign_in.url("/run.app/hook/before-sign-in"))


@check("hook URLs to private, link-local or non-https places are refused when configured (400 INVALID_CONFIG naming the trigger), the configuration unchanged")
def _():
    before = requests.get(CONFIG, headers=ADMIN, timeout=30).json()["blockingFunctions"]
    for url in ("https://10.1.2.3/hook", "https://169.254.169.254/latest/meta-data", "https://[::ffff:192.168.0.1]/hook",
                "http://hooks.example.com/hook", "https://user:pw@hooks.example.com/hook", "https://0x7f000001/hook"):
        response = requests.patch(f"{CONFIG}?updateMask=blockingFunctions.triggers.beforeCreate", headers=ADMIN, timeout=30,
                                  json={"blockingFunctions": {"triggers": {"beforeCreate": {"functionUri": url}}}})
        assert response.status_code == 400, (url, response.status_code, response.text)
        message = response.json()["error"]["message"]
        assert message.startswith("INVALID_CONFIG") and "beforeCreate" in message, (url, message)
    assert requests.get(CONFIG, headers=ADMIN, timeout=30).json()["blockingFunctions"] == before


@check("/metrics counts and times the calls per event")
def _():
    text = requests.get(f"{BASE}/metrics", timeout=30).text
    for event in ("beforeCreate", "beforeSignIn"):
        assert re.search(r'hearth_blocking_function_calls_total\{[^}]*event="%s"' % event, text), event
        assert re.search(r'hearth_blocking_function_duration_seconds[_a-z]*\{[^}]*event="%s"' % event, text), event


if RECIPE:
    @check("docs/hooks.md's Python example, served strictly as written: an outsider refused, a colleague gets the role claim")
    def _():
        create, sign_in = RECIPE
        configure(create.url("/run.app/before-create"), sign_in.url("/run.app/before-sign-in"))
        outsider = address("someone", "elsewhere.example")
        status, body = v1("signUp", {"email": outsider, "password": "recipe pass 1", "returnSecureToken": True})
        blocked(status, body)
        assert admin_user(outsider) is None
        email = f"recipe-{uuid.uuid4().hex[:8]}@example.com"
        status, body = v1("signUp", {"email": email, "password": "recipe pass 1", "returnSecureToken": True})
        assert status == 200, body
        claims = verify(body["idToken"])
        assert claims.get("role") == "member", claims
else:
    @check("docs/hooks.md holds the Python example between <!-- hooks-recipe:start --> and <!-- hooks-recipe:end -->")
    def _():
        raise AssertionError("docs/hooks.md has no hooks-recipe block")


@check("no JWT, refresh token or password in Hearth's log")
def _():
    text = open(LOG_PATH).read()
    assert "hrt1." not in text and "pass 12" not in text, "a secret reached the server log"
    assert not re.search(r"eyJ[A-Za-z0-9_-]{20,}\.eyJ", text), "a JWT reached the server log"


try:
    configure(None, None)
finally:
    stop_server()
finish("blocking-functions")
