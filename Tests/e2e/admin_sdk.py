"""Hearth administered with the real Firebase Admin SDK for Python (firebase-admin), in emulator mode.

Usage: admin_sdk.py BASE_URL PROJECT_ID
BASE_URL is a running `hearth serve` for a demo-* project (so `Authorization: Bearer owner`, the SDK's emulator
credential, is accepted). Prints one line per check and 'admin-sdk: N passed, N failed'; exits non-zero on any failure.
"""
import datetime
import os
import sys
import time
import uuid
from urllib.parse import urlparse

import requests

BASE, PROJECT = sys.argv[1:3]
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = urlparse(BASE).netloc

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
from firebase_admin import auth  # noqa: E402
from checks import check, finish, record_failure  # noqa: F401 - the shared runner

APP = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="hearth-admin-e2e")


def uid(prefix="u"):
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


def sign_in_with_custom_token(token):
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any",
                             json={"token": token.decode() if isinstance(token, bytes) else token, "returnSecureToken": True}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def sign_in_with_password(email, password):
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any",
                             json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)
    return response.status_code, response.json()


def expect_raises(kind, fn):
    try:
        fn()
    except kind:
        return
    except Exception as error:  # noqa: BLE001
        raise AssertionError(f"expected {kind.__name__}, got {error!r}") from error
    raise AssertionError(f"expected {kind.__name__}, nothing raised")


@check("create_user, get_user, get_user_by_email, get_user_by_phone_number")
def _():
    user_id = uid()
    email = f"{user_id}@example.com"
    phone = "+1555" + str(int(time.time() * 1000))[-7:]
    created = auth.create_user(uid=user_id, email=email, password="secret-pass-1", phone_number=phone, display_name="Ada",
                               photo_url="https://example.com/ada.png", email_verified=True, app=APP)
    assert created.uid == user_id and created.email == email and created.phone_number == phone, created._data
    assert created.display_name == "Ada" and created.email_verified and not created.disabled
    assert created.user_metadata.creation_timestamp > 0
    assert created.user_metadata.last_sign_in_timestamp is None, created._data
    assert {p.provider_id for p in created.provider_data} == {"password", "phone"}, created._data
    assert auth.get_user(user_id, app=APP).uid == user_id
    assert auth.get_user_by_email(email, app=APP).uid == user_id
    assert auth.get_user_by_phone_number(phone, app=APP).uid == user_id
    status, body = sign_in_with_password(email, "secret-pass-1")
    assert status == 200, body
    assert auth.get_user(user_id, app=APP).user_metadata.last_sign_in_timestamp > 0


@check("errors map to the SDK's exceptions (UserNotFound, EmailAlreadyExists, UidAlreadyExists, PhoneNumberAlreadyExists)")
def _():
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(uid("ghost"), app=APP))
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user_by_email("ghost-nobody@example.com", app=APP))
    user = auth.create_user(uid=uid(), email=f"{uid()}@example.com", phone_number="+4420" + str(int(time.time() * 1000))[-8:], app=APP)
    expect_raises(auth.UidAlreadyExistsError, lambda: auth.create_user(uid=user.uid, app=APP))
    expect_raises(auth.EmailAlreadyExistsError, lambda: auth.create_user(email=user.email, app=APP))
    expect_raises(auth.PhoneNumberAlreadyExistsError, lambda: auth.create_user(phone_number=user.phone_number, app=APP))
    expect_raises(auth.UserNotFoundError, lambda: auth.update_user(uid("ghost"), display_name="x", app=APP))
    expect_raises(auth.UserNotFoundError, lambda: auth.delete_user(uid("ghost"), app=APP))


