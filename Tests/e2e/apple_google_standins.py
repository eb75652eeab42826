"""Sign in with Apple and Google end to end against providers Hearth did not write, on a production server
(`hearth serve` without --dev, a fresh data directory, the non-demo project apple-google-e2e).

Google: oidc-provider-mock (PyPI; started here on its own port, --require-registration --require-nonce) stands in
for Google: google.com's `endpointBase` names it, and Hearth reads its endpoints from its discovery document. The
web flow (createAuthUri, the auth handler, the mock's form, the callback, signInWithIdp), a native ID token the mock
issued, and refusals (a token signed with another key, one for another client, a replay).

Apple: a Sign in with Apple stand-in written here (http.server) serves Apple's paths under its own base:
`/auth/authorize` (a login form, answered with Apple's form_post page: code, state and, on a person's first
authorization of the client, the `user` JSON — this script POSTs it to Hearth's /__/auth/handler as a browser
would), `/auth/token` (checks the ES256 client secret Hearth minted on its own: kid, iss team id, sub services id,
aud the base, lifetime ≤ 6 months, signature by the .p8 this script generated and uploaded; `invalid_client`
otherwise), `/auth/keys` (RS256 ID tokens with string booleans), `/auth/revoke` (client secret checked; revocations
recorded). Web flow with the name kept, a wrong key refused, native ID tokens (SHA-256 nonce; a wrong or missing
nonce refused), a private-relay address never linking to the account holding it, the token vault's renewals,
accounts:revokeToken and the revocation of the vault's Apple refresh token when the user is deleted.

Usage: apple_google_standins.py HEARTH_BINARY PORT [STANDIN_PORT]
The stand-ins listen on STANDIN_PORT (Apple) and STANDIN_PORT+1 (oidc-provider-mock), or on free ports the system
picks when STANDIN_PORT is not given. Prints one line per check and 'apple-google stand-ins: N passed, M failed'.
"""
import base64
import hashlib
import html
import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlencode, urlparse

import jwt
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from google.auth.transport import requests as google_requests
from google.auth.transport.requests import Request
from google.oauth2 import id_token as google_id_token
from google.oauth2 import service_account
from checks import check, finish

HEARTH, PORT = sys.argv[1:3]
STANDIN_PORT = int(sys.argv[3]) if len(sys.argv) > 3 else None
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "apple-google-e2e"
API_KEY = "apple-google-e2e-key"
APP_ID = "e2e-desktop"
APP_REDIRECT = "http://127.0.0.1:65000/callback"
HANDLER = f"{BASE}/__/auth/handler"
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
ADMIN = f"{V2}/projects/{PROJECT}/defaultSupportedIdpConfigs"
SIX_MONTHS = 15777000

# Apple's identifiers for this test's "developer account".
SERVICES_ID = "com.example.e2e.web"
BUNDLE_ID = "com.example.e2e"
TEAM_ID = "E2ETEAM001"
KEY_ID = "E2EKEY0001"


def free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


APPLE_PORT = STANDIN_PORT or free_port()
MOCK_PORT = STANDIN_PORT + 1 if STANDIN_PORT else free_port()
APPLE_BASE = f"http://127.0.0.1:{APPLE_PORT}"
MOCK_BASE = f"http://127.0.0.1:{MOCK_PORT}"


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def p8(private_key):
    return private_key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                     serialization.NoEncryption()).decode()


# --- the Sign in with Apple stand-in -----------------------------------------------------------------------------

