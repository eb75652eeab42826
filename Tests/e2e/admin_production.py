"""Production-mode administration: a service account from `hearth service-accounts create`, Google's own
clients (google-auth fetches an access token from Hearth's /oauth2.googleapis.com/token with the JWT-bearer grant;
google-api-python-client drives the bundled identitytoolkit v1/v2 discovery documents), and the refusals.

Usage: admin_production.py HEARTH_BINARY PORT
Starts its own `hearth serve --dev` for the non-demo project hearth-e2e (so the emulator credential is refused),
enables microsoft.com through defaultSupportedIdpConfigs, and signs in through it.
Prints one line per check and 'admin-production: N passed, N failed'; exits non-zero on any failure.
"""
import hashlib
import json
import os
import re
import sqlite3
import subprocess
import sys
import tempfile
import time
import uuid

import requests
from google.auth import exceptions as google_exceptions
from google.auth.transport.requests import Request
from google.oauth2 import service_account
from googleapiclient.discovery import build
from googleapiclient.errors import HttpError
from checks import check, finish, record_failure  # noqa: F401 - the shared runner

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "hearth-e2e"
API_KEY = "e2e-key"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
work = tempfile.mkdtemp()
data_dir = os.path.join(work, "data")
server = subprocess.Popen([HEARTH, "serve", "--dev", "--project-id", PROJECT, "--api-key", API_KEY, "--port", PORT, "--data-dir", data_dir],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def wait_for_server():
    for _ in range(100):
        try:
            if requests.get(f"{BASE}/healthz", timeout=1).status_code == 200:
                return
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise SystemExit("server did not start")


def service_account_file(email):
    path = os.path.join(work, f"{uuid.uuid4().hex}.json")
    made = subprocess.run([HEARTH, "service-accounts", "create", "--data-dir", data_dir, "--email", email, "--project-id", PROJECT,
                           "--out", path], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made
    with open(path) as handle:
        info = json.load(handle)
    token_uri = f"{BASE}/oauth2.googleapis.com/token"
    if info.get("token_uri") != token_uri:
        # `service-accounts create` writes token_uri from the public URL (issue 7); older builds wrote a placeholder.
        info["token_uri"] = token_uri
        with open(path, "w") as handle:
            json.dump(info, handle)
    return path, info


def clients(path):
    credentials = service_account.Credentials.from_service_account_file(path, scopes=SCOPES)
    options = {"api_endpoint": f"{BASE}/identitytoolkit.googleapis.com/"}
    v1 = build("identitytoolkit", "v1", credentials=credentials, static_discovery=True, client_options=options, cache_discovery=False)
    v2 = build("identitytoolkit", "v2", credentials=credentials, static_discovery=True, client_options=options, cache_discovery=False)
    return credentials, v1, v2


def sign_in_with_microsoft(email):
    """The browser's part of a redirect sign-in through Hearth's auth handler and the dev Microsoft provider."""
    browser = requests.Session()
    raw_session = uuid.uuid4().hex[:10].upper()
    params = {"apiKey": API_KEY, "appId": "e2e-desktop", "authType": "signInWithRedirect", "providerId": "microsoft.com",
              "sessionId": hashlib.sha256(raw_session.encode()).hexdigest(), "eventId": uuid.uuid4().hex[:10],
              "redirectUrl": f"{BASE}/__dev/try/done?s={raw_session}&p=microsoft.com"}
    form = browser.get(f"{BASE}/__/auth/handler", params=params, timeout=10)
    match = re.search(r'name="request_id" value="([^"]+)"', form.text)
    if not match:
        return form.status_code, form.text
    action = re.search(r'action="([^"]+)"', form.text).group(1)
    done = browser.post(BASE + action, data={"request_id": match.group(1), "email": email, "name": "Prod User", "action": "login"}, timeout=10)
    return done.status_code, done.text


wait_for_server()
# A production project accepts results only for registered apps: a desktop app on a loopback redirect.
subprocess.run([HEARTH, "apps", "add-desktop", "--data-dir", data_dir, "--id", "e2e-desktop"], check=True, capture_output=True, timeout=60)
ADMIN_EMAIL = f"admin@{PROJECT}.iam.gserviceaccount.com"
SA_PATH, SA_INFO = service_account_file(ADMIN_EMAIL)
state = {}


@check("google-auth fetches an access token from Hearth's token endpoint with the service-account file")
def _():
    credentials = service_account.Credentials.from_service_account_file(SA_PATH, scopes=SCOPES)
    credentials.refresh(Request())
    assert credentials.token and credentials.expiry, credentials
    state["token"] = credentials.token


@check("google-api-python-client (bundled v2 discovery): enable microsoft.com via defaultSupportedIdpConfigs, then sign in through it")
def _():
    _, _, v2 = clients(SA_PATH)
    name = f"projects/{PROJECT}/defaultSupportedIdpConfigs/microsoft.com"
    # --dev serves microsoft.com from memory (nothing stored); its client ID and secret are in the data dir's
    # dev-idp-clients.json, the values a person pastes when configuring the provider against the dev IdP.
    with open(os.path.join(data_dir, "dev-idp-clients.json")) as f:
        dev = json.load(f)["microsoft"]
    state["secret"] = dev["secret"]
    endpoint = f"{BASE}/__dev/microsoft"
    # A configured provider takes over from the dev fallback at once: with a wrong secret the sign-in is refused…
    created = v2.projects().defaultSupportedIdpConfigs().create(
        parent=f"projects/{PROJECT}", idpId="microsoft.com",
        body={"enabled": True, "clientId": dev["id"], "clientSecret": "not-the-secret",
              "endpointBase": endpoint, "graphBase": endpoint}).execute()
    assert created["name"] == name and created["enabled"] and "clientSecret" not in created, created
    status, text = sign_in_with_microsoft("before@contoso.com")
    assert "Signed in with microsoft.com" not in text, text[:300]
    # …and with the secret patched in, it works.
    v2.projects().defaultSupportedIdpConfigs().patch(
        name=name, updateMask="clientSecret", body={"clientSecret": dev["secret"]}).execute()
    listed = v2.projects().defaultSupportedIdpConfigs().list(parent=f"projects/{PROJECT}").execute()
    assert name in [c["name"] for c in listed["defaultSupportedIdpConfigs"]] and dev["secret"] not in json.dumps(listed), listed
    email = f"prod-{uuid.uuid4().hex[:6]}@contoso.com"
    status, text = sign_in_with_microsoft(email)
    assert status == 200 and "Signed in with microsoft.com" in text and email in text, text[:500]
    state["email"] = email


@check("google-api-python-client (bundled v1 discovery): lookup, update, batchGet, query, delete the signed-in user")
def _():
    _, v1, v2 = clients(SA_PATH)
    accounts = v1.projects().accounts()
    found = accounts.lookup(targetProjectId=PROJECT, body={"email": [state["email"]]}).execute()
    user = found["users"][0]
    assert [p["providerId"] for p in user["providerUserInfo"]] == ["microsoft.com"], user
    accounts.update(targetProjectId=PROJECT, body={"localId": user["localId"], "customAttributes": '{"role":"ops"}'}).execute()
    page = accounts.batchGet(targetProjectId=PROJECT, maxResults=100).execute()
    assert user["localId"] in [u["localId"] for u in page["users"]], page
    queried = accounts.query(targetProjectId=PROJECT, body={"expression": [{"email": state["email"]}]}).execute()
    assert queried["recordsCount"] == "1" and queried["userInfo"][0]["customAttributes"] == '{"role":"ops"}', queried
    config = v2.projects().getConfig(name=f"projects/{PROJECT}/config").execute()
    assert config["name"] == f"projects/{PROJECT}/config", config
    patched = v2.projects().updateConfig(name=f"projects/{PROJECT}/config", updateMask="signIn.allowDuplicateEmails",
                                         body={"signIn": {"allowDuplicateEmails": True}}).execute()
    assert patched["signIn"]["allowDuplicateEmails"] is True, patched
    accounts.delete(targetProjectId=PROJECT, body={"localId": user["localId"]}).execute()
    again = accounts.lookup(targetProjectId=PROJECT, body={"localId": [user["localId"]]}).execute()
    assert "users" not in again, again


@check("the audit log names the service account for each write, and holds no client secret")
def _():
    response = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/auditLog?pageSize=100",
                            headers={"Authorization": f"Bearer {state['token']}"}, timeout=10)
    assert response.status_code == 200, response.text
    entries = response.json()["entries"]
    actions = {e["action"] for e in entries}
    assert {"defaultSupportedIdpConfigs.create", "defaultSupportedIdpConfigs.update", "accounts.update", "accounts.delete"} <= actions, actions
    # API writes name the service account; the set-up done with the `hearth` command names its operator.
    api = [e for e in entries if not e["actor"].startswith("cli:")]
    assert api and all(e["actor"] == f"serviceAccount:{ADMIN_EMAIL}" for e in api), entries
    assert {"apps.create", "serviceAccountKeys.create"} <= {e["action"] for e in entries if e["actor"].startswith("cli:")}, entries
    # Field names may be listed (`detail`), values never: no secret, no claim value.
    assert state["secret"] not in response.text and "not-the-secret" not in response.text and "ops" not in response.text, response.text


@check("refusals: no token, forged token, Bearer owner on a non-demo project (401 with the Google envelope)")
def _():
    url = f"{BASE}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup"
    forged = state["token"].split(".")
    forged = f"{forged[0]}.{forged[1]}.{'A' * len(forged[2])}"
    for headers in ({}, {"Authorization": f"Bearer {forged}"}, {"Authorization": "Bearer owner"},
                    {"Authorization": "Bearer ya29.not-a-hearth-token"}):
        response = requests.post(url, json={"localId": ["x"]}, headers=headers, timeout=10)
        assert response.status_code == 401, (headers, response.text)
        assert response.json()["error"]["status"] == "UNAUTHENTICATED", response.text
    custom = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key={API_KEY}",
                           json={"token": "eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJ1aWQiOiJ4In0."}, timeout=10)
    assert custom.status_code == 400 and "INVALID_CUSTOM_TOKEN" in custom.text, custom.text


