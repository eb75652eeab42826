"""Identity Platform tenants end to end (issue 38): firebase-admin's tenant_mgt and tenant-scoped auth clients, and
google-api-python-client's identitytoolkit v2 tenants, against Hearth — with a service account, then in emulator mode.

firebase-admin-python builds its tenant-management URL from Google's host even in emulator mode
(firebase-admin-python#910), and with a service account every URL is Google's: the script points the SDK's URL
constants at Hearth before the first call (the tenant service, the user manager, the token generator, the provider
config client, the certificate URLs), as a person testing against Hearth would.

Usage: tenants.py HEARTH_BINARY PORT
Starts `hearth serve --dev` for the non-demo project hearth-tenants on PORT (service-account credentials; the
emulator's `Bearer owner` is refused there), and `hearth serve --dev` for demo-tenants on PORT+1 (emulator mode).
Prints one line per check and 'tenants: N passed, N failed'; exits non-zero on any failure.
"""
import base64
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
import uuid
from urllib.parse import parse_qs, urlparse

import requests

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
PROJECT = "hearth-tenants"
API_KEY = "e2e-key"
SCOPES = ["https://www.googleapis.com/auth/cloud-platform"]
os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)

import firebase_admin  # noqa: E402  (the variable must be unset before the SDK reads it)
from firebase_admin import _auth_providers, _token_gen, _user_mgt, _utils, auth, credentials, tenant_mgt  # noqa: E402
from google.auth.transport.requests import Request  # noqa: E402
from google.oauth2 import service_account  # noqa: E402
from googleapiclient.discovery import build  # noqa: E402
from googleapiclient.errors import HttpError  # noqa: E402
from checks import check, finish, record_failure  # noqa: E402
from hearth_server import start_server  # noqa: E402


def point_sdk_at(base):
    """firebase-admin's Google URLs, pointed at a Hearth server (read when an app's services are first built)."""
    tenant_mgt._TenantManagementService.TENANT_MGT_URL = f"{base}/identitytoolkit.googleapis.com/v2"
    _user_mgt.UserManager.ID_TOOLKIT_URL = f"{base}/identitytoolkit.googleapis.com/v1"
    _token_gen.TokenGenerator.ID_TOOLKIT_URL = f"{base}/identitytoolkit.googleapis.com/v1"
    _auth_providers.ProviderConfigClient.PROVIDER_CONFIG_URL = f"{base}/identitytoolkit.googleapis.com/v2"
    _token_gen.ID_TOKEN_CERT_URI = f"{base}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
    _token_gen.COOKIE_CERT_URI = f"{base}/www.googleapis.com/identitytoolkit/v3/relyingparty/publicKeys"


work = tempfile.mkdtemp()
server, LOG_PATH, stop = start_server(HEARTH, PORT, work, BASE, extra=("--project-id", PROJECT, "--api-key", API_KEY))
DATA = os.path.join(work, "data")
SA_PATH = os.path.join(work, "sa.json")
ADMIN_EMAIL = f"admin@{PROJECT}.iam.gserviceaccount.com"
made = subprocess.run([HEARTH, "service-accounts", "create", "--data-dir", DATA, "--email", ADMIN_EMAIL, "--project-id", PROJECT,
                       "--out", SA_PATH], capture_output=True, text=True, timeout=60)
if made.returncode != 0:
    raise SystemExit(f"service-accounts create failed: {made.stderr}")
with open(SA_PATH) as handle:
    sa_info = json.load(handle)
sa_info["token_uri"] = f"{BASE}/oauth2.googleapis.com/token"
with open(SA_PATH, "w") as handle:
    json.dump(sa_info, handle)

point_sdk_at(BASE)
APP = firebase_admin.initialize_app(credentials.Certificate(SA_PATH), {"projectId": PROJECT}, name="tenants-e2e")
SA_CREDENTIALS = service_account.Credentials.from_service_account_file(SA_PATH, scopes=SCOPES)
SA_CREDENTIALS.refresh(Request())
ADMIN = {"Authorization": f"Bearer {SA_CREDENTIALS.token}"}
GAPI_V2 = build("identitytoolkit", "v2", credentials=SA_CREDENTIALS, static_discovery=True, cache_discovery=False,
                client_options={"api_endpoint": f"{BASE}/identitytoolkit.googleapis.com/"})