@check("get_users by uid, email, phone and provider uid; not_found computed")
def _():
    a = auth.create_user(uid=uid(), email=f"{uid()}@example.com", app=APP)
    b = auth.create_user(uid=uid(), phone_number="+3361" + str(int(time.time() * 1000))[-7:], app=APP)
    result = auth.get_users([auth.UidIdentifier(a.uid), auth.EmailIdentifier(a.email), auth.PhoneIdentifier(b.phone_number),
                             auth.UidIdentifier("nobody-" + uuid.uuid4().hex)], app=APP)
    assert sorted(u.uid for u in result.users) == sorted([a.uid, b.uid]), [u.uid for u in result.users]
    assert len(result.not_found) == 1, result.not_found


@check("update_user: profile, DELETE_ATTRIBUTE, disabled, email_verified, password, phone removal")
def _():
    user = auth.create_user(uid=uid(), email=f"{uid()}@example.com", display_name="Old", photo_url="https://example.com/p.png",
                            phone_number="+1202" + str(int(time.time() * 1000))[-7:], app=APP)
    updated = auth.update_user(user.uid, display_name=auth.DELETE_ATTRIBUTE, photo_url=auth.DELETE_ATTRIBUTE,
                               phone_number=auth.DELETE_ATTRIBUTE, email_verified=True, disabled=True,
                               password="brand-new-pass", app=APP)
    assert updated.display_name is None and updated.photo_url is None and updated.phone_number is None, updated._data
    assert updated.email_verified and updated.disabled
    status, body = sign_in_with_password(user.email, "brand-new-pass")
    assert status == 400 and body["error"]["message"].startswith("USER_DISABLED"), body
    auth.update_user(user.uid, disabled=False, app=APP)
    status, body = sign_in_with_password(user.email, "brand-new-pass")
    assert status == 200, body


@check("set_custom_user_claims: claims reach ID tokens; None clears; reserved and oversized claims refused")
def _():
    user_id = uid()
    auth.create_user(uid=user_id, app=APP)
    auth.set_custom_user_claims(user_id, {"role": "admin", "level": 3}, app=APP)
    assert auth.get_user(user_id, app=APP).custom_claims == {"role": "admin", "level": 3}
    session = sign_in_with_custom_token(auth.create_custom_token(user_id, app=APP))
    claims = auth.verify_id_token(session["idToken"], app=APP)
    assert claims["role"] == "admin" and claims["level"] == 3, claims
    auth.set_custom_user_claims(user_id, None, app=APP)
    assert auth.get_user(user_id, app=APP).custom_claims is None
    # The SDK checks reserved names and size itself; the server enforces the same rules on raw calls.
    for body, code in [({"localId": user_id, "customAttributes": '{"iss":"x"}'}, "FORBIDDEN_CLAIM"),
                       ({"localId": user_id, "customAttributes": '{"k":"' + "x" * 1000 + '"}'}, "CLAIMS_TOO_LARGE"),
                       ({"localId": user_id, "customAttributes": "[]"}, "INVALID_CLAIMS")]:
        response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:update",
                                 json=body, headers={"Authorization": "Bearer owner"}, timeout=10)
        assert response.status_code == 400 and response.json()["error"]["message"].startswith(code), response.text


@check("create_custom_token (unsigned, emulator mode) signs in; verify_id_token(check_revoked) after revoke_refresh_tokens")
def _():
    user_id = uid()
    session = sign_in_with_custom_token(auth.create_custom_token(user_id, {"plan": "pro"}, app=APP))
    claims = auth.verify_id_token(session["idToken"], check_revoked=True, app=APP)
    assert claims["uid"] == user_id and claims["plan"] == "pro", claims
    time.sleep(1.1)
    auth.revoke_refresh_tokens(user_id, app=APP)
    assert auth.get_user(user_id, app=APP).tokens_valid_after_timestamp > 0
    expect_raises(auth.RevokedIdTokenError, lambda: auth.verify_id_token(session["idToken"], check_revoked=True, app=APP))
    refresh = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key=any",
                            data={"grant_type": "refresh_token", "refresh_token": session["refreshToken"]}, timeout=10)
    assert refresh.status_code == 400 and "TOKEN_EXPIRED" in refresh.text, refresh.text
    auth.update_user(user_id, disabled=True, app=APP)
    fresh = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any",
                          json={"token": auth.create_custom_token(user_id, app=APP).decode()}, timeout=10)
    assert fresh.status_code == 400 and "USER_DISABLED" in fresh.text, fresh.text


