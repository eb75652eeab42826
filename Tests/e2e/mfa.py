"""TOTP multi-factor authentication end to end (issue 22), with an independent TOTP implementation (pyotp) computing
every code from what the server hands out (sharedSecretKey, periodSec, verificationCodeLength, hashingAlgorithm).

Usage: mfa.py HEARTH_BINARY PORT
Starts its own `hearth serve --dev` (project demo-hearth, so `Authorization: Bearer owner` administers it and the dev
mailbox and the dev Microsoft provider are on) on PORT, with its log in a temporary file, and checks:
- the project setting through the admin API: the REST body, the Node Admin SDK's request (`updateProjectConfig(
  {multiFactorConfig})` → `updateMask=mfa.state,mfa.providerConfigs`), GET, and refusals with Google's envelope;
- enrollment over REST (verified email, pyotp's code from the previous window, recovery codes) and refusals;
- sign-in with password, email link and the dev Microsoft provider → mfaPendingCredential → mfaSignIn:finalize, the
  ID token's claims (verified with google-auth and firebase-admin) and refresh keeping them;
- recovery codes (once, not twice), firebase-admin's user record (raw `mfaInfo`: Python's firebase-admin has no
  MFA fields), custom tokens (no second factor, as at Firebase);
- attacks: another user's pending credential, a used pending credential, a replayed code, the window's edges,
  brute force → TOO_MANY_ATTEMPTS_TRY_LATER; withdraw; the admin removal (`accounts:update` with `mfa: {}`, the
  Node Admin SDK's body) ending sessions and mailing the user; the audit log; no secret in the server log, and none
  in the clear in the database files (the embedded store seals TOTP secrets with <data-dir>/totp-secrets.key).
Prints one line per check ('SKIP' lines say what cannot be checked from outside) and 'mfa: N passed, M failed';
exits non-zero on any failure.
"""
import base64
import datetime
import hashlib
import html
import json
import os
import re
import sys
import tempfile
import time
import uuid
from urllib.parse import parse_qs, urlencode, urljoin, urlparse

import pyotp
import requests
from google.auth.transport import requests as google_requests
from google.oauth2 import id_token as google_id_token

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "demo-hearth"
KEY = "mfa-e2e-key"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
CONFIG = f"{V2}/projects/{PROJECT}/config"
ADMIN = {"Authorization": "Bearer owner"}
CERTS = f"{BASE}/www.googleapis.com/robot/v1/metadata/x509/securetoken@system.gserviceaccount.com"
HANDLER = f"{BASE}/__/auth/handler"
APP_ID = "mfa-e2e-desktop"
APP_REDIRECT = "http://127.0.0.1:65000/mfa-callback"
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
from firebase_admin import auth  # noqa: E402
from checks import check, finish, record_failure  # noqa: E402
from hearth_server import start_server  # noqa: E402

work = tempfile.mkdtemp(prefix="hearth-mfa-e2e-")
server, LOG_PATH, stop_server = start_server(HEARTH, PORT, work, BASE)

APP = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="mfa-e2e")
# Everything secret the server handed out: none of it may reach the server log or the audit log.
SECRETS = []


# --- helpers -------------------------------------------------------------------------------------------------------

def v1(method, body):
    response = requests.post(f"{V1}/accounts:{method}?key={KEY}", json=body, timeout=20)
    return response.status_code, response.json()


def v2(method, body):
    response = requests.post(f"{V2}/accounts/{method}?key={KEY}", json=body, timeout=20)
    return response.status_code, response.json()


def admin_v1(method, body):
    response = requests.post(f"{V1}/projects/{PROJECT}/accounts:{method}", json=body, headers=ADMIN, timeout=20)
    return response.status_code, response.json()


def error_of(status, body):
    """Firebase's error string (the message up to ' : '), asserting the Google envelope around it."""
    assert status == 400, (status, body)
    error = body["error"]
    assert error["code"] == 400 and isinstance(error["message"], str), body
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


def refresh(refresh_token):
    response = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key={KEY}",
                             data={"grant_type": "refresh_token", "refresh_token": refresh_token}, timeout=20)
    return response.status_code, response.json()


def oob_code(email, request_type):
    """The newest code of a kind sent to `email`, from the emulator's oobCodes listing (the dev mailbox)."""
    listed = requests.get(f"{BASE}/emulator/v1/projects/{PROJECT}/oobCodes", timeout=20).json()["oobCodes"]
    codes = [c for c in listed if c["email"] == email and c["requestType"] == request_type]
    assert codes, (email, request_type, listed[-3:])
    return codes[-1]["oobCode"]


def verify_email(id_token, email):
    status, body = v1("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": id_token})
    assert status == 200, body
    status, body = v1("update", {"oobCode": oob_code(email, "VERIFY_EMAIL")})
    assert status == 200 and body["emailVerified"] is True, body


def password_user(prefix):
    email = f"{prefix}-{uuid.uuid4().hex[:8]}@example.com"
    password = f"pw {uuid.uuid4().hex[:12]}"
    status, body = v1("signUp", {"email": email, "password": password, "returnSecureToken": True})
    assert status == 200, body
    return {"email": email, "password": password, "uid": body["localId"], "idToken": body["idToken"],
            "refreshToken": body["refreshToken"]}