class AppleStandIn:
    """Apple's /auth endpoints under `base`, with the checks Apple makes (as far as Apple documents them)."""

    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"
        self.signing_key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.kid = "standin-" + secrets.token_hex(4)
        self.lock = threading.Lock()
        self.clients = {}          # services id or bundle id -> {"team_id", "key_id", "public_key"} (the developer portal)
        self.requests = {}         # pending authorization: request id -> the authorize query
        self.codes = {}            # code -> {"client_id", "redirect_uri", "nonce", "sub", "email", "private"}
        self.authorized = set()    # (sub, client_id) that have seen the `user` field
        self.refresh_tokens = {}   # refresh token -> {"client_id", "sub", "email", "private"}
        self.issued = {}           # every access and refresh token -> the client it was issued to
        self.revoked = []          # (token, token_type_hint, client_id, whether the token was that client's)
        self.refusals = []         # why a client secret was refused
        self.accepted_secrets = []  # (header, claims) of client secrets accepted
        self.refresh_grants = 0     # refresh_token grants answered
        self.server = ThreadingHTTPServer(("127.0.0.1", port), self.handler())
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def register_client(self, client_id, team_id, key_id, private_key):
        with self.lock:
            self.clients[client_id] = {"team_id": team_id, "key_id": key_id, "public_key": private_key.public_key()}

    @staticmethod
    def subject(email):
        return "000123." + hashlib.sha256(email.encode()).hexdigest()[:32] + ".0456"

    def id_token(self, client_id, sub, email, private, nonce=None, lifetime=600, key=None, kid=None, iss=None, extra=None):
        now = int(time.time())
        claims = {"iss": iss or self.base, "aud": client_id, "exp": now + lifetime, "iat": now, "sub": sub, "auth_time": now,
                  "nonce_supported": True, "email": email, "email_verified": "true", "is_private_email": "true" if private else "false"}
        if nonce is not None:
            claims["nonce"] = nonce
        claims.update(extra or {})
        return jwt.encode(claims, key or self.signing_key, algorithm="RS256", headers={"kid": kid or self.kid})

    def jwks(self):
        jwk = json.loads(jwt.algorithms.RSAAlgorithm.to_jwk(self.signing_key.public_key()))
        jwk.update({"kid": self.kid, "use": "sig", "alg": "RS256"})
        return {"keys": [jwk]}

    def issue_code(self, client_id, sub, email, private=False, nonce=None, redirect_uri=None):
        """An authorization code as Apple gives one to an app (the native SDK's `authorizationCode`)."""
        code = "c" + secrets.token_hex(16) + ".0.standin"
        with self.lock:
            self.codes[code] = {"client_id": client_id, "redirect_uri": redirect_uri, "nonce": nonce, "sub": sub,
                                "email": email, "private": private}
        return code

    def check_client_secret(self, form):
        """None when `client_secret` is the ES256 JWT Apple requires for `client_id`, else the reason."""
        client_id, secret = form.get("client_id", ""), form.get("client_secret", "")
        client = self.clients.get(client_id)
        if client is None:
            return f"unknown client_id {client_id!r}"
        if not secret:
            return "no client_secret"
        try:
            header = jwt.get_unverified_header(secret)
        except jwt.PyJWTError as error:
            return f"the client secret is not a JWT ({error})"
        if header.get("alg") != "ES256":
            return f"alg {header.get('alg')!r} is not ES256"
        if header.get("kid") != client["key_id"]:
            return f"kid {header.get('kid')!r} is not the key id"
        try:
            claims = jwt.decode(secret, client["public_key"], algorithms=["ES256"], audience=self.base, issuer=client["team_id"],
                                options={"require": ["iss", "sub", "aud", "iat", "exp"]})
        except jwt.PyJWTError as error:
            return f"the client secret does not verify: {error}"
        if claims["sub"] != client_id:
            return "sub is not the client id"
        if claims["exp"] - claims["iat"] > SIX_MONTHS or claims["exp"] > time.time() + SIX_MONTHS:
            return "the client secret lives longer than six months"
        with self.lock:
            self.accepted_secrets.append((header, claims))
        return None

    def token(self, form):
        """`/auth/token`: (status, JSON)."""
        reason = self.check_client_secret(form)
        if reason:
            with self.lock:
                self.refusals.append(reason)
            return 400, {"error": "invalid_client"}
        client_id = form["client_id"]
        grant = form.get("grant_type")
        if grant == "authorization_code":
            with self.lock:
                entry = self.codes.pop(form.get("code", ""), None)
            if entry is None or entry["client_id"] != client_id:
                return 400, {"error": "invalid_grant"}
            if entry["redirect_uri"] is not None and form.get("redirect_uri") != entry["redirect_uri"]:
                return 400, {"error": "invalid_grant"}
            refresh, access = "r" + secrets.token_hex(16) + ".0.standin", "a" + secrets.token_hex(16)
            with self.lock:
                self.refresh_tokens[refresh] = entry
                self.issued[refresh] = self.issued[access] = client_id
            # Access tokens live 30 s here (Apple's live an hour): the token vault renews them on every request.
            return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 30,
                         "refresh_token": refresh,
                         "id_token": self.id_token(client_id, entry["sub"], entry["email"], entry["private"], entry["nonce"])}
        if grant == "refresh_token":
            with self.lock:
                entry = self.refresh_tokens.get(form.get("refresh_token", ""))
            if entry is None or entry["client_id"] != client_id:
                return 400, {"error": "invalid_grant"}
            access = "a" + secrets.token_hex(16)
            with self.lock:
                self.issued[access] = client_id
                self.refresh_grants += 1
            return 200, {"access_token": access, "token_type": "Bearer", "expires_in": 30,
                         "id_token": self.id_token(client_id, entry["sub"], entry["email"], entry["private"])}
        return 400, {"error": "unsupported_grant_type"}

    def revoke(self, form):
        reason = self.check_client_secret(form)
        if reason:
            with self.lock:
                self.refusals.append(reason)
            return 400, {"error": "invalid_client"}
        # Apple answers 200 for any token once the client is authenticated; only its own tokens are revoked.
        token, client_id = form.get("token", ""), form["client_id"]
        with self.lock:
            own = self.issued.get(token) == client_id
            self.revoked.append((token, form.get("token_type_hint"), client_id, own))
            if own:
                self.refresh_tokens.pop(token, None)
        return 200, None

    def authorize_form(self, query):
        client_id = query.get("client_id", "")
        if client_id not in self.clients:
            return 400, "invalid_client"
        if query.get("response_type") != "code" or not query.get("redirect_uri"):
            return 400, "invalid_request"
        scopes = query.get("scope", "").split()
        if ("name" in scopes or "email" in scopes) and query.get("response_mode") != "form_post":
            return 400, "invalid_request: response_mode must be form_post when name or email scope is requested"
        request_id = secrets.token_hex(8)
        with self.lock:
            self.requests[request_id] = query
        return 200, ('<form method="post" action="/auth/authorize">'
                     f'<input type="hidden" name="request_id" value="{request_id}">'
                     '<input name="email"><input name="first_name"><input name="last_name">'
                     '<input type="checkbox" name="private" value="true"><button>Continue</button></form>')

    def authorize_submit(self, form):
        """The person signed in: Apple's form_post page (code, state, and `user` the first time)."""
        with self.lock:
            query = self.requests.pop(form.get("request_id", ""), None)
        if query is None:
            return 400, "unknown request"
        email, private = form["email"], form.get("private") == "true"
        sub = self.subject(form.get("account", email))
        client_id = query["client_id"]
        code = self.issue_code(client_id, sub, email, private, query.get("nonce"), query["redirect_uri"])
        fields = {"code": code, "state": query.get("state", "")}
        with self.lock:
            first = (sub, client_id) not in self.authorized
            self.authorized.add((sub, client_id))
        if first:
            fields["user"] = json.dumps({"name": {"firstName": form.get("first_name", ""), "lastName": form.get("last_name", "")},
                                         "email": email})
        inputs = "".join(f'<input type="hidden" name="{name}" value="{html.escape(value)}">' for name, value in fields.items())
        return 200, (f'<html><body onload="document.forms[0].submit()"><form method="post" action="{html.escape(query["redirect_uri"])}">'
                     f'{inputs}</form></body></html>')

    def handler(self):
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def answer(self, status, body, content_type="application/json"):
                data = b"" if body is None else (json.dumps(body) if content_type == "application/json" else body).encode()
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):  # noqa: N802
                url = urlparse(self.path)
                query = {key: values[0] for key, values in parse_qs(url.query).items()}
                if url.path == "/auth/keys":
                    return self.answer(200, standin.jwks())
                if url.path == "/auth/authorize":
                    status, page = standin.authorize_form(query)
                    return self.answer(status, page, "text/html")
                if url.path == "/.well-known/openid-configuration":
                    return self.answer(200, {"issuer": standin.base, "authorization_endpoint": standin.base + "/auth/authorize",
                                             "token_endpoint": standin.base + "/auth/token", "jwks_uri": standin.base + "/auth/keys",
                                             "revocation_endpoint": standin.base + "/auth/revoke",
                                             "response_modes_supported": ["query", "fragment", "form_post"],
                                             "token_endpoint_auth_methods_supported": ["client_secret_post"]})
                self.answer(404, {"error": "not_found"})

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length", "0"))
                raw = self.rfile.read(length).decode()
                if not (self.headers.get("Content-Type") or "").startswith("application/x-www-form-urlencoded"):
                    return self.answer(400, {"error": "invalid_request"})
                form = {key: values[0] for key, values in parse_qs(raw, keep_blank_values=True).items()}
                path = urlparse(self.path).path
                if path == "/auth/token":
                    return self.answer(*standin.token(form))
                if path == "/auth/revoke":
                    status, body = standin.revoke(form)
                    return self.answer(status, body)
                if path == "/auth/authorize":
                    status, page = standin.authorize_submit(form)
                    return self.answer(status, page, "text/html")
                self.answer(404, {"error": "not_found"})

        return Handler