@check("create_custom_token's unsigned token signs in from a web app's page on an authorized domain (Origin, CORS preflight), not from another site (issue 36, item 7)")
def _():
    import base64
    import json
    user_id = uid("web")
    token = auth.create_custom_token(user_id, {"plan": "web"}, app=APP).decode()
    header = json.loads(base64.urlsafe_b64decode(token.split(".")[0] + "=="))
    assert header["alg"] == "none" and token.endswith("."), header
    url = f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithCustomToken?key=any"
    # What the browser sends first for the JS SDK's JSON POST.
    preflight = requests.options(url, headers={"Origin": "http://localhost:5173", "Access-Control-Request-Method": "POST",
                                               "Access-Control-Request-Headers": "content-type,x-client-version"}, timeout=10)
    assert preflight.status_code in (200, 204), preflight.text
    assert preflight.headers.get("Access-Control-Allow-Origin") == "http://localhost:5173", preflight.headers
    page = requests.post(url, json={"token": token, "returnSecureToken": True},
                         headers={"Origin": "http://localhost:5173", "X-Client-Version": "Chrome/JsCore/12.3.0/FirebaseCore-web"}, timeout=10)
    assert page.status_code == 200, page.text
    claims = auth.verify_id_token(page.json()["idToken"], app=APP)
    assert claims["uid"] == user_id and claims["plan"] == "web", claims
    other = requests.post(url, json={"token": auth.create_custom_token(uid("evil"), app=APP).decode(), "returnSecureToken": True},
                          headers={"Origin": "https://evil.example"}, timeout=10)
    assert other.status_code == 400, other.text
    message = other.json()["error"]["message"]
    assert message.startswith("INVALID_CUSTOM_TOKEN") and "authorized domain" in message, message


@check("revoke_refresh_tokens in the same second as the sign-in still revokes it (issue 35, item 6); a sign-in right after passes check_revoked")
def _():
    user_id = uid()
    # No sleep: the revocation lands in the same wall-clock second as the sign-in (firebase-admin sends that second).
    session = sign_in_with_custom_token(auth.create_custom_token(user_id, app=APP))
    auth.revoke_refresh_tokens(user_id, app=APP)
    expect_raises(auth.RevokedIdTokenError, lambda: auth.verify_id_token(session["idToken"], check_revoked=True, app=APP))
    refresh = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key=any",
                            data={"grant_type": "refresh_token", "refresh_token": session["refreshToken"]}, timeout=10)
    assert refresh.status_code == 400 and "TOKEN_EXPIRED" in refresh.text, refresh.text
    again = sign_in_with_custom_token(auth.create_custom_token(user_id, app=APP))
    claims = auth.verify_id_token(again["idToken"], check_revoked=True, app=APP)
    assert claims["uid"] == user_id, claims


@check("create_session_cookie and verify_session_cookie(check_revoked)")
def _():
    user_id = uid()
    session = sign_in_with_custom_token(auth.create_custom_token(user_id, app=APP))
    cookie = auth.create_session_cookie(session["idToken"], expires_in=datetime.timedelta(minutes=10), app=APP)
    claims = auth.verify_session_cookie(cookie, check_revoked=True, app=APP)
    assert claims["uid"] == user_id and claims["iss"] == f"https://session.firebase.google.com/{PROJECT}", claims
    assert claims["exp"] - claims["iat"] == 600, claims
    expect_raises(ValueError, lambda: auth.create_session_cookie(session["idToken"], expires_in=datetime.timedelta(seconds=30), app=APP))
    auth.update_user(user_id, disabled=True, app=APP)
    expect_raises(auth.UserDisabledError, lambda: auth.verify_session_cookie(cookie, check_revoked=True, app=APP))