def password_sign_in(user):
    return v1("signInWithPassword", {"email": user["email"], "password": user["password"], "returnSecureToken": True})


class Factor:
    """An enrolled (or enrolling) TOTP factor as an authenticator app holds it: pyotp over the session's parameters,
    and the last time step the server accepted (a step is accepted once)."""

    def __init__(self, session):
        self.secret = session["sharedSecretKey"]
        self.period = int(session["periodSec"])
        self.digits = int(session["verificationCodeLength"])
        self.algorithm = session["hashingAlgorithm"]
        digest = {"SHA1": hashlib.sha1, "SHA256": hashlib.sha256, "SHA512": hashlib.sha512}[self.algorithm]
        self.totp = pyotp.TOTP(self.secret, digits=self.digits, digest=digest, interval=self.period)
        self.last_step = None
        self.enrollment_id = None
        SECRETS.append(self.secret)

    def now_step(self):
        return int(time.time()) // self.period

    def code(self, step):
        return self.totp.at(step * self.period)

    def fresh_step(self):
        """The earliest step the server should accept now: the current one, or the one after the last used."""
        step = self.now_step()
        if self.last_step is not None and step <= self.last_step:
            step = self.last_step + 1
        return step

    def wrong_code(self, around=12):
        """A code of the right shape that no step near now produces."""
        valid = {self.code(self.now_step() + delta) for delta in range(-around, around + 1)}
        for candidate in ("000000", "123456", "999999", "314159", "271828"):
            candidate = candidate[:self.digits].ljust(self.digits, "0")
            if candidate not in valid:
                return candidate
        raise AssertionError("no wrong code found")


def settle(factor, margin=4.0):
    """Waits out the end of a time step, so a check about window edges does not straddle two steps."""
    left = factor.period - time.time() % factor.period
    if left < margin:
        time.sleep(left + 0.3)


def start_enrollment(id_token):
    status, body = v2("mfaEnrollment:start", {"idToken": id_token, "totpEnrollmentInfo": {}})
    assert status == 200, body
    return body["totpSessionInfo"]


def enroll(user, display_name="Authenticator", recovery=False, step_delta=0):
    """Enrolls a TOTP factor for `user` (whose ID token must be recent); returns the Factor and the answer."""
    session = start_enrollment(user["idToken"])
    factor = Factor(session)
    step = factor.now_step() + step_delta
    body = {"idToken": user["idToken"], "displayName": display_name,
            "totpVerificationInfo": {"sessionInfo": session["sessionInfo"], "verificationCode": factor.code(step)}}
    if recovery:
        body["generateRecoveryCodes"] = True
    status, answer = v2("mfaEnrollment:finalize", body)
    assert status == 200, answer
    factor.last_step = step
    user["idToken"], user["refreshToken"] = answer["idToken"], answer["refreshToken"]
    user["factor"] = factor
    status, found = v1("lookup", {"idToken": answer["idToken"]})
    assert status == 200, found
    infos = found["users"][0].get("mfaInfo", [])
    matching = [i for i in infos if i.get("displayName") == display_name]
    assert matching, found
    factor.enrollment_id = matching[-1]["mfaEnrollmentId"]
    return factor, answer, session


def finalize_totp(pending, factor, step=None, code=None, enrollment_id=None):
    step = factor.fresh_step() if step is None and code is None else step
    body = {"mfaPendingCredential": pending, "mfaEnrollmentId": enrollment_id or factor.enrollment_id,
            "totpVerificationInfo": {"verificationCode": code if code is not None else factor.code(step)}}
    status, answer = v2("mfaSignIn:finalize", body)
    if status == 200 and step is not None:
        factor.last_step = max(step, factor.last_step or step)
    return status, answer


def pending_of(status, body):
    """Asserts a first-factor answer of an enrolled user: no tokens, a pending credential and the factors."""
    assert status == 200, body
    assert "idToken" not in body and "refreshToken" not in body and "expiresIn" not in body, body
    assert isinstance(body.get("mfaPendingCredential"), str) and len(body["mfaPendingCredential"]) >= 16, body
    assert body.get("mfaInfo") and all("mfaEnrollmentId" in i and i.get("totpInfo") == {} for i in body["mfaInfo"]), body
    SECRETS.append(body["mfaPendingCredential"])
    return body["mfaPendingCredential"]


def microsoft_sign_in(email, name="MFA E2E"):
    """The dev Microsoft provider through Hearth's auth handler, as a browser would, then signInWithIdp."""
    browser = requests.Session()
    raw_session = uuid.uuid4().hex[:20].upper()
    params = {"apiKey": KEY, "appId": APP_ID, "authType": "signInWithRedirect", "providerId": "microsoft.com",
              "sessionId": hashlib.sha256(raw_session.encode()).hexdigest(), "eventId": uuid.uuid4().hex[:10],
              "redirectUrl": APP_REDIRECT}
    start = browser.get(f"{HANDLER}?{urlencode(params)}", allow_redirects=False, timeout=20)
    assert start.status_code in (302, 303), (start.status_code, start.text[:300])
    authorize = urljoin(BASE, start.headers["Location"])
    form = browser.get(authorize, timeout=20)
    request_id = re.search(r'name="request_id" value="([^"]+)"', form.text)
    assert request_id, form.text[:500]
    action = html.unescape(re.search(r'action="([^"]+)"', form.text).group(1))
    submitted = browser.post(urljoin(authorize, action), data={"request_id": request_id.group(1), "email": email, "name": name,
                                                              "action": "login"}, allow_redirects=False, timeout=20)
    assert submitted.status_code in (302, 303), (submitted.status_code, submitted.text[:300])
    callback = urljoin(BASE, submitted.headers["Location"])
    delivered = browser.get(callback, allow_redirects=False, timeout=30)
    assert delivered.status_code in (302, 303), (delivered.status_code, delivered.text[:500])
    target = delivered.headers["Location"]
    assert target.startswith(APP_REDIRECT), target
    query = parse_qs(urlparse(target).query)
    assert "link" in query, query
    return v1("signInWithIdp", {"requestUri": query["link"][0], "sessionId": raw_session, "returnSecureToken": True})