state = {}


def suffix():
    return uuid.uuid4().hex[:8]


def rest(method, body, key=API_KEY, base=V1):
    """A client RPC (what the Firebase client SDKs send): accounts:<method>?key=…"""
    response = requests.post(f"{base}/accounts:{method}?key={key}", json=body, timeout=10)
    return response.status_code, response.json()


def refresh(refresh_token, base=BASE):
    response = requests.post(f"{base}/securetoken.googleapis.com/v1/token?key={API_KEY}",
                             data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=10)
    return response.status_code, response.json()


def error_of(body):
    return body.get("error", {}).get("message", "")


def payload(token):
    """A JWT's claims, unverified (to look at what a token carries; the SDK verifies it separately)."""
    part = (token.decode() if isinstance(token, bytes) else token).split(".")[1]
    return json.loads(base64.urlsafe_b64decode(part + "=" * (-len(part) % 4)))


def expect_raises(kind, fn):
    try:
        fn()
    except kind as error:
        return error
    except Exception as error:  # noqa: BLE001
        raise AssertionError(f"expected {kind.__name__}, got {error!r}") from error
    raise AssertionError(f"expected {kind.__name__}, nothing raised")


def http_error(fn):
    """The HttpError google-api-python-client raises, with its status and Google's error message."""
    error = expect_raises(HttpError, fn)
    return error.resp.status, json.loads(error.content)["error"]["message"]


# --- tenant_mgt with a service account -------------------------------------------------------------------------


@check("tenant_mgt.create_tenant: an id in Identity Platform's form (display name, '-', 5 of a-z0-9), the flags asked for, the rest off")
def _():
    acme = tenant_mgt.create_tenant("acme-corp", allow_password_sign_up=True, app=APP)
    assert re.fullmatch(r"acme-corp-[a-z0-9]{5}", acme.tenant_id), acme.tenant_id
    assert acme.display_name == "acme-corp" and acme.allow_password_sign_up and not acme.enable_email_link_sign_in, acme._data
    assert acme._data["name"] == f"projects/{PROJECT}/tenants/{acme.tenant_id}", acme._data
    assert acme._data.get("enableAnonymousUser") is False and acme._data.get("disableAuth") is False, acme._data
    globex = tenant_mgt.create_tenant("Globex", allow_password_sign_up=True, app=APP)
    assert re.fullmatch(r"globex-[a-z0-9]{5}", globex.tenant_id) and globex.tenant_id != acme.tenant_id, globex.tenant_id
    # Display names need not be unique: the same name makes another tenant.
    twin = tenant_mgt.create_tenant("acme-corp", app=APP)
    assert twin.tenant_id != acme.tenant_id and twin.tenant_id.startswith("acme-corp-"), twin.tenant_id
    assert not twin.allow_password_sign_up and not twin.enable_email_link_sign_in, twin._data
    tenant_mgt.delete_tenant(twin.tenant_id, app=APP)
    state["a"], state["b"] = acme.tenant_id, globex.tenant_id


@check("get_tenant and update_tenant (the SDK's updateMask): named fields change, the rest are kept; TenantNotFoundError for unknown and malformed ids")
def _():
    updated = tenant_mgt.update_tenant(state["b"], display_name="globex-two", enable_email_link_sign_in=True, app=APP)
    assert updated.tenant_id == state["b"] and updated.display_name == "globex-two", updated._data
    assert updated.enable_email_link_sign_in and updated.allow_password_sign_up, updated._data
    fetched = tenant_mgt.get_tenant(state["b"], app=APP)
    assert fetched._data == updated._data, (fetched._data, updated._data)
    for ghost in ("ghost-abcde", "Not_A_Tenant", "x" * 200):
        expect_raises(tenant_mgt.TenantNotFoundError, lambda ghost=ghost: tenant_mgt.get_tenant(ghost, app=APP))
    expect_raises(tenant_mgt.TenantNotFoundError, lambda: tenant_mgt.update_tenant("ghost-abcde", display_name="ghost", app=APP))
    expect_raises(tenant_mgt.TenantNotFoundError, lambda: tenant_mgt.delete_tenant("ghost-abcde", app=APP))