@check("list_users pages through every user (GET accounts:batchGet)")
def _():
    prefix = "list-" + uuid.uuid4().hex[:6]
    made = {auth.create_user(uid=f"{prefix}-{i:02d}", app=APP).uid for i in range(7)}
    page = auth.list_users(max_results=3, app=APP)
    assert len(page.users) == 3 and page.has_next_page, page._current
    listed = {user.uid for user in auth.list_users(max_results=3, app=APP).iterate_all()}
    assert made <= listed, made - listed


@check("delete_user and delete_users (per-user results)")
def _():
    one = auth.create_user(uid=uid(), app=APP)
    auth.delete_user(one.uid, app=APP)
    expect_raises(auth.UserNotFoundError, lambda: auth.get_user(one.uid, app=APP))
    uids = [auth.create_user(uid=uid(), app=APP).uid for _ in range(3)]
    result = auth.delete_users(uids + ["never-existed-" + uuid.uuid4().hex], app=APP)
    assert result.success_count == 4 and result.failure_count == 0, (result.success_count, [e.reason for e in result.errors])
    assert not auth.get_users([auth.UidIdentifier(u) for u in uids], app=APP).users


@check("OIDC provider configs: create, get, update, list, delete (secret never returned)")
def _():
    provider_id = "oidc.e2e" + uuid.uuid4().hex[:6]
    created = auth.create_oidc_provider_config(provider_id, client_id="corp-client", issuer="https://idp.example.com",
                                               display_name="Corp", enabled=True, client_secret="corp-secret",
                                               code_response_type=True, app=APP)
    assert created.provider_id == provider_id and created.client_id == "corp-client" and created.enabled, created._data
    assert "clientSecret" not in created._data
    assert auth.get_oidc_provider_config(provider_id, app=APP).issuer == "https://idp.example.com"
    updated = auth.update_oidc_provider_config(provider_id, display_name="Corporate", enabled=False, app=APP)
    assert updated.display_name == "Corporate" and not updated.enabled, updated._data
    assert provider_id in [p.provider_id for p in auth.list_oidc_provider_configs(app=APP).iterate_all()]
    auth.delete_oidc_provider_config(provider_id, app=APP)
    expect_raises(auth.ConfigurationNotFoundError, lambda: auth.get_oidc_provider_config(provider_id, app=APP))


# Firebase's scrypt test vector (firebase/scrypt README), as in the reference.
SCRYPT_KEY = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA=="
SCRYPT_SEPARATOR = "Bw=="
SCRYPT_SALT = "42xEC+ixf3L2lw=="
SCRYPT_HASH = "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="


def import_and_sign_in(hash_alg, password_hash, salt, password, **extra):
    user_id = uid("imp")
    email = f"{user_id}@example.com"
    record = auth.ImportUserRecord(user_id, email=email, password_hash=password_hash, password_salt=salt, **extra)
    result = auth.import_users([record], hash_alg=hash_alg, app=APP)
    assert result.success_count == 1 and result.failure_count == 0, [e.reason for e in result.errors]
    status, body = sign_in_with_password(email, "wrong-password")
    assert status == 400, body
    status, body = sign_in_with_password(email, password)
    assert status == 200, body
    # Re-hashed with Hearth's scrypt on that sign-in: the password still works.
    status, body = sign_in_with_password(email, password)
    assert status == 200, body
    return user_id


@check("import_users with Firebase SCRYPT (the published test vector): the old password signs in")
def _():
    import base64
    hash_alg = auth.UserImportHash.scrypt(key=base64.b64decode(SCRYPT_KEY), rounds=8, memory_cost=14,
                                          salt_separator=base64.b64decode(SCRYPT_SEPARATOR))
    import_and_sign_in(hash_alg, base64.b64decode(SCRYPT_HASH), base64.b64decode(SCRYPT_SALT), "user1password")


