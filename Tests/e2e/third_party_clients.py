"""Hearth checked by clients nobody here wrote: Google's google-auth verifier and the Firebase Admin SDK.

Usage: third_party_clients.py BASE_URL PROJECT_ID HEARTH_BINARY DATA_DIR
Prints one line per check and a closing 'e2e: N passed, N failed' line; exits non-zero on any failure.
"""
import json
import os
import subprocess
import sys
import tempfile
import uuid

import requests
from google.auth import exceptions as google_exceptions
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token
from checks import check, finish, record_failure  # noqa: F401 - the shared runner

BASE, PROJECT, HEARTH, DATA_DIR = sys.argv[1:5]
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
KEY = "any-key"


def post(method, body):
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:{method}?key={KEY}", json=body, timeout=10)
    return response.status_code, response.json()


def sign_up():
    status, body = post("signUp", {"email": f"py-{uuid.uuid4().hex[:8]}@example.com", "password": "correct horse", "returnSecureToken": True})
    assert status == 200, body
    return body


@check("google-auth verifies a Hearth ID token against the x509 map")
def _():
    body = sign_up()
    claims = id_token.verify_token(body["idToken"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    assert claims["sub"] == body["localId"], claims
    assert claims["iss"] == f"https://securetoken.google.com/{PROJECT}", claims
    assert claims["firebase"]["sign_in_provider"] == "password", claims


@check("google-auth rejects the token for another audience")
def _():
    body = sign_up()
    try:
        id_token.verify_token(body["idToken"], google_requests.Request(), audience="someone-elses-project", certs_url=CERTS)
    except (ValueError, google_exceptions.GoogleAuthError):
        return
    raise AssertionError("a token for another audience was accepted")


@check("google-auth rejects a tampered token")
def _():
    body = sign_up()
    header, payload, signature = body["idToken"].split(".")
    import base64
    padded = payload + "=" * (-len(payload) % 4)
    claims = json.loads(base64.urlsafe_b64decode(padded))
    claims["sub"] = "admin"
    forged = base64.urlsafe_b64encode(json.dumps(claims).encode()).decode().rstrip("=")
    try:
        id_token.verify_token(f"{header}.{forged}.{signature}", google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    except (ValueError, google_exceptions.GoogleAuthError):
        return
    raise AssertionError("a tampered token was accepted")


@check("a refreshed ID token still verifies and keeps auth_time")
def _():
    body = sign_up()
    response = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key={KEY}",
                             data={"grant_type": "refresh_token", "refresh_token": body["refreshToken"]}, timeout=10)
    assert response.status_code == 200, response.text
    refreshed = response.json()
    claims = id_token.verify_token(refreshed["access_token"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    original = id_token.verify_token(body["idToken"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    assert claims["auth_time"] == original["auth_time"], (claims, original)


@check("firebase-admin custom token signs in (service account made by `hearth service-accounts create`)")
def _():
    import firebase_admin
    from firebase_admin import auth, credentials
    os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    path = os.path.join(tempfile.mkdtemp(), "service-account.json")
    subprocess.run([HEARTH, "service-accounts", "create", "--data-dir", DATA_DIR, "--project-id", PROJECT,
                    "--email", f"e2e-admin@{PROJECT}.iam.gserviceaccount.com", "--out", path], check=True, capture_output=True)
    assert oct(os.stat(path).st_mode & 0o777) == "0o600", "the key file must be private"
    app = firebase_admin.initialize_app(credentials.Certificate(path), {"projectId": PROJECT}, name=uuid.uuid4().hex)
    token = auth.create_custom_token("py-admin-user", {"role": "editor"}, app=app)
    status, body = post("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True})
    assert status == 200, body
    claims = id_token.verify_token(body["idToken"], google_requests.Request(), audience=PROJECT, certs_url=CERTS)
    assert claims["sub"] == "py-admin-user", claims
    assert claims["role"] == "editor", claims
    assert claims["firebase"]["sign_in_provider"] == "custom", claims


@check("hearth serve --dev: the browser flow through /__dev/try signs in with the dev Microsoft and Yahoo providers")
def _():
    import re
    for provider, email in (("microsoft.com", "e2e@outlook.com"), ("yahoo.com", "e2e@yahoo.com")):
        browser = requests.Session()
        form = browser.get(f"{BASE}/__dev/try?provider={provider}", timeout=10)
        assert form.status_code == 200, form.text[:300]
        request_id = re.search(r'name="request_id" value="([^"]+)"', form.text).group(1)
        action = re.search(r'action="([^"]+)"', form.text).group(1)
        done = browser.post(BASE + action, data={"request_id": request_id, "email": email, "name": "E2E User", "action": "login"}, timeout=10)
        assert done.status_code == 200, done.text[:500]
        assert f"Signed in with {provider}" in done.text and email in done.text, done.text[:500]


@check("hearth signin microsoft.com (client SDK, loopback listener) completes when a browser follows the printed URL; whoami and signout")
def _():
    import re
    from cli_signin import start_signin
    config_home = tempfile.mkdtemp()
    cli, url, env = start_signin(HEARTH, config_home, "microsoft.com", "--server", BASE, "--param", "tenant=organizations", "--scope", "mail.read")
    browser = requests.Session()
    form = browser.get(url, timeout=10)
    request_id = re.search(r'name="request_id" value="([^"]+)"', form.text).group(1)
    action = re.search(r'action="([^"]+)"', form.text).group(1)
    final = browser.post(BASE + action, data={"request_id": request_id, "email": "cli@contoso.com", "name": "Cli User", "action": "login"}, timeout=10)
    assert "Signed in with microsoft.com" in final.text and "cli@contoso.com" in final.text, final.text[:300]
    out, err = cli.communicate(timeout=30)
    assert cli.returncode == 0, (out, err)
    assert "Signed in as" in out and "microsoft.com" in out and "cli@contoso.com" in out, out
    assert "--show-tokens" in out and "eyJ" in out and out.count("eyJ") == 1, "tokens must be masked"
    uid = re.search(r"Signed in as (\S+)", out).group(1)
    stored = os.path.join(config_home, "hearth", "auth")
    files = os.listdir(stored)
    assert files and all(oct(os.stat(os.path.join(stored, f)).st_mode & 0o777) == "0o600" for f in files), files
    whoami = subprocess.run([HEARTH, "whoami", "--server", BASE], capture_output=True, text=True, env=env, timeout=30)
    assert whoami.returncode == 0 and uid in whoami.stdout, whoami
    signout = subprocess.run([HEARTH, "signout", "--server", BASE], capture_output=True, text=True, env=env, timeout=30)
    assert signout.returncode == 0 and uid in signout.stdout, signout
    again = subprocess.run([HEARTH, "whoami", "--server", BASE], capture_output=True, text=True, env=env, timeout=30)
    assert "Not signed in" in again.stdout, again


@check("hearth providers enable/list never prints the client secret")
def _():
    secret = "s3cret-" + uuid.uuid4().hex
    enable = subprocess.run([HEARTH, "providers", "enable", "oidc.e2e", "--data-dir", DATA_DIR, "--issuer", "https://id.example.com",
                             "--client-id", "e2e-client"], capture_output=True, text=True, env=dict(os.environ, HEARTH_CLIENT_SECRET=secret), timeout=30)
    assert enable.returncode == 0, enable
    listing = subprocess.run([HEARTH, "providers", "list", "--data-dir", DATA_DIR], capture_output=True, text=True, timeout=30)
    assert "oidc.e2e" in listing.stdout and secret not in listing.stdout + listing.stderr + enable.stdout + enable.stderr, listing
    bad = subprocess.run([HEARTH, "providers", "enable", "facebook.com", "--data-dir", DATA_DIR, "--client-id", "x", "--client-secret", "y"],
                         capture_output=True, text=True, timeout=30)
    assert bad.returncode != 0 and "not supported" in bad.stderr, bad


def jwt_email(token):
    import base64
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))["email"]


@check("hearth project switches email enumeration protection on a running server")
def _():
    body = sign_up()
    email = jwt_email(body["idToken"])
    on = subprocess.run([HEARTH, "project", "--data-dir", DATA_DIR, "--email-enumeration-protection", "on"], capture_output=True, text=True, timeout=30)
    assert on.returncode == 0 and "email enumeration protection   on" in on.stdout, on
    try:
        status, hidden = post("createAuthUri", {"identifier": email, "continueUri": "http://localhost"})
        assert status == 200 and set(hidden) == {"kind", "sessionId"}, hidden
    finally:
        subprocess.run([HEARTH, "project", "--data-dir", DATA_DIR, "--email-enumeration-protection", "off"], capture_output=True, timeout=30)
    status, shown = post("createAuthUri", {"identifier": email, "continueUri": "http://localhost"})
    assert status == 200 and shown.get("signinMethods") == ["password"], shown


finish("e2e")