def mailbox_count(address):
    page = requests.get(f"{BASE}/__dev/mail", timeout=20)
    assert page.status_code == 200, page.status_code
    return html.unescape(page.text).count(address)


def skip(name, why):
    print(f"SKIP {name}: {why}")


state = {}
TOTP_ON = {"mfa": {"state": "ENABLED", "providerConfigs": [{"state": "ENABLED", "totpProviderConfig": {"adjacentIntervals": 5}}]}}


# --- the project setting -------------------------------------------------------------------------------------------

@check("config: GET /v2/projects/demo-hearth/config answers mfa {state: DISABLED} before it is set")
def _():
    response = requests.get(CONFIG, headers=ADMIN, timeout=20)
    assert response.status_code == 200, response.text
    mfa = response.json().get("mfa")
    assert mfa is not None and mfa.get("state") == "DISABLED", response.json()


@check("enrollment while TOTP is off: OPERATION_NOT_ALLOWED (a verified user with a fresh token)")
def _():
    user = password_user("off")
    verify_email(user["idToken"], user["email"])
    expect_error("OPERATION_NOT_ALLOWED", *v2("mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}))


@check("config: PATCH ?updateMask=mfa with the REST body (adjacentIntervals 3) turns TOTP on; GET returns it")
def _():
    body = json.loads(json.dumps(TOTP_ON))
    body["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] = 3
    response = requests.patch(f"{CONFIG}?updateMask=mfa", json=body, headers=ADMIN, timeout=20)
    assert response.status_code == 200, response.text
    assert response.json()["mfa"]["state"] == "ENABLED", response.json()
    got = requests.get(CONFIG, headers=ADMIN, timeout=20).json()["mfa"]
    assert got["state"] == "ENABLED", got
    totp = [p for p in got["providerConfigs"] if "totpProviderConfig" in p]
    assert totp and totp[0]["state"] == "ENABLED" and totp[0]["totpProviderConfig"]["adjacentIntervals"] == 3, got


@check("config: the Node Admin SDK's updateProjectConfig({multiFactorConfig}) request (updateMask=mfa.state,mfa.providerConfigs) sets adjacentIntervals 5")
def _():
    # What firebase-admin-node sends: ProjectConfig.buildServerRequest → {mfa: {state, providerConfigs}} and
    # utils.generateUpdateMask (arrays are leaves) → "mfa.state,mfa.providerConfigs".
    response = requests.patch(f"{CONFIG}?updateMask=mfa.state,mfa.providerConfigs", json=TOTP_ON, headers=ADMIN, timeout=20)
    assert response.status_code == 200, response.text
    got = requests.get(CONFIG, headers=ADMIN, timeout=20).json()["mfa"]
    totp = [p for p in got["providerConfigs"] if "totpProviderConfig" in p]
    assert got["state"] == "ENABLED" and totp[0]["totpProviderConfig"]["adjacentIntervals"] == 5, got


@check("config: adjacentIntervals 11, -1 and \"x\", MANDATORY and an unknown provider (EMAIL_OTP) are refused (400 INVALID_CONFIG, Google's envelope); the setting stays")
def _():
    for value in (11, -1, "x"):
        body = json.loads(json.dumps(TOTP_ON))
        body["mfa"]["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] = value
        response = requests.patch(f"{CONFIG}?updateMask=mfa", json=body, headers=ADMIN, timeout=20)
        assert response.status_code == 400, (value, response.status_code, response.text)
        error = response.json()["error"]
        assert error["code"] == 400 and error["message"].startswith("INVALID_CONFIG"), (value, response.text)
        assert error["errors"][0]["message"] == error["message"], response.text
    for mfa in ({"state": "MANDATORY", "providerConfigs": TOTP_ON["mfa"]["providerConfigs"]},
                {"state": "ENABLED", "enabledProviders": ["EMAIL_OTP"], "providerConfigs": TOTP_ON["mfa"]["providerConfigs"]}):
        response = requests.patch(f"{CONFIG}?updateMask=mfa", json={"mfa": mfa}, headers=ADMIN, timeout=20)
        assert response.status_code == 400, (mfa, response.text)
        assert response.json()["error"]["message"].startswith("INVALID_CONFIG"), response.text
    got = requests.get(CONFIG, headers=ADMIN, timeout=20).json()["mfa"]
    totp = [p for p in got["providerConfigs"] if "totpProviderConfig" in p]
    assert got["state"] == "ENABLED" and totp[0]["totpProviderConfig"]["adjacentIntervals"] == 5, got


@check("config: without admin credentials the PATCH is refused (401)")
def _():
    response = requests.patch(f"{CONFIG}?updateMask=mfa", json=TOTP_ON, timeout=20)
    assert response.status_code == 401, response.text


# --- enrollment ----------------------------------------------------------------------------------------------------

@check("enrollment refusals: unverified email → UNVERIFIED_EMAIL; a phone factor refused; no ID token refused")
def _():
    user = password_user("unverified")
    expect_error("UNVERIFIED_EMAIL", *v2("mfaEnrollment:start", {"idToken": user["idToken"], "totpEnrollmentInfo": {}}))
    verify_email(user["idToken"], user["email"])
    status, body = v2("mfaEnrollment:start", {"idToken": user["idToken"], "phoneEnrollmentInfo": {"phoneNumber": "+15555550100"}})
    assert status == 400 and "totpSessionInfo" not in body and "phoneSessionInfo" not in body, body
    status, body = v2("mfaEnrollment:start", {"totpEnrollmentInfo": {}})
    assert status in (400, 401) and "totpSessionInfo" not in body, body


@check("mfaEnrollment:start answers totpSessionInfo (base32 secret of ≥ 16 bytes, 6 digits, SHA1, 30 s, a deadline ~10 min ahead)")
def _():
    user = password_user("ada")
    verify_email(user["idToken"], user["email"])
    state["a"] = user
    session = start_enrollment(user["idToken"])
    secret = session["sharedSecretKey"]
    SECRETS.append(secret)
    assert re.fullmatch(r"[A-Z2-7]+=*", secret), secret
    assert len(base64.b32decode(secret + "=" * (-len(secret) % 8))) >= 16, secret
    assert session["verificationCodeLength"] == 6 and session["hashingAlgorithm"] == "SHA1" and session["periodSec"] == 30, session
    assert session["sessionInfo"], session
    deadline = datetime.datetime.fromisoformat(session["finalizeEnrollmentTime"].replace("Z", "+00:00"))
    ahead = (deadline - datetime.datetime.now(datetime.timezone.utc)).total_seconds()
    assert 60 < ahead <= 15 * 60, session


@check("mfaEnrollment:finalize refuses a wrong code (INVALID_CODE), an unknown session and another user's session (INVALID_SESSION_INFO)")
def _():
    user = password_user("refused")
    verify_email(user["idToken"], user["email"])
    session = start_enrollment(user["idToken"])
    factor = Factor(session)
    expect_error("INVALID_CODE", *v2("mfaEnrollment:finalize", {
        "idToken": user["idToken"], "displayName": "x",
        "totpVerificationInfo": {"sessionInfo": session["sessionInfo"], "verificationCode": factor.wrong_code()}}))
    expect_error("INVALID_SESSION_INFO", *v2("mfaEnrollment:finalize", {
        "idToken": user["idToken"], "displayName": "x",
        "totpVerificationInfo": {"sessionInfo": "not-a-session-" + uuid.uuid4().hex, "verificationCode": factor.code(factor.now_step())}}))
    # Another user's session, with that session's valid code: still refused for this user.
    other = password_user("other")
    verify_email(other["idToken"], other["email"])
    theirs = start_enrollment(other["idToken"])
    their_factor = Factor(theirs)
    expect_error("INVALID_SESSION_INFO", *v2("mfaEnrollment:finalize", {
        "idToken": user["idToken"], "displayName": "x",
        "totpVerificationInfo": {"sessionInfo": theirs["sessionInfo"], "verificationCode": their_factor.code(their_factor.now_step())}}))
    status, found = v1("lookup", {"idToken": user["idToken"]})
    assert status == 200 and not found["users"][0].get("mfaInfo"), found


@check("mfaEnrollment:finalize with pyotp's code from the previous window and generateRecoveryCodes: tokens, totpAuthInfo {}, ten recovery codes")
def _():
    user = state["a"]
    factor, answer, _ = enroll(user, display_name="Phone app", recovery=True, step_delta=-1)
    assert answer.get("totpAuthInfo") == {}, answer
    codes = answer.get("recoveryCodes")
    assert isinstance(codes, list) and len(codes) == 10 and len(set(codes)) == 10, answer
    assert all(re.fullmatch(r"[23456789abcdefghjkmnpqrstuvwxyz]{5}-[23456789abcdefghjkmnpqrstuvwxyz]{5}", c) for c in codes), codes
    SECRETS.extend(codes)
    state["a_codes"] = codes
    claims = verify(answer["idToken"])
    assert claims["firebase"].get("sign_in_second_factor") == "totp", claims
    assert claims["firebase"].get("second_factor_identifier") == factor.enrollment_id, claims


@check("accounts:lookup carries mfaInfo in Firebase's shape (id, displayName, enrolledAt with three fraction digits, totpInfo {}), no secret")
def _():
    user = state["a"]
    status, found = v1("lookup", {"idToken": user["idToken"]})
    assert status == 200, found
    record = found["users"][0]
    assert record["emailVerified"] is True, record
    [info] = record["mfaInfo"]
    assert info["mfaEnrollmentId"] == user["factor"].enrollment_id and info["displayName"] == "Phone app", info
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", info["enrolledAt"]), info
    assert info["totpInfo"] == {} and "phoneInfo" not in info, info
    assert user["factor"].secret not in json.dumps(found), found


# --- sign-in -------------------------------------------------------------------------------------------------------

@check("password sign-in of an enrolled user: no tokens, mfaPendingCredential + mfaInfo beside localId and email")
def _():
    user = state["a"]
    status, body = password_sign_in(user)
    state["a_pending"] = pending_of(status, body)
    assert body["localId"] == user["uid"] and body["email"] == user["email"], body
    assert [i["mfaEnrollmentId"] for i in body["mfaInfo"]] == [user["factor"].enrollment_id], body
    assert body["mfaInfo"][0]["displayName"] == "Phone app", body


@check("mfaSignIn:start refuses (TOTP needs no start; no phone factors)")
def _():
    user = state["a"]
    status, body = v2("mfaSignIn:start", {"mfaPendingCredential": state["a_pending"], "mfaEnrollmentId": user["factor"].enrollment_id,
                                          "phoneSignInInfo": {"phoneNumber": "+15555550100"}})
    assert status == 400 and "phoneResponseInfo" not in body, body


@check("mfaSignIn:finalize refusals: a wrong code (INVALID_CODE), an unknown factor, no factor id, an unknown or missing pending credential; the pending credential survives them")
def _():
    # A user of its own: wrong codes count towards the attempt limit.
    user = password_user("wrong")
    verify_email(user["idToken"], user["email"])
    factor, _, _ = enroll(user, display_name="Refusals")
    pending = pending_of(*password_sign_in(user))
    expect_error("INVALID_CODE", *finalize_totp(pending, factor, code=factor.wrong_code()))
    expect_error("MFA_ENROLLMENT_NOT_FOUND", *finalize_totp(pending, factor, code=factor.wrong_code(), enrollment_id="no-such-factor"))
    expect_error({"MISSING_MFA_ENROLLMENT_ID", "MFA_ENROLLMENT_NOT_FOUND"},
                 *v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "totpVerificationInfo": {"verificationCode": factor.wrong_code()}}))
    expect_error("INVALID_MFA_PENDING_CREDENTIAL", *finalize_totp("bogus-" + uuid.uuid4().hex, factor, code=factor.wrong_code()))
    expect_error("MISSING_MFA_PENDING_CREDENTIAL", *v2("mfaSignIn:finalize", {
        "mfaEnrollmentId": factor.enrollment_id, "totpVerificationInfo": {"verificationCode": factor.wrong_code()}}))
    status, answer = finalize_totp(pending, factor)
    assert status == 200 and answer["idToken"], answer
    # The pending credential is single use.
    expect_error("INVALID_MFA_PENDING_CREDENTIAL", *finalize_totp(pending, factor, code=factor.code(factor.fresh_step())))


@check("mfaSignIn:finalize with pyotp's current code: tokens; the ID token (google-auth, firebase-admin) has sign_in_second_factor totp and second_factor_identifier")
def _():
    user, factor = state["a"], state["a"]["factor"]
    status, answer = finalize_totp(state["a_pending"], factor)
    assert status == 200 and answer["idToken"] and answer["refreshToken"], answer
    claims = verify(answer["idToken"])
    assert claims["sub"] == user["uid"], claims
    assert claims["firebase"]["sign_in_provider"] == "password", claims
    assert claims["firebase"]["sign_in_second_factor"] == "totp", claims
    assert claims["firebase"]["second_factor_identifier"] == factor.enrollment_id, claims
    user["idToken"], user["refreshToken"] = answer["idToken"], answer["refreshToken"]
    state["a_used_code"] = (factor.last_step, factor.code(factor.last_step))


@check("a replayed code (the step just used) is refused with INVALID_CODE; the next step's code then works on the same pending credential")
def _():
    user, factor = state["a"], state["a"]["factor"]
    pending = pending_of(*password_sign_in(user))
    step, code = state["a_used_code"]
    expect_error("INVALID_CODE", *finalize_totp(pending, factor, code=code))
    status, answer = finalize_totp(pending, factor)
    assert status == 200 and answer["idToken"], answer
    assert factor.last_step > step


@check("refresh keeps sign_in_second_factor and second_factor_identifier")
def _():
    user, factor = state["a"], state["a"]["factor"]
    status, body = refresh(user["refreshToken"])
    assert status == 200, body
    claims = verify(body["id_token"])
    assert claims["firebase"]["sign_in_second_factor"] == "totp", claims
    assert claims["firebase"]["second_factor_identifier"] == factor.enrollment_id, claims
    user["refreshToken"] = body["refresh_token"]


@check("email-link sign-in of an enrolled user also answers mfaPendingCredential; finalize completes it")
def _():
    user, factor = state["a"], state["a"]["factor"]
    status, body = v1("sendOobCode", {"requestType": "EMAIL_SIGNIN", "email": user["email"], "continueUrl": "http://localhost/done",
                                      "canHandleCodeInApp": True})
    assert status == 200, body
    status, body = v1("signInWithEmailLink", {"email": user["email"], "oobCode": oob_code(user["email"], "EMAIL_SIGNIN")})
    pending = pending_of(status, body)
    status, answer = finalize_totp(pending, factor)
    assert status == 200, answer
    claims = verify(answer["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "password" and claims["firebase"]["sign_in_second_factor"] == "totp", claims


@check("a recovery code (no mfaEnrollmentId) completes a sign-in once; the same code again is refused; another works typed in upper case with spaces")
def _():
    user, factor = state["a"], state["a"]["factor"]
    codes = state["a_codes"]
    pending = pending_of(*password_sign_in(user))
    status, answer = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "recoveryCodeVerificationInfo": {"recoveryCode": codes[0]}})
    assert status == 200 and answer["idToken"], answer
    claims = verify(answer["idToken"])
    assert claims["firebase"]["sign_in_second_factor"] == "totp", claims
    assert claims["firebase"]["second_factor_identifier"] == factor.enrollment_id, claims
    pending = pending_of(*password_sign_in(user))
    status, again = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "recoveryCodeVerificationInfo": {"recoveryCode": codes[0]}})
    assert status == 400 and "idToken" not in again, again
    typed = codes[1].upper().replace("-", " ")
    status, other = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "recoveryCodeVerificationInfo": {"recoveryCode": typed}})
    assert status == 200 and other["idToken"], other
    user["idToken"], user["refreshToken"] = other["idToken"], other["refreshToken"]