@check("list_tenants pages with max_results and iterate_all sees every tenant once")
def _():
    made = {tenant_mgt.create_tenant(f"page-{i}-{suffix()[:4]}", app=APP).tenant_id for i in range(5)}
    page = tenant_mgt.list_tenants(max_results=2, app=APP)
    assert len(page.tenants) == 2 and page.has_next_page, page._current
    listed = [t.tenant_id for t in tenant_mgt.list_tenants(max_results=2, app=APP).iterate_all()]
    assert len(listed) == len(set(listed)), listed
    assert made | {state["a"], state["b"]} <= set(listed), (made, listed)
    state["paged"] = made


@check("the server refuses what the SDK would have refused, and what Hearth cannot honour, by name (INVALID_DISPLAY_NAME, INVALID_ARGUMENT, INVALID_UPDATE_MASK)")
def _():
    url = f"{V2}/projects/{PROJECT}/tenants"
    before = {t.tenant_id for t in tenant_mgt.list_tenants(app=APP).iterate_all()}
    for body, code, named in [({"displayName": "1bad"}, "INVALID_DISPLAY_NAME", "starts with a letter"),
                              ({"displayName": "has space"}, "INVALID_DISPLAY_NAME", "4 to 20"),
                              ({"allowPasswordSignup": True}, "INVALID_DISPLAY_NAME", "displayName"),
                              ({"displayName": "okname", "testPhoneNumbers": {"+15555550100": "123456"}}, "INVALID_ARGUMENT", "testPhoneNumbers"),
                              ({"displayName": "okname", "passwordPolicyConfig": {}}, "INVALID_ARGUMENT", "passwordPolicyConfig"),
                              ({"displayName": "okname", "tenantId": "chosen-id"}, "INVALID_ARGUMENT", "tenantId"),
                              ({"displayName": "okname", "allowPasswordSignUp": True}, "INVALID_ARGUMENT", "allowPasswordSignUp")]:
        response = requests.post(url, json=body, headers=ADMIN, timeout=10)
        message = error_of(response.json())
        assert response.status_code == 400 and message.startswith(code) and named in message, (body, response.text)
    patch = requests.patch(f"{url}/{state['a']}?updateMask=smsRegionConfig", json={"smsRegionConfig": {}}, headers=ADMIN, timeout=10)
    assert patch.status_code == 400 and error_of(patch.json()).startswith("INVALID_UPDATE_MASK") and "smsRegionConfig" in patch.text, patch.text
    for headers in ({}, {"Authorization": "Bearer owner"}):
        refused = requests.post(url, json={"displayName": "sneaky"}, headers=headers, timeout=10)
        assert refused.status_code == 401, refused.text
    after = {t.tenant_id for t in tenant_mgt.list_tenants(app=APP).iterate_all()}
    assert after == before, after ^ before


# --- auth_for_tenant --------------------------------------------------------------------------------------------


@check("auth_for_tenant: create_user, get_user, get_user_by_email, update_user, list_users, delete_user — each user carries tenant_id")
def _():
    client = tenant_mgt.auth_for_tenant(state["a"], app=APP)
    email = f"ada-{suffix()}@acme.example"
    user = client.create_user(email=email, password="acme secret 1", display_name="Ada")
    assert user.tenant_id == state["a"], user._data
    assert client.get_user(user.uid).tenant_id == state["a"]
    assert client.get_user_by_email(email).uid == user.uid
    updated = client.update_user(user.uid, display_name="Ada L", email_verified=True)
    assert updated.display_name == "Ada L" and updated.email_verified and updated.tenant_id == state["a"], updated._data
    listed = {u.uid: u.tenant_id for u in client.list_users(max_results=2).iterate_all()}
    assert listed.get(user.uid) == state["a"] and set(listed.values()) == {state["a"]}, listed
    client.delete_user(user.uid)
    expect_raises(auth.UserNotFoundError, lambda: client.get_user(user.uid))