# --- the server, its admin credential, the stand-ins --------------------------------------------------------------

work = tempfile.mkdtemp()
data_dir = os.path.join(work, "data")
# The provider token vault (its keys outside the data directory, mode 0600): it keeps Apple's and the mock's refresh
# tokens, which the vault checks renew and account deletion revokes.
vault_keys = os.path.join(work, "vault.keys")
with open(os.open(vault_keys, os.O_WRONLY | os.O_CREAT, 0o600), "w") as handle:
    handle.write(f"e2e:{base64.b64encode(secrets.token_bytes(32)).decode()}\n")
server_log = open(os.path.join(work, "server.log"), "w")
server = subprocess.Popen([HEARTH, "serve", "--project-id", PROJECT, "--api-key", API_KEY, "--port", PORT, "--data-dir", data_dir,
                           "--vault-keys-file", vault_keys], stdout=server_log, stderr=subprocess.STDOUT)
mock_log = open(os.path.join(work, "oidc-mock.log"), "w")
# Tokens live 50 s (less than the minute the token vault wants left), so the vault renews them on every request.
mock = subprocess.Popen([sys.executable, "-m", "oidc_provider_mock", "--port", str(MOCK_PORT), "--require-registration", "--require-nonce",
                         "--token-max-age", "50"],
                        stdout=mock_log, stderr=subprocess.STDOUT)
apple = AppleStandIn(APPLE_PORT)