@check("accounts/mfaRecoveryCodes:generate (Hearth): ten new codes; an unused code of the old set stops working, a new one works")
def _():
    user = state["a"]
    old = state["a_codes"]
    status, body = v2("mfaRecoveryCodes:generate", {"idToken": user["idToken"]})
    assert status == 200, body
    codes = body["recoveryCodes"]
    assert len(codes) == 10 and not set(codes) & set(old), body
    SECRETS.extend(codes)
    state["a_codes"] = codes
    pending = pending_of(*password_sign_in(user))
    status, refused = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "recoveryCodeVerificationInfo": {"recoveryCode": old[2]}})
    assert status == 400 and "idToken" not in refused, refused
    status, answer = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "recoveryCodeVerificationInfo": {"recoveryCode": codes[0]}})
    assert status == 200 and answer["idToken"], answer
    user["idToken"], user["refreshToken"] = answer["idToken"], answer["refreshToken"]
    # Without a factor there is nothing to recover: a user without one is refused.
    plain = password_user("plain")
    status, body = v2("mfaRecoveryCodes:generate", {"idToken": plain["idToken"]})
    assert status == 400 and "recoveryCodes" not in body, body


@check("firebase-admin get_user: the raw record's mfaInfo has the factor (id, displayName, enrolledAt .SSSZ, totpInfo {}), and no secret anywhere")
def _():
    user, factor = state["a"], state["a"]["factor"]
    record = auth.get_user(user["uid"], app=APP)
    [info] = record._data["mfaInfo"]  # firebase-admin (Python) 7.7 has no MFA fields: the record as the server sent it
    assert info["mfaEnrollmentId"] == factor.enrollment_id and info["displayName"] == "Phone app", info
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", info["enrolledAt"]), info
    assert info["totpInfo"] == {}, info
    # What the Node Admin SDK makes of it (UserRecord.multiFactor.enrolledFactors): factorId from the member's kind.
    assert set(info) <= {"mfaEnrollmentId", "displayName", "enrolledAt", "totpInfo"}, info
    dumped = json.dumps(record._data)
    for secret in [factor.secret, *state["a_codes"]]:
        assert secret not in dumped, "a secret in the admin record"
    assert not re.search(r"secret|recoveryCode", dumped, re.IGNORECASE), record._data
    status, found = admin_v1("lookup", {"localId": [user["uid"]]})
    assert status == 200 and found["users"][0]["mfaInfo"] == [info], found