@check("the same email in two tenants and in the project is three users, each invisible from the others")
def _():
    a, b = (tenant_mgt.auth_for_tenant(state[k], app=APP) for k in ("a", "b"))
    email = f"same-{suffix()}@example.com"
    ua = a.create_user(email=email, password="password in a 1")
    ub = b.create_user(email=email, password="password in b 1")
    up = auth.create_user(email=email, password="password in p 1", app=APP)
    assert len({ua.uid, ub.uid, up.uid}) == 3
    assert a.get_user_by_email(email).uid == ua.uid and b.get_user_by_email(email).uid == ub.uid
    assert auth.get_user_by_email(email, app=APP).uid == up.uid and auth.get_user(up.uid, app=APP).tenant_id is None
    for client, foreign in [(a, ub.uid), (a, up.uid), (b, ua.uid)]:
        expect_raises(auth.UserNotFoundError, lambda client=client, foreign=foreign: client.get_user(foreign))
        expect_raises(auth.UserNotFoundError, lambda client=client, foreign=foreign: client.update_user(foreign, display_name="x"))
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(ua.uid, app=APP))
    found = a.get_users([auth.UidIdentifier(ub.uid), auth.UidIdentifier(up.uid), auth.EmailIdentifier(email)])
    assert [u.uid for u in found.users] == [ua.uid], [u.uid for u in found.users]
    assert ub.uid not in {u.uid for u in a.list_users().iterate_all()}
    assert not {ua.uid, ub.uid} & {u.uid for u in auth.list_users(app=APP).iterate_all()}
    # Deleting another tenant's uid from tenant a deletes nothing.
    a.delete_users([ub.uid, up.uid])
    assert b.get_user(ub.uid).uid == ub.uid and auth.get_user(up.uid, app=APP).uid == up.uid
    state["same"] = {"email": email, "a": ua.uid, "b": ub.uid, "p": up.uid}


@check("signInWithPassword with tenantId: firebase.tenant in the ID token; the tenant's client verifies it, another tenant's raises TenantIdMismatchError; refresh and lookup keep the tenant")
def _():
    same = state["same"]
    status, body = rest("signInWithPassword", {"email": same["email"], "password": "password in a 1", "returnSecureToken": True,
                                               "tenantId": state["a"]})
    assert status == 200 and body["localId"] == same["a"], body
    a, b = (tenant_mgt.auth_for_tenant(state[k], app=APP) for k in ("a", "b"))
    claims = a.verify_id_token(body["idToken"], check_revoked=True)
    assert claims["uid"] == same["a"] and claims["firebase"]["tenant"] == state["a"], claims
    expect_raises(tenant_mgt.TenantIdMismatchError, lambda: b.verify_id_token(body["idToken"]))
    # Each pool has its own password; the project's user signs in without a tenantId and carries no tenant.
    status, wrong = rest("signInWithPassword", {"email": same["email"], "password": "password in a 1", "tenantId": state["b"]})
    assert status == 400, wrong
    status, project = rest("signInWithPassword", {"email": same["email"], "password": "password in p 1", "returnSecureToken": True})
    assert status == 200 and project["localId"] == same["p"] and "tenant" not in payload(project["idToken"])["firebase"], project
    expect_raises(tenant_mgt.TenantIdMismatchError, lambda: a.verify_id_token(project["idToken"]))
    # Refresh (no tenantId on the wire) keeps the tenant; lookup by ID token answers users[].tenantId.
    status, refreshed = refresh(body["refreshToken"])
    assert status == 200 and refreshed["user_id"] == same["a"], refreshed
    assert a.verify_id_token(refreshed["id_token"])["firebase"]["tenant"] == state["a"]
    status, looked = rest("lookup", {"idToken": refreshed["id_token"]})
    assert status == 200 and looked["users"][0]["localId"] == same["a"] and looked["users"][0]["tenantId"] == state["a"], looked
    # An explicit tenantId that is not the token's is refused.
    status, swapped = rest("lookup", {"idToken": body["idToken"], "tenantId": state["b"]})
    assert status == 400 and error_of(swapped).startswith("TENANT_ID_MISMATCH"), swapped
    state["a_session"] = body