@check("import_users with BCRYPT (OpenBSD test vector) and provider data; get_users by ProviderIdentifier")
def _():
    provider_uid = "ms-" + uuid.uuid4().hex[:8]
    user_id = import_and_sign_in(auth.UserImportHash.bcrypt(), b"$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", None, "U*U",
                                 provider_data=[auth.UserProvider(uid=provider_uid, provider_id="microsoft.com", email="x@ms.example")])
    found = auth.get_users([auth.ProviderIdentifier("microsoft.com", provider_uid)], app=APP)
    assert [u.uid for u in found.users] == [user_id], found.users
    assert "microsoft.com" in [p.provider_id for p in auth.get_user(user_id, app=APP).provider_data]


@check("import_users with STANDARD_SCRYPT, PBKDF2_SHA256, HMAC_SHA256/512, SHA256/512")
def _():
    import hashlib
    import hmac
    salt, password, key = b"NaCl-salt", "old-password-1", b"hmac-signer-key"
    import_and_sign_in(auth.UserImportHash.standard_scrypt(memory_cost=1024, parallelization=2, block_size=8, derived_key_length=32),
                       hashlib.scrypt(password.encode(), salt=salt, n=1024, r=8, p=2, dklen=32), salt, password)
    import_and_sign_in(auth.UserImportHash.pbkdf2_sha256(rounds=1000),
                       hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 1000, 32), salt, password)
    for factory, digest in [(auth.UserImportHash.hmac_sha256, hashlib.sha256), (auth.UserImportHash.hmac_sha512, hashlib.sha512)]:
        import_and_sign_in(factory(key=key), hmac.new(key, salt + password.encode(), digest).digest(), salt, password)
    for factory, digest in [(auth.UserImportHash.sha256, hashlib.sha256), (auth.UserImportHash.sha512, hashlib.sha512)]:
        value = digest(salt + password.encode()).digest()
        for _ in range(2):
            value = digest(value).digest()
        import_and_sign_in(factory(rounds=3), value, salt, password)


@check("import_users reports per-user failures (existing uid, taken email) and imports the rest")
def _():
    taken = f"{uid()}@example.com"
    existing = auth.create_user(uid=uid(), email=taken, app=APP).uid
    fresh = uid("imp")
    records = [auth.ImportUserRecord(existing), auth.ImportUserRecord(fresh), auth.ImportUserRecord(uid("imp"), email=taken)]
    result = auth.import_users(records, app=APP)
    assert result.success_count == 1 and result.failure_count == 2, (result.success_count, [(e.index, e.reason) for e in result.errors])
    assert sorted(e.index for e in result.errors) == [0, 2], [(e.index, e.reason) for e in result.errors]
    assert auth.get_user(fresh, app=APP).uid == fresh


@check("the audit log records the SDK's writes as the emulator owner, without secrets")
def _():
    user = auth.create_user(uid=uid(), password="audit-secret-123", app=APP)
    response = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/auditLog?pageSize=50",
                            headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
    entries = response.json()["entries"]
    mine = [e for e in entries if e["target"] == user.uid]
    assert mine and mine[0]["action"] == "accounts.create" and mine[0]["actor"] == "emulator:owner", mine
    assert "audit-secret-123" not in response.text


@check("emulator endpoints: GET/PATCH /emulator/v1/projects/{p}/config")
def _():
    url = f"{BASE}/emulator/v1/projects/{PROJECT}/config"
    before = requests.get(url, timeout=10).json()
    flipped = not before["signIn"]["allowDuplicateEmails"]
    patched = requests.patch(url, json={"signIn": {"allowDuplicateEmails": flipped}}, timeout=10)
    assert patched.status_code == 200 and patched.json()["signIn"]["allowDuplicateEmails"] == flipped, patched.text
    requests.patch(url, json={"signIn": {"allowDuplicateEmails": before["signIn"]["allowDuplicateEmails"]}}, timeout=10)


finish("admin-sdk")