def wait_for(url, what):
    for _ in range(150):
        try:
            if requests.get(url, timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise SystemExit(f"{what} did not start ({url})")


def stop():
    for process in (server, mock):
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
    apple.server.shutdown()


try:
    wait_for(f"{BASE}/healthz", "hearth")
    wait_for(f"{MOCK_BASE}/.well-known/openid-configuration", "oidc-provider-mock")
    # A production project hands results only to registered apps: a desktop app on a loopback redirect.
    subprocess.run([HEARTH, "apps", "add-desktop", "--data-dir", data_dir, "--id", APP_ID], check=True, capture_output=True, timeout=60)
    sa_path = os.path.join(work, "admin.json")
    subprocess.run([HEARTH, "service-accounts", "create", "--data-dir", data_dir, "--email", f"admin@{PROJECT}.iam.gserviceaccount.com",
                    "--project-id", PROJECT, "--out", sa_path], check=True, capture_output=True, timeout=60)
    with open(sa_path) as handle:
        sa_info = json.load(handle)
    sa_info["token_uri"] = f"{BASE}/oauth2.googleapis.com/token"
    admin_credentials = service_account.Credentials.from_service_account_info(sa_info, scopes=["https://www.googleapis.com/auth/cloud-platform"])
    admin_credentials.refresh(Request())
except BaseException:
    stop()
    raise
ADMIN_HEADERS = {"Authorization": f"Bearer {admin_credentials.token}"}
print(f"stand-ins: Apple at {APPLE_BASE}, oidc-provider-mock at {MOCK_BASE}; hearth at {BASE} (project {PROJECT})")


def rpc(method, body, version="v1"):
    response = requests.post(f"{V1 if version == 'v1' else V2}/accounts:{method}?key={API_KEY}", json=body, timeout=20)
    try:
        return response.status_code, response.json()
    except ValueError:
        return response.status_code, {"raw": response.text}


def error_message(body):
    return (body.get("error") or {}).get("message", "") if isinstance(body, dict) else ""


def configure(idp_id, body, update_mask=None):
    if update_mask is None:
        response = requests.post(f"{ADMIN}?idpId={idp_id}", json=body, headers=ADMIN_HEADERS, timeout=20)
    else:
        response = requests.patch(f"{ADMIN}/{idp_id}?updateMask={update_mask}", json=body, headers=ADMIN_HEADERS, timeout=20)
    assert response.status_code == 200, (response.status_code, response.text)
    return response.json()


def handler_start(provider_id):
    """The auth handler URL an app opens (as Firebase's web SDK builds it), and the raw session id."""
    raw_session = uuid.uuid4().hex[:20].upper()
    params = {"apiKey": API_KEY, "appId": APP_ID, "authType": "signInWithRedirect", "providerId": provider_id,
              "sessionId": hashlib.sha256(raw_session.encode()).hexdigest(), "eventId": uuid.uuid4().hex[:10],
              "redirectUrl": APP_REDIRECT, "v": "apple-google-e2e"}
    return f"{HANDLER}?{urlencode(params)}", raw_session


def open_handler(provider_id, authorize_endpoint):
    """Opens the auth handler as the app's browser; returns the browser, the raw session id, the provider's
    authorization URL it redirects to (which must start with `authorize_endpoint`) and that URL's query."""
    url, raw_session = handler_start(provider_id)
    browser = requests.Session()
    start = browser.get(url, allow_redirects=False, timeout=20)
    assert start.status_code == 302, (start.status_code, start.text[:300])
    authorize = start.headers["Location"]
    assert authorize.startswith(authorize_endpoint + "?"), authorize
    query = parse_qs(urlparse(authorize).query)
    assert query["redirect_uri"] == [HANDLER] and query["nonce"][0] and query["state"][0], query
    return browser, raw_session, authorize, query


def link_of(app_url):
    """The `link` (signInWithIdp's requestUri) or `firebaseError` of the redirect to the app."""
    query = parse_qs(urlparse(app_url).query)
    return (query.get("link") or [None])[0], (query.get("firebaseError") or [None])[0]


def verify_firebase_token(token):
    return google_id_token.verify_token(token, google_requests.Request(), audience=PROJECT, certs_url=CERTS)


def sign_in_with_idp(link, raw_session):
    return rpc("signInWithIdp", {"requestUri": link, "sessionId": raw_session, "returnSecureToken": True, "returnIdpCredential": True})


def native_sign_in(post_body):
    return rpc("signInWithIdp", {"requestUri": "http://localhost", "postBody": urlencode(post_body), "returnSecureToken": True,
                                 "returnIdpCredential": True})


def lookup(id_token):
    status, body = rpc("lookup", {"idToken": id_token})
    assert status == 200, body
    return body["users"][0]


state = {}

# --- Google through oidc-provider-mock ----------------------------------------------------------------------------

NATIVE_REDIRECT = "http://127.0.0.1:65001/native"


def register_mock_client():
    response = requests.post(f"{MOCK_BASE}/oauth2/clients", json={"redirect_uris": [HANDLER, NATIVE_REDIRECT]}, timeout=10)
    assert response.status_code == 201, response.text
    body = response.json()
    return body["client_id"], body["client_secret"]


def mock_user(sub, email, name, verified=True):
    response = requests.put(f"{MOCK_BASE}/users/{sub}", json={"email": email, "email_verified": verified, "name": name}, timeout=10)
    assert response.status_code == 204, response.text


def mock_native_id_token(client_id, secret, sub, nonce):
    """An ID token the mock issues to an app of its own (the app's code flow, done here by hand)."""
    browser = requests.Session()
    authorize = f"{MOCK_BASE}/oauth2/authorize?" + urlencode({"client_id": client_id, "redirect_uri": NATIVE_REDIRECT, "response_type": "code",
                                                              "scope": "openid email profile", "state": "s", "nonce": nonce})
    answer = browser.post(authorize, data={"sub": sub}, allow_redirects=False, timeout=10)
    assert answer.status_code == 302, answer.text[:300]
    code = parse_qs(urlparse(answer.headers["Location"]).query)["code"][0]
    tokens = requests.post(f"{MOCK_BASE}/oauth2/token", data={"grant_type": "authorization_code", "code": code, "redirect_uri": NATIVE_REDIRECT},
                           auth=(client_id, secret), timeout=10)
    assert tokens.status_code == 200, tokens.text
    return tokens.json()["id_token"]


@check("google.com with endpointBase = oidc-provider-mock, configured through the admin API (defaultSupportedIdpConfigs)")
def _():
    client_id, secret = register_mock_client()
    state["google"] = (client_id, secret)
    created = configure("google.com", {"enabled": True, "clientId": client_id, "clientSecret": secret, "endpointBase": MOCK_BASE})
    assert created["name"].endswith("/defaultSupportedIdpConfigs/google.com") and created["enabled"], created
    assert "clientSecret" not in created and secret not in json.dumps(created), created
    status, body = rpc("createAuthUri", {"providerId": "google.com", "continueUri": APP_REDIRECT, "appId": APP_ID})
    assert status == 200 and body["authUri"] == HANDLER and body["providerId"] == "google.com", body


@check("Google web flow: handler → the mock's authorize (from its discovery) → callback → signInWithIdp, a Firebase answer")
def _():
    sub, email = f"g-{uuid.uuid4().hex[:8]}", f"grace-{uuid.uuid4().hex[:6]}@example.com"
    mock_user(sub, email, "Grace Hopper")
    # The endpoint the mock's discovery document names, not Google's fixed path under the base.
    browser, raw_session, authorize, _ = open_handler("google.com", f"{MOCK_BASE}/oauth2/authorize")
    form = browser.get(authorize, timeout=10)
    assert form.status_code == 200 and 'name="sub"' in form.text, form.text[:300]
    submitted = browser.post(authorize, data={"sub": sub}, allow_redirects=False, timeout=10)
    assert submitted.status_code == 302 and submitted.headers["Location"].startswith(HANDLER), (submitted.status_code, submitted.text[:300])
    delivered = browser.get(submitted.headers["Location"], allow_redirects=False, timeout=20)
    assert delivered.status_code == 302 and delivered.headers["Location"].startswith(APP_REDIRECT), (delivered.status_code, delivered.text[:500])
    link, firebase_error = link_of(delivered.headers["Location"])
    assert link and not firebase_error, delivered.headers["Location"]
    status, body = sign_in_with_idp(link, raw_session)
    assert status == 200, body
    assert body["providerId"] == "google.com" and body["federatedId"] == sub and body["email"] == email, body
    assert body.get("emailVerified") is True and body.get("displayName") == "Grace Hopper" and body.get("isNewUser") is True, body
    assert body.get("oauthIdToken"), body
    claims = verify_firebase_token(body["idToken"])
    assert claims["user_id"] == body["localId"] and claims["email"] == email, claims
    assert claims["firebase"]["sign_in_provider"] == "google.com", claims
    assert claims["firebase"]["identities"]["google.com"] == [sub], claims
    user = lookup(body["idToken"])
    assert [(p["providerId"], p.get("rawId")) for p in user["providerUserInfo"]] == [("google.com", sub)], user
    state["google_user"] = (sub, email, body["localId"])
    state["google_session"] = (body["idToken"], body["oauthAccessToken"])
    # The sign-in's state is single use.
    status, replay = sign_in_with_idp(link, raw_session)
    assert status == 400, replay


def provider_access_token(id_token, provider_id):
    response = requests.post(f"{BASE}/hearth/v1/providerAccessToken?key={API_KEY}", json={"providerId": provider_id},
                             headers={"Authorization": f"Bearer {id_token}"}, timeout=20)
    return response.status_code, response.json()


@check("Google token vault: Hearth renews the mock's access token with the refresh token (client authentication the mock accepts)")
def _():
    id_token, first_access = state["google_session"]
    status, body = provider_access_token(id_token, "google.com")
    assert status == 200 and body["providerId"] == "google.com", body
    assert body["accessToken"] != first_access, "the kept token was handed out although it expires within a minute"
    userinfo = requests.get(f"{MOCK_BASE}/userinfo", headers={"Authorization": f"Bearer {body['accessToken']}"}, timeout=10)
    assert userinfo.status_code == 200 and userinfo.json()["sub"] == state["google_user"][0], userinfo.text


@check("Google native ID token issued by the mock (keys from its discovered JWKS, SHA-256 nonce) signs the same user in; a replay is refused")
def _():
    client_id, secret = state["google"]
    sub, email, local_id = state["google_user"]
    raw_nonce = secrets.token_urlsafe(16)
    token = mock_native_id_token(client_id, secret, sub, hashlib.sha256(raw_nonce.encode()).hexdigest())
    post_body = {"id_token": token, "access_token": "ignored", "providerId": "google.com", "nonce": raw_nonce}
    status, body = native_sign_in(post_body)
    assert status == 200 and body["localId"] == local_id and body["providerId"] == "google.com", body
    assert verify_firebase_token(body["idToken"])["firebase"]["sign_in_provider"] == "google.com"
    status, body = native_sign_in(post_body)
    assert status == 400, body


@check("Google native ID tokens from elsewhere are refused: another key, another client's, another issuer, a wrong nonce")
def _():
    client_id, secret = state["google"]
    sub, email, _ = state["google_user"]
    mock_kid = requests.get(f"{MOCK_BASE}/jwks", timeout=10).json()["keys"][0].get("kid")
    forger = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    now = int(time.time())
    claims = {"iss": MOCK_BASE, "aud": client_id, "sub": sub, "email": email, "email_verified": True, "iat": now, "exp": now + 600}
    headers = {"kid": mock_kid} if mock_kid else {}
    forged = jwt.encode(claims, forger, algorithm="RS256", headers=headers)
    status, body = native_sign_in({"id_token": forged, "providerId": "google.com"})
    assert status == 400 and "INVALID_IDP_RESPONSE" in error_message(body), body
    forged_google = jwt.encode(dict(claims, iss="https://accounts.google.com"), forger, algorithm="RS256", headers=headers)
    status, body = native_sign_in({"id_token": forged_google, "providerId": "google.com"})
    assert status == 400, body
    # A genuine token of the mock, but issued to another client.
    other_id, other_secret = register_mock_client()
    raw_nonce = secrets.token_urlsafe(16)
    foreign = mock_native_id_token(other_id, other_secret, sub, hashlib.sha256(raw_nonce.encode()).hexdigest())
    status, body = native_sign_in({"id_token": foreign, "providerId": "google.com", "nonce": raw_nonce})
    assert status == 400 and "INVALID_IDP_RESPONSE" in error_message(body), body
    # A genuine token for Hearth's client whose nonce is not the SHA-256 of the raw nonce sent.
    token = mock_native_id_token(client_id, secret, sub, hashlib.sha256(b"another nonce").hexdigest())
    status, body = native_sign_in({"id_token": token, "providerId": "google.com", "nonce": raw_nonce})
    assert status == 400, body


# --- Apple through the stand-in -------------------------------------------------------------------------------------

APPLE_KEY = ec.generate_private_key(ec.SECP256R1())      # the .p8 registered at the stand-in and uploaded to Hearth
WRONG_KEY = ec.generate_private_key(ec.SECP256R1())      # a .p8 the stand-in does not know
apple.register_client(SERVICES_ID, TEAM_ID, KEY_ID, APPLE_KEY)
apple.register_client(BUNDLE_ID, TEAM_ID, KEY_ID, APPLE_KEY)


def apple_config(private_key):
    return {"enabled": True, "clientId": SERVICES_ID, "endpointBase": APPLE_BASE,
            "appleSignInConfig": {"bundleIds": [BUNDLE_ID],
                                  "codeFlowConfig": {"teamId": TEAM_ID, "keyId": KEY_ID, "privateKey": p8(private_key)}}}


def apple_web_sign_in(email, first="", last="", private=False, account=None):
    """The browser's part: handler → Apple's authorize → the login → Apple's form_post page, POSTed to Hearth."""
    browser, raw_session, authorize, query = open_handler("apple.com", f"{APPLE_BASE}/auth/authorize")
    assert query["response_mode"] == ["form_post"] and query["client_id"] == [SERVICES_ID], query
    form = browser.get(authorize, timeout=10)
    assert form.status_code == 200, form.text
    request_id = re.search(r'name="request_id" value="([^"]+)"', form.text).group(1)
    fields = {"request_id": request_id, "email": email, "first_name": first, "last_name": last, "account": account or email}
    if private:
        fields["private"] = "true"
    page = browser.post(f"{APPLE_BASE}/auth/authorize", data=fields, timeout=10)
    assert page.status_code == 200, page.text
    action = html.unescape(re.search(r'<form method="post" action="([^"]+)"', page.text).group(1))
    posted = {name: html.unescape(value) for name, value in re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', page.text)}
    assert action == HANDLER, action
    # Apple's page POSTs cross-site to the redirect URI (no cookie comes along).
    delivered = requests.post(action, data=posted, allow_redirects=False, timeout=20)
    assert delivered.status_code == 302, (delivered.status_code, delivered.text[:500])
    link, firebase_error = link_of(delivered.headers["Location"])
    return link, firebase_error, raw_session, posted


@check("apple.com configured through the admin API (appleSignInConfig with bundleIds and codeFlowConfig, endpointBase = the stand-in)")
def _():
    created = configure("apple.com", apple_config(WRONG_KEY))
    assert created["enabled"] and created["appleSignInConfig"]["bundleIds"] == [BUNDLE_ID], created
    flow = created["appleSignInConfig"].get("codeFlowConfig", {})
    assert flow.get("teamId") == TEAM_ID and flow.get("keyId") == KEY_ID and "privateKey" not in flow, created
    assert "PRIVATE KEY" not in json.dumps(created), created


@check("Apple web flow with a .p8 the stand-in does not know: the stand-in answers invalid_client and the sign-in is refused")
def _():
    refused = len(apple.refusals)
    link, firebase_error, raw_session, _ = apple_web_sign_in(f"wrongkey-{uuid.uuid4().hex[:6]}@example.com", "Wrong", "Key")
    assert link and not firebase_error, (link, firebase_error)
    status, body = sign_in_with_idp(link, raw_session)
    assert status == 400, body
    assert len(apple.refusals) > refused and "does not verify" in apple.refusals[-1], apple.refusals


@check("Apple web flow (form_post) with the right key: Hearth's minted client secret passes the stand-in's checks; the name from `user` is kept")
def _():
    configure("apple.com", {"appleSignInConfig": {"codeFlowConfig": {"teamId": TEAM_ID, "keyId": KEY_ID, "privateKey": p8(APPLE_KEY)}}},
              update_mask="appleSignInConfig.codeFlowConfig")
    email = f"ada-{uuid.uuid4().hex[:6]}@example.com"
    accepted = len(apple.accepted_secrets)
    link, firebase_error, raw_session, posted = apple_web_sign_in(email, "Ada", "Lovelace")
    assert "user" in posted and json.loads(posted["user"])["name"]["firstName"] == "Ada", posted
    assert link and not firebase_error, firebase_error
    status, body = sign_in_with_idp(link, raw_session)
    assert status == 200, body
    assert body["providerId"] == "apple.com" and body["email"] == email and body["federatedId"] == apple.subject(email), body
    assert body.get("displayName") == "Ada Lovelace" and body.get("isNewUser") is True, body
    assert body.get("firstName") == "Ada" and body.get("lastName") == "Lovelace", body
    claims = verify_firebase_token(body["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "apple.com" and claims["email"] == email, claims
    header, secret_claims = apple.accepted_secrets[accepted]
    assert header["kid"] == KEY_ID and secret_claims["iss"] == TEAM_ID and secret_claims["sub"] == SERVICES_ID, secret_claims
    assert secret_claims["aud"] == APPLE_BASE and secret_claims["exp"] - secret_claims["iat"] <= SIX_MONTHS, secret_claims
    state["apple_user"] = (email, body["localId"], body["idToken"])
    state["apple_access"] = body.get("oauthAccessToken")


@check("Apple token vault: Hearth renews the access token at /auth/token with the refresh token and a minted client secret")
def _():
    _, _, id_token = state["apple_user"]
    grants, accepted = apple.refresh_grants, len(apple.accepted_secrets)
    status, body = provider_access_token(id_token, "apple.com")
    assert status == 200 and body["providerId"] == "apple.com", body
    assert apple.refresh_grants == grants + 1 and len(apple.accepted_secrets) > accepted, (apple.refresh_grants, apple.refusals)
    assert body["accessToken"] != state["apple_access"] and apple.issued.get(body["accessToken"]) == SERVICES_ID, body


@check("Apple web flow again for the same person: no `user` field this time, the account keeps its name")
def _():
    email, local_id, _ = state["apple_user"]
    link, firebase_error, raw_session, posted = apple_web_sign_in(email)
    assert "user" not in posted, posted
    status, body = sign_in_with_idp(link, raw_session)
    assert status == 200 and body["localId"] == local_id and not body.get("isNewUser"), body
    assert lookup(body["idToken"]).get("displayName") == "Ada Lovelace"
    state["apple_user"] = (email, local_id, body["idToken"])


@check("Apple form_post with a forged state is refused (no redirect to the app)")
def _():
    answer = requests.post(HANDLER, data={"code": apple.issue_code(SERVICES_ID, "x", "x@example.com"), "state": secrets.token_urlsafe(24)},
                           allow_redirects=False, timeout=20)
    assert answer.status_code == 400 and "Location" not in answer.headers, (answer.status_code, answer.headers)


@check("Apple native ID token (aud the bundle id, nonce = SHA-256 of the raw nonce) signs in; a wrong or missing nonce is refused")
def _():
    email = f"native-{uuid.uuid4().hex[:6]}@example.com"
    sub = apple.subject(email)
    raw_nonce = secrets.token_urlsafe(16)
    good = apple.id_token(BUNDLE_ID, sub, email, False, hashlib.sha256(raw_nonce.encode()).hexdigest())
    wrong = apple.id_token(BUNDLE_ID, sub, email, False, hashlib.sha256(b"not the raw nonce").hexdigest())
    status, body = native_sign_in({"id_token": wrong, "nonce": raw_nonce, "providerId": "apple.com"})
    assert status == 400 and "MISSING_OR_INVALID_NONCE" in error_message(body), body
    status, body = native_sign_in({"id_token": good, "providerId": "apple.com"})
    assert status == 400 and "MISSING_OR_INVALID_NONCE" in error_message(body), body
    raw_in_token = apple.id_token(BUNDLE_ID, sub, email, False, raw_nonce)
    status, body = native_sign_in({"id_token": raw_in_token, "nonce": raw_nonce, "providerId": "apple.com"})
    assert status == 400, body
    status, body = native_sign_in({"id_token": good, "nonce": raw_nonce, "providerId": "apple.com"})
    assert status == 200 and body["providerId"] == "apple.com" and body["federatedId"] == sub and body["email"] == email, body
    assert body.get("emailVerified") is True, body
    assert verify_firebase_token(body["idToken"])["firebase"]["sign_in_provider"] == "apple.com"
    # Replayed, another key, another audience: refused.
    status, replay = native_sign_in({"id_token": good, "nonce": raw_nonce, "providerId": "apple.com"})
    assert status == 400, replay
    other_nonce = secrets.token_urlsafe(16)
    hashed = hashlib.sha256(other_nonce.encode()).hexdigest()
    for token in (apple.id_token(BUNDLE_ID, sub, email, False, hashed, key=rsa.generate_private_key(public_exponent=65537, key_size=2048)),
                  apple.id_token("com.someone.else", sub, email, False, hashed),
                  apple.id_token(BUNDLE_ID, sub, email, False, hashed, iss="https://appleid.apple.com")):
        status, body = native_sign_in({"id_token": token, "nonce": other_nonce, "providerId": "apple.com"})
        assert status == 400, body


@check("A private-relay address (…@privaterelay.appleid.com) never links to the account that holds it")
def _():
    relay = f"{uuid.uuid4().hex[:10]}@privaterelay.appleid.com"
    status, existing = rpc("signUp", {"email": relay, "password": "correct horse battery", "returnSecureToken": True})
    assert status == 200, existing
    link, firebase_error, raw_session, _ = apple_web_sign_in(relay, "Relay", "Person", private=True,
                                                             account=f"relay-owner-{uuid.uuid4().hex[:6]}")
    status, body = sign_in_with_idp(link, raw_session)
    assert status == 200, body
    assert body["localId"] != existing["localId"] and not body.get("needConfirmation"), body
    assert body.get("isNewUser") is True and body["providerId"] == "apple.com", body
    held = lookup(existing["idToken"])
    assert [p["providerId"] for p in held["providerUserInfo"]] == ["password"], held
    # Natively too.
    raw_nonce = secrets.token_urlsafe(16)
    token = apple.id_token(BUNDLE_ID, apple.subject("native-" + relay), relay, True, hashlib.sha256(raw_nonce.encode()).hexdigest())
    status, body = native_sign_in({"id_token": token, "nonce": raw_nonce, "providerId": "apple.com"})
    assert status == 200 and body["localId"] != existing["localId"] and not body.get("needConfirmation"), body
    assert [p["providerId"] for p in lookup(existing["idToken"])["providerUserInfo"]] == ["password"]


@check("accounts:revokeToken with a fresh Apple authorization code: Hearth exchanges it and the stand-in records the revocation")
def _():
    email, local_id, id_token = state["apple_user"]
    sub = apple.subject(email)
    for token_type in ("CODE", "3"):
        # The native SDK's authorization code belongs to the app: Apple exchanges it only for client_id = the
        # app's bundle id, with a client secret whose sub is that bundle id.
        revoked = len(apple.revoked)
        code = apple.issue_code(BUNDLE_ID, sub, email)
        status, body = rpc("revokeToken", {"providerId": "apple.com", "tokenType": token_type, "token": code, "idToken": id_token},
                           version="v2")
        if status != 200:
            services_code = apple.issue_code(SERVICES_ID, sub, email)
            as_services, _ = rpc("revokeToken", {"providerId": "apple.com", "tokenType": token_type, "token": services_code,
                                                 "idToken": id_token}, version="v2")
            assert as_services != 200, "Hearth exchanges the app's code as the services id; Apple wants the bundle id"
        assert status == 200, body
        assert code not in apple.codes, "the code was not exchanged"
        assert len(apple.revoked) > revoked and apple.revoked[-1][2:] == (BUNDLE_ID, True), apple.revoked
    # A code of another Apple account: not this user's grant, refused.
    stranger = apple.issue_code(BUNDLE_ID, apple.subject("stranger@example.com"), "stranger@example.com")
    status, body = rpc("revokeToken", {"providerId": "apple.com", "tokenType": "CODE", "token": stranger, "idToken": id_token}, version="v2")
    assert status == 400, body


@check("Deleting the Apple user revokes the Apple refresh token kept in the token vault")
def _():
    email, local_id, id_token = state["apple_user"]
    sub = apple.subject(email)
    held = [token for token, entry in apple.refresh_tokens.items() if entry["sub"] == sub and entry["client_id"] == SERVICES_ID]
    assert held, "the stand-in issued no refresh token to the web flow"
    status, body = rpc("delete", {"idToken": id_token})
    assert status == 200, body
    for _ in range(50):
        if any(token in held and own for token, _, _, own in apple.revoked):
            break
        time.sleep(0.1)
    assert any(token in held and own for token, _, _, own in apple.revoked), apple.revoked


if apple.refusals:
    print(f"note: the Apple stand-in refused client secrets: {sorted(set(apple.refusals))}")
stop()
server_log.close()


@check("No .p8, client secret or refresh token reached the server log")
def _():
    with open(os.path.join(work, "server.log")) as handle:
        log = handle.read()
    assert "PRIVATE KEY" not in log and p8(APPLE_KEY).splitlines()[1] not in log, "the .p8 is in the log"
    assert not any(token in log for token in apple.refresh_tokens), "a refresh token is in the log"
    assert not any(token in log for token in apple.issued), "an Apple token is in the log"


finish("apple-google stand-ins")