@check("a custom token of an enrolled user signs in without a second factor (as at Firebase)")
def _():
    user = state["a"]
    token = auth.create_custom_token(user["uid"], app=APP)
    status, body = v1("signInWithCustomToken", {"token": token.decode(), "returnSecureToken": True})
    assert status == 200 and body["idToken"] and "mfaPendingCredential" not in body, body
    claims = verify(body["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "custom" and "sign_in_second_factor" not in claims["firebase"], claims


# --- the Microsoft dev IdP -----------------------------------------------------------------------------------------

@check("Microsoft (dev IdP): a user with that identity and a TOTP factor gets mfaPendingCredential from signInWithIdp; finalize signs in")
def _():
    email = f"mfa-{uuid.uuid4().hex[:6]}@contoso.com"
    status, body = microsoft_sign_in(email)
    assert status == 200 and body["idToken"] and body["providerId"] == "microsoft.com", body
    user = {"email": email, "uid": body["localId"], "idToken": body["idToken"], "refreshToken": body["refreshToken"]}
    status, found = v1("lookup", {"idToken": user["idToken"]})
    if not found["users"][0].get("emailVerified"):
        verify_email(user["idToken"], email)
    factor, _, _ = enroll(user, display_name="Work phone")
    state["m"] = user
    status, body = microsoft_sign_in(email)
    pending = pending_of(status, body)
    assert body["localId"] == user["uid"] and body.get("providerId") == "microsoft.com", body
    assert [i["mfaEnrollmentId"] for i in body["mfaInfo"]] == [factor.enrollment_id], body
    status, answer = finalize_totp(pending, factor)
    assert status == 200, answer
    claims = verify(answer["idToken"])
    assert claims["firebase"]["sign_in_provider"] == "microsoft.com", claims
    assert claims["firebase"]["sign_in_second_factor"] == "totp" and claims["firebase"]["second_factor_identifier"] == factor.enrollment_id, claims
    assert claims["firebase"]["identities"]["microsoft.com"], claims


# --- attacks -------------------------------------------------------------------------------------------------------

@check("attack: another user's pending credential with my factor id and my valid code is refused")
def _():
    mine, theirs = state["a"], state["m"]
    pending = pending_of(*v1("signInWithPassword", {"email": mine["email"], "password": mine["password"], "returnSecureToken": True}))
    # The attacker (M) holds A's pending credential (A's password known) and tries M's own factor and code with it.
    factor = theirs["factor"]
    status, body = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending, "mfaEnrollmentId": factor.enrollment_id,
                                             "totpVerificationInfo": {"verificationCode": factor.code(factor.fresh_step())}})
    expect_error({"MFA_ENROLLMENT_NOT_FOUND", "INVALID_MFA_PENDING_CREDENTIAL", "INVALID_CODE"}, status, body)
    # …and M's pending credential with A's factor id and A's code.
    settle(factor)
    status, body = microsoft_sign_in(theirs["email"])
    their_pending = pending_of(status, body)
    a_factor = mine["factor"]
    status, body = v2("mfaSignIn:finalize", {"mfaPendingCredential": their_pending, "mfaEnrollmentId": a_factor.enrollment_id,
                                             "totpVerificationInfo": {"verificationCode": a_factor.code(a_factor.fresh_step())}})
    expect_error({"MFA_ENROLLMENT_NOT_FOUND", "INVALID_MFA_PENDING_CREDENTIAL", "INVALID_CODE"}, status, body)
    # The rightful owner still completes A's own pending sign-in.
    status, answer = finalize_totp(pending, a_factor)
    assert status == 200, answer