@check("a new tenant's sign-in methods are off (OPERATION_NOT_ALLOWED) until update_tenant turns password sign-in on")
def _():
    closed = tenant_mgt.create_tenant("closed-shop", app=APP)
    client = tenant_mgt.auth_for_tenant(closed.tenant_id, app=APP)
    email = f"shop-{suffix()}@example.com"
    client.create_user(email=email, password="shop secret 12")  # admins create users whatever the sign-in methods
    status, body = rest("signInWithPassword", {"email": email, "password": "shop secret 12", "tenantId": closed.tenant_id})
    assert status == 400 and error_of(body).startswith("OPERATION_NOT_ALLOWED"), body
    status, body = rest("signUp", {"returnSecureToken": True, "tenantId": closed.tenant_id})
    assert status == 400 and error_of(body).startswith("OPERATION_NOT_ALLOWED"), body
    status, body = rest("signUp", {"email": f"new-{suffix()}@example.com", "password": "shop secret 12", "tenantId": closed.tenant_id})
    assert status == 400 and error_of(body).startswith("OPERATION_NOT_ALLOWED"), body
    tenant_mgt.update_tenant(closed.tenant_id, allow_password_sign_up=True, app=APP)
    status, body = rest("signInWithPassword", {"email": email, "password": "shop secret 12", "returnSecureToken": True,
                                               "tenantId": closed.tenant_id})
    assert status == 200 and payload(body["idToken"])["firebase"]["tenant"] == closed.tenant_id, body
    state["closed"], state["closed_user"] = closed.tenant_id, (email, body)


@check("auth_for_tenant import_users (PBKDF2-SHA256 hash): the imported password signs in inside the tenant only")
def _():
    client = tenant_mgt.auth_for_tenant(state["a"], app=APP)
    uid, email, salt, password = f"imp-{suffix()}", f"imp-{suffix()}@acme.example", b"tenant-salt", "imported pass 1"
    record = auth.ImportUserRecord(uid, email=email, password_hash=hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 1000, 32),
                                   password_salt=salt)
    result = client.import_users([record], hash_alg=auth.UserImportHash.pbkdf2_sha256(rounds=1000))
    assert result.success_count == 1 and result.failure_count == 0, [e.reason for e in result.errors]
    assert client.get_user(uid).tenant_id == state["a"]
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(uid, app=APP))
    status, body = rest("signInWithPassword", {"email": email, "password": password, "tenantId": state["a"]})
    assert status == 200 and body["localId"] == uid, body
    status, body = rest("signInWithPassword", {"email": email, "password": password})
    assert status == 400, body