@check("refusals: an assertion signed by an unregistered key gets no token; a removed key's tokens stop working")
def _():
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    impostor = dict(SA_INFO, private_key=pem, token_uri=f"{BASE}/oauth2.googleapis.com/token")
    credentials = service_account.Credentials.from_service_account_info(impostor, scopes=SCOPES)
    try:
        credentials.refresh(Request())
        raise AssertionError("an unregistered key obtained a token")
    except google_exceptions.RefreshError as error:
        assert "invalid_grant" in str(error), error
    # Remove the key: the token it obtained is refused at once.
    removed = subprocess.run([HEARTH, "service-accounts", "remove", "--data-dir", data_dir, "--email", ADMIN_EMAIL,
                              "--key-id", SA_INFO["private_key_id"]], capture_output=True, text=True, timeout=60)
    assert removed.returncode == 0, removed
    _, v1, _ = clients(SA_PATH)
    try:
        v1.projects().accounts().lookup(targetProjectId=PROJECT, body={"localId": ["x"]}).execute()
        raise AssertionError("a removed key still administers")
    except (HttpError, google_exceptions.RefreshError) as error:
        assert "401" in str(error) or "invalid_grant" in str(error), error


server.terminate()
log, _ = server.communicate(timeout=30)
if re.search(r"hrt1\.|BEGIN PRIVATE KEY|clientSecret", log):
    record_failure("no secret in the server log", AssertionError("a secret reached the log"))
finish("admin-production")