@check("clock skew: with adjacentIntervals 5 a code 6 steps ahead is refused and one 5 steps ahead accepted; older steps then refused")
def _():
    user = password_user("skew")
    verify_email(user["idToken"], user["email"])
    factor, _, _ = enroll(user, display_name="Skewed")
    state["e"] = user
    settle(factor, margin=6)
    now = factor.now_step()
    pending = pending_of(*password_sign_in(user))
    expect_error("INVALID_CODE", *finalize_totp(pending, factor, code=factor.code(now + 6)))
    status, answer = finalize_totp(pending, factor, step=now + 5)
    assert status == 200 and answer["idToken"], answer
    pending = pending_of(*password_sign_in(user))
    expect_error("INVALID_CODE", *finalize_totp(pending, factor, code=factor.code(now + 4)))
    state["e_pending"] = pending


@check("brute force: wrong codes past the limit → TOO_MANY_ATTEMPTS_TRY_LATER (per user: another user still signs in)")
def _():
    user, factor = state["e"], state["e"]["factor"]
    pending = state["e_pending"]
    seen = []
    for _ in range(8):
        status, body = finalize_totp(pending, factor, code=factor.wrong_code())
        seen.append(error_of(status, body))
        if seen[-1] == "TOO_MANY_ATTEMPTS_TRY_LATER":
            break
    assert seen[-1] == "TOO_MANY_ATTEMPTS_TRY_LATER", seen
    assert set(seen[:-1]) <= {"INVALID_CODE"}, seen
    # After 5 wrong codes within 15 minutes the next attempt is refused. A right code clears the earlier failures (as
    # for passwords), so one wrong code counts from the skew check: its replay after the accepted code.
    assert 1 + len(seen) - 1 == 5, seen
    # A fresh pending credential does not reset the count.
    pending = pending_of(*password_sign_in(user))
    expect_error("TOO_MANY_ATTEMPTS_TRY_LATER", *finalize_totp(pending, factor, code=factor.wrong_code()))
    # Another user is not affected.
    other = state["m"]
    status, body = microsoft_sign_in(other["email"])
    status, answer = finalize_totp(pending_of(status, body), other["factor"])
    assert status == 200, answer
    state["m_later_refresh"] = answer["refreshToken"]