@check("create_custom_token on a tenant client carries tenant_id and signs in with that tenantId only (TENANT_ID_MISMATCH otherwise)")
def _():
    client = tenant_mgt.auth_for_tenant(state["a"], app=APP)
    uid = f"custom-{suffix()}"
    token = client.create_custom_token(uid, {"plan": "pro"})
    assert payload(token)["tenant_id"] == state["a"], payload(token)
    status, body = rest("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True, "tenantId": state["a"]})
    assert status == 200, body
    claims = client.verify_id_token(body["idToken"])
    assert claims["uid"] == uid and claims["plan"] == "pro" and claims["firebase"]["tenant"] == state["a"], claims
    assert client.get_user(uid).tenant_id == state["a"]
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(uid, app=APP))
    status, body = rest("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True, "tenantId": state["b"]})
    assert status == 400 and error_of(body).startswith("TENANT_ID_MISMATCH"), body
    project_token = auth.create_custom_token(f"proj-{suffix()}", app=APP).decode()
    status, body = rest("signInWithCustomToken", {"token": project_token, "returnSecureToken": True, "tenantId": state["a"]})
    assert status == 400 and error_of(body).startswith("TENANT_ID_MISMATCH"), body


@check("…/tenants/{t}:createSessionCookie makes a cookie that carries the tenant; another tenant's path is TENANT_ID_MISMATCH")
def _():
    session = state["a_session"]
    url = f"{V1}/projects/{PROJECT}/tenants/{state['a']}:createSessionCookie"
    response = requests.post(url, json={"idToken": session["idToken"], "validDuration": "600"}, headers=ADMIN, timeout=10)
    assert response.status_code == 200, response.text
    claims = auth.verify_session_cookie(response.json()["sessionCookie"], app=APP)
    assert claims["uid"] == session["localId"] and claims["firebase"]["tenant"] == state["a"], claims
    other = requests.post(f"{V1}/projects/{PROJECT}/tenants/{state['b']}:createSessionCookie",
                          json={"idToken": session["idToken"], "validDuration": "600"}, headers=ADMIN, timeout=10)
    assert other.status_code == 400 and error_of(other.json()).startswith("TENANT_ID_MISMATCH"), other.text


@check("generate_password_reset_link on a tenant client carries tenantId; the reset it makes applies in the tenant only")
def _():
    client = tenant_mgt.auth_for_tenant(state["a"], app=APP)
    email = f"reset-{suffix()}@acme.example"
    user = client.create_user(email=email, password="old tenant pass 1")
    link = client.generate_password_reset_link(email)
    query = parse_qs(urlparse(link).query)
    assert query["tenantId"] == [state["a"]] and query["mode"] == ["resetPassword"], link
    status, body = rest("resetPassword", {"oobCode": query["oobCode"][0], "newPassword": "new tenant pass 1", "tenantId": state["a"]})
    assert status == 200 and body["email"] == email, body
    status, body = rest("signInWithPassword", {"email": email, "password": "new tenant pass 1", "tenantId": state["a"]})
    assert status == 200 and body["localId"] == user.uid, body
    # Another tenant's user with the same email is not reachable through tenant a's link.
    tenant_mgt.auth_for_tenant(state["b"], app=APP).create_user(email=email, password="b tenant pass 1")
    link = client.generate_password_reset_link(email)
    code = parse_qs(urlparse(link).query)["oobCode"][0]
    status, body = rest("resetPassword", {"oobCode": code, "newPassword": "hijacked pass 1", "tenantId": state["b"]})
    assert status == 400, body
    status, body = rest("signInWithPassword", {"email": email, "password": "b tenant pass 1", "tenantId": state["b"]})
    assert status == 200, body


@check("per-tenant OIDC provider configs (…/tenants/{t}/oauthIdpConfigs): each tenant its own, the project sees none")
def _():
    a, b = (tenant_mgt.auth_for_tenant(state[k], app=APP) for k in ("a", "b"))
    provider_id = f"oidc.corp{suffix()[:5]}"
    created = a.create_oidc_provider_config(provider_id, client_id="acme-client", issuer="https://idp.acme.example",
                                            display_name="Acme SSO", enabled=True, client_secret="acme-secret", code_response_type=True)
    assert created.client_id == "acme-client" and "clientSecret" not in created._data, created._data
    b.create_oidc_provider_config(provider_id, client_id="globex-client", issuer="https://idp.globex.example", enabled=True,
                                  client_secret="globex-secret", code_response_type=True)
    assert a.get_oidc_provider_config(provider_id).client_id == "acme-client"
    assert b.get_oidc_provider_config(provider_id).client_id == "globex-client"
    expect_raises(auth.ConfigurationNotFoundError, lambda: auth.get_oidc_provider_config(provider_id, app=APP))
    assert provider_id not in [p.provider_id for p in auth.list_oidc_provider_configs(app=APP).iterate_all()]
    a.delete_oidc_provider_config(provider_id)
    expect_raises(auth.ConfigurationNotFoundError, lambda: a.get_oidc_provider_config(provider_id))
    assert b.get_oidc_provider_config(provider_id).client_id == "globex-client"
    state["b_provider"] = provider_id


# --- google-api-python-client: identitytoolkit v2 projects.tenants -----------------------------------------------


@check("google-api-python-client v2 tenants: create (enableAnonymousUser, TOTP mfaConfig), get, list with pageSize/pageToken, patch with updateMask, delete")
def _():
    tenants = GAPI_V2.projects().tenants()
    parent = f"projects/{PROJECT}"
    created = tenants.create(parent=parent, body={
        "displayName": "anon-shop", "enableAnonymousUser": True,
        "mfaConfig": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 1}}]},
    }).execute()
    name = created["name"]
    tenant_id = name.split("/")[-1]
    assert name == f"{parent}/tenants/{tenant_id}" and tenant_id.startswith("anon-shop-"), created
    assert created["enableAnonymousUser"] is True and created["allowPasswordSignup"] is False and created["disableAuth"] is False, created
    assert created["mfaConfig"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 1, created
    assert tenants.get(name=name).execute() == created
    first = tenants.list(parent=parent, pageSize=1).execute()
    assert len(first["tenants"]) == 1 and first.get("nextPageToken"), first
    second = tenants.list(parent=parent, pageSize=1, pageToken=first["nextPageToken"]).execute()
    assert len(second["tenants"]) == 1 and second["tenants"][0]["name"] != first["tenants"][0]["name"], second
    names, token = [], None
    while True:
        page = tenants.list(parent=parent, pageSize=3, **({"pageToken": token} if token else {})).execute()
        names += [t["name"] for t in page.get("tenants", [])]
        token = page.get("nextPageToken")
        if not token:
            break
    assert len(names) == len(set(names)) and name in names and f"{parent}/tenants/{state['a']}" in names, names
    # Anonymous sign-up inside the tenant.
    status, body = rest("signUp", {"returnSecureToken": True, "tenantId": tenant_id})
    assert status == 200, body
    assert tenant_mgt.auth_for_tenant(tenant_id, app=APP).verify_id_token(body["idToken"])["firebase"]["tenant"] == tenant_id
    # A masked patch: a named field absent from the body is reset (anonymous off), disableAuth on — sign-in stops at once.
    patched = tenants.patch(name=name, updateMask="enableAnonymousUser,disableAuth", body={"disableAuth": True}).execute()
    assert patched["enableAnonymousUser"] is False and patched["disableAuth"] is True and patched["displayName"] == "anon-shop", patched
    status, refused = refresh(body["refreshToken"])
    assert status == 400, refused
    status, refused = rest("signUp", {"returnSecureToken": True, "tenantId": tenant_id})
    assert status == 400, refused
    assert http_error(lambda: tenants.patch(name=name, updateMask="testPhoneNumbers", body={}).execute())[0] == 400
    tenants.delete(name=name).execute()
    status, message = http_error(lambda: tenants.get(name=name).execute())
    assert status in (400, 404) and message.startswith("TENANT_NOT_FOUND"), (status, message)


# --- deleting a tenant --------------------------------------------------------------------------------------------


@check("delete_tenant: its users, sessions and provider configs go with it at once; other tenants and the project are untouched")
def _():
    same = state["same"]
    b = tenant_mgt.auth_for_tenant(state["b"], app=APP)
    status, session = rest("signInWithPassword", {"email": same["email"], "password": "password in b 1", "returnSecureToken": True,
                                                  "tenantId": state["b"]})
    assert status == 200, session
    tenant_mgt.delete_tenant(state["b"], app=APP)
    expect_raises(tenant_mgt.TenantNotFoundError, lambda: tenant_mgt.get_tenant(state["b"], app=APP))
    expect_raises(tenant_mgt.TenantNotFoundError, lambda: b.get_user(same["b"]))
    status, body = rest("signInWithPassword", {"email": same["email"], "password": "password in b 1", "tenantId": state["b"]})
    assert status == 400 and error_of(body).startswith("TENANT_NOT_FOUND"), body
    status, body = refresh(session["refreshToken"])
    assert status == 400, body
    status, body = rest("lookup", {"idToken": session["idToken"]})
    assert status == 400, body
    # The other tenant and the project keep their users with the same email.
    assert tenant_mgt.auth_for_tenant(state["a"], app=APP).get_user(same["a"]).uid == same["a"]
    assert auth.get_user(same["p"], app=APP).uid == same["p"]
    # A new tenant of the same name is a new, empty pool: nothing of the deleted one comes back.
    again = tenant_mgt.create_tenant("globex-two", allow_password_sign_up=True, app=APP)
    assert again.tenant_id != state["b"], again.tenant_id
    fresh = tenant_mgt.auth_for_tenant(again.tenant_id, app=APP)
    assert not list(fresh.list_users().iterate_all())
    expect_raises(auth.ConfigurationNotFoundError, lambda: fresh.get_oidc_provider_config(state["b_provider"]))


@check("the audit log names the service account for the tenant writes, and holds no secret")
def _():
    response = requests.get(f"{V1}/projects/{PROJECT}/auditLog?pageSize=1000", headers=ADMIN, timeout=10)
    assert response.status_code == 200, response.text
    entries = response.json()["entries"]
    tenant_writes = [e for e in entries if e["action"].startswith("tenants.")]
    assert {"tenants.create", "tenants.update", "tenants.delete"} <= {e["action"] for e in tenant_writes}, {e["action"] for e in entries}
    assert all(e["actor"] == f"serviceAccount:{ADMIN_EMAIL}" for e in tenant_writes), tenant_writes
    assert "acme-secret" not in response.text and "password in a 1" not in response.text


# --- emulator mode ------------------------------------------------------------------------------------------------


class OwnerCredential(credentials.Base):
    """The emulator's credential (`Bearer owner`) for tenant_mgt, which takes the app's credential even in emulator
    mode."""

    def get_credential(self):
        return _utils.EmulatorAdminCredentials()


EMU_PORT = int(PORT) + 1
EMU_BASE = f"http://127.0.0.1:{EMU_PORT}"
emu_work = tempfile.mkdtemp()
emu_server, EMU_LOG_PATH, emu_stop = start_server(HEARTH, EMU_PORT, emu_work, EMU_BASE, extra=("--project-id", "demo-tenants"))
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{EMU_PORT}"
point_sdk_at(EMU_BASE)
EMU = firebase_admin.initialize_app(OwnerCredential(), {"projectId": "demo-tenants"}, name="tenants-emulator")


@check("emulator mode (demo project): tenant_mgt (URL pointed at the emulator host), auth_for_tenant users, unsigned custom tokens with tenant_id")
def _():
    tenant = tenant_mgt.create_tenant("emu-tenant", allow_password_sign_up=True, app=EMU)
    assert re.fullmatch(r"emu-tenant-[a-z0-9]{5}", tenant.tenant_id), tenant.tenant_id
    assert tenant.tenant_id in [t.tenant_id for t in tenant_mgt.list_tenants(app=EMU).iterate_all()]
    client = tenant_mgt.auth_for_tenant(tenant.tenant_id, app=EMU)
    email = f"emu-{suffix()}@example.com"
    user = client.create_user(email=email, password="emulator pass 1")
    assert user.tenant_id == tenant.tenant_id and client.get_user_by_email(email).uid == user.uid
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(user.uid, app=EMU))
    token = client.create_custom_token(user.uid)
    assert payload(token)["tenant_id"] == tenant.tenant_id, payload(token)
    status, body = rest("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True, "tenantId": tenant.tenant_id},
                        base=f"{EMU_BASE}/identitytoolkit.googleapis.com/v1")
    assert status == 200, body
    claims = client.verify_id_token(body["idToken"])
    assert claims["uid"] == user.uid and claims["firebase"]["tenant"] == tenant.tenant_id, claims
    tenant_mgt.delete_tenant(tenant.tenant_id, app=EMU)
    expect_raises(tenant_mgt.TenantNotFoundError, lambda: tenant_mgt.get_tenant(tenant.tenant_id, app=EMU))


emu_stop()
stop()
for path in (LOG_PATH, EMU_LOG_PATH):
    with open(path) as handle:
        log = handle.read()
    if re.search(r"hrt1\.|BEGIN PRIVATE KEY|acme-secret|globex-secret|password in [abp] 1", log):
        record_failure(f"no secret in the server log ({os.path.basename(os.path.dirname(path))})", AssertionError("a secret reached the log"))
finish("tenants")