skip("an expired pending credential (5 minutes)", "the server has no test clock hook in --dev; MultiFactorTests in the Swift suite cover it")
skip("withdraw without a recent login (5 minutes)", "an ID token cannot be aged from outside; the Swift tests cover CREDENTIAL_TOO_OLD_LOGIN_AGAIN")


# --- withdraw, admin removal ---------------------------------------------------------------------------------------

@check("mfaEnrollment:withdraw: an unknown id → MFA_ENROLLMENT_NOT_FOUND; the owner withdraws the factor, gets fresh tokens; the user's other sessions end")
def _():
    user, factor = state["m"], state["m"]["factor"]
    # The caller's own session (the enrollment's), and another device's session begun after it (the brute-force
    # check's sign-in with the factor): both must end, as the contract says ("the user's other sessions end").
    own_refresh, later_refresh = user["refreshToken"], state["m_later_refresh"]
    expect_error("MFA_ENROLLMENT_NOT_FOUND", *v2("mfaEnrollment:withdraw", {"idToken": user["idToken"], "mfaEnrollmentId": "no-such-factor"}))
    status, body = v2("mfaEnrollment:withdraw", {"idToken": user["idToken"], "mfaEnrollmentId": factor.enrollment_id})
    assert status == 200 and body["idToken"] and body["refreshToken"], body
    status, found = v1("lookup", {"idToken": body["idToken"]})
    assert status == 200 and not found["users"][0].get("mfaInfo"), found
    claims = verify(body["idToken"])
    assert "sign_in_second_factor" not in claims["firebase"], claims
    for old_refresh in (own_refresh, later_refresh):
        status, refreshed = refresh(old_refresh)
        expect_error("TOKEN_EXPIRED", status, refreshed)
    status, refreshed = refresh(body["refreshToken"])
    assert status == 200, refreshed
    status, again = microsoft_sign_in(user["email"])
    assert status == 200 and again["idToken"] and "mfaPendingCredential" not in again, again


@check("admin: accounts:update with mfa.enrollments naming an unknown factor → MFA_ENROLLMENT_NOT_FOUND")
def _():
    user = state["a"]
    status, body = admin_v1("update", {"localId": user["uid"], "mfa": {"enrollments": [{"mfaEnrollmentId": "no-such-factor"}]}})
    expect_error("MFA_ENROLLMENT_NOT_FOUND", status, body)


@check("admin: accounts:update {localId, mfa: {}} (the Node Admin SDK's body) removes the factors, ends sessions (TOKEN_EXPIRED) and mails the user")
def _():
    user = state["a"]
    before = mailbox_count(user["email"])
    status, body = admin_v1("update", {"localId": user["uid"], "mfa": {}})
    assert status == 200, body
    record = auth.get_user(user["uid"], app=APP)
    assert not record._data.get("mfaInfo"), record._data
    status, refreshed = refresh(user["refreshToken"])
    expect_error("TOKEN_EXPIRED", status, refreshed)
    for _ in range(50):
        if mailbox_count(user["email"]) > before:
            break
        time.sleep(0.1)
    assert mailbox_count(user["email"]) > before, "no message to the user in the dev mailbox"
    status, body = password_sign_in(user)
    assert status == 200 and body["idToken"] and "mfaPendingCredential" not in body, body
    # The recovery codes went with the last factor: none left to use, and none are asked for.


@check("import: accounts:batchCreate of a user with a TOTP mfaInfo entry is refused (its secret cannot be imported)")
def _():
    uid = f"imp-{uuid.uuid4().hex[:8]}"
    status, body = admin_v1("batchCreate", {"users": [{"localId": uid, "email": f"{uid}@example.com", "mfaInfo": [
        {"mfaEnrollmentId": "imported-1", "displayName": "x", "enrolledAt": "2026-01-01T00:00:00.000Z", "totpInfo": {}}]}]})
    assert status == 400 or body.get("error"), body
    status, found = admin_v1("lookup", {"localId": [uid]})
    assert status == 200 and not any(u.get("mfaInfo") for u in found.get("users", [])), found


@check("audit log: mfa.enroll, mfa.recovery_codes, mfa.recovery_code_used, mfa.withdraw, mfa.remove recorded; no secret or recovery code in it")
def _():
    response = requests.get(f"{V1}/projects/{PROJECT}/auditLog?pageSize=1000", headers=ADMIN, timeout=20)
    assert response.status_code == 200, response.text
    actions = {e["action"] for e in response.json()["entries"]}
    assert {"mfa.enroll", "mfa.recovery_codes", "mfa.recovery_code_used", "mfa.withdraw", "mfa.remove"} <= actions, actions
    for secret in SECRETS:
        assert secret not in response.text, "a secret in the audit log"


# --- the server log ------------------------------------------------------------------------------------------------

stop_server()
with open(LOG_PATH) as handle:
    log = handle.read()


@check("no TOTP secret, recovery code or pending credential in the server log")
def _():
    assert SECRETS, "nothing was handed out"
    leaked = [s for s in SECRETS if s in log or s.replace("-", "") in log]
    assert not leaked, f"{len(leaked)} of {len(SECRETS)} secret values in {LOG_PATH}"



@check("at rest: no TOTP secret, recovery code or pending credential in the SQLite files; totp-secrets.key is mode 600")
def _():
    data = os.path.join(work, "data")
    stored = b""
    for name in ("hearth.sqlite", "hearth.sqlite-wal"):
        path = os.path.join(data, name)
        if os.path.exists(path):
            with open(path, "rb") as handle:
                stored += handle.read()
    assert len(stored) > 10000, "no database found"
    # A control: what is stored in the clear (an email address) is found by this search.
    assert state["a"]["email"].encode() in stored, "the search does not see stored text"
    found = [s for s in SECRETS if s.encode() in stored or s.replace("-", "").encode() in stored]
    assert not found, f"{len(found)} of {len(SECRETS)} secret values stored in the clear"
    key = os.path.join(data, "totp-secrets.key")
    assert os.path.exists(key) and os.stat(key).st_mode & 0o777 == 0o600, "no totp-secrets.key (mode 600)"


finish("mfa")
