"""Phone sign-in and SMS second factors end to end (issue 40), against a real `hearth serve` and stand-ins written
here: a Twilio Messages API stand-in (it checks the Basic auth, the path with the account SID and the form fields
To/From/Body, and records each message) and a reCAPTCHA `siteverify` stand-in.

Usage: phone.py HEARTH_BINARY PORT [SCREENSHOT_DIR]
Starts `hearth serve --dev` (project demo-hearth) on PORT with `--sms-url twilio+http://AC…:token@127.0.0.1:<stand-in>
?from=…`, then, for the production checks, `hearth serve` without --dev for the project hearth-phone-e2e on PORT-1.
Checks:
- firebase-admin (emulator mode): phone users created, read (`get_user_by_phone_number`, `get_users` by phone), listed,
  changed and removed; a formatted number normalised to E.164; a taken number refused; `import_users` with phone numbers;
  phone second factors through the REST import (`mfaInfo[].phoneInfo`) and the admin update, read back;
- the project config through the admin API (`signIn.phoneNumber.enabled|testPhoneNumbers`, `smsRegionConfig`, Hearth's
  `sms`, `mfa.enabledProviders: ["PHONE_SMS"]`), its refusals with Google's envelope, the reCAPTCHA secret never shown,
  the audit log naming the changed paths;
- phone sign-up and sign-in through REST with the code read from the message the Twilio stand-in received (the text,
  the number, the sender), the ID token's `phone_number` and `sign_in_provider` (verified with firebase-admin), v3's
  `verifyPhoneNumber`; the emulator's `verificationCodes` listing; a replayed code refused; a burst of wrong codes held to
  the per-session limit;
- app verification: the reCAPTCHA stand-in's good, bad and low-score tokens and a missing token;
- a disallowed region refused before anything is sent; a test number never sent, its fixed code signing in; the daily
  budget stopping sends (QUOTA_EXCEEDED, nothing sent);
- SMS as a second factor: enrollment and sign-in with codes from the stand-in, the number masked in the sign-in answer;
- a production project (no --dev): every send refused until app verification is configured or turned off explicitly
  (`hearth project sms set --no-app-verification`), then a code reaches the stand-in; `hearth project sms show`;
- the console in headless Chromium: the Phone page, a test number added by clicking, the users list's Phone column, the
  Overview's budget banner (screenshots into SCREENSHOT_DIR when given: docs/images/console-phone*.png);
- no code, auth token or reCAPTCHA secret in the server logs.
Prints one line per check and 'phone: N passed, M failed'; exits non-zero on any failure.
"""
import base64
import json
import os
import re
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

import requests

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
PROJECT = "demo-hearth"
KEY = "phone-e2e-key"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
V3 = f"{BASE}/www.googleapis.com/identitytoolkit/v3/relyingparty"
CONFIG = f"{V2}/projects/{PROJECT}/config"
ADMIN = {"Authorization": "Bearer owner"}
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
from firebase_admin import auth  # noqa: E402
from checks import check, finish, record_failure  # noqa: E402
from hearth_server import save_page_screenshots, start_server  # noqa: E402

ACCOUNT_SID = "AC" + uuid.uuid4().hex
AUTH_TOKEN = "tw-" + uuid.uuid4().hex
SENDER = "+15005550006"
RECAPTCHA_SECRET = "rc-secret-" + uuid.uuid4().hex
SECRETS = [AUTH_TOKEN, RECAPTCHA_SECRET]
CODES = []  # every code the server handed out: none may reach a log


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


# --- the Twilio stand-in ---------------------------------------------------------------------------------------------

class Twilio:
    """Twilio's Messages API as Hearth calls it: `POST /2010-04-01/Accounts/<SID>/Messages.json`, Basic auth
    `<SID>:<token>`, a form with To, From (or MessagingServiceSid) and Body. Records every request (accepted or not);
    answers 201 with a message resource, 401 for wrong credentials, 404 for another account's path."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []
        self.refusals = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length).decode()
                form = {k: v[0] for k, v in parse_qs(raw, keep_blank_values=True).items()}
                record = {"path": self.path, "auth": self.headers.get("Authorization"),
                          "type": self.headers.get("Content-Type", ""), "form": form, "at": time.time()}
                expected_auth = "Basic " + base64.b64encode(f"{ACCOUNT_SID}:{AUTH_TOKEN}".encode()).decode()
                if record["auth"] != expected_auth:
                    standin.note_refusal(record, "auth")
                    return self.answer(401, {"code": 20003, "message": "Authenticate", "status": 401})
                if self.path != f"/2010-04-01/Accounts/{ACCOUNT_SID}/Messages.json":
                    standin.note_refusal(record, "path")
                    return self.answer(404, {"code": 20404, "message": "The requested resource was not found", "status": 404})
                if not form.get("To") or not form.get("Body") or not (form.get("From") or form.get("MessagingServiceSid")):
                    standin.note_refusal(record, "form")
                    return self.answer(400, {"code": 21604, "message": "A 'To' phone number is required.", "status": 400})
                with standin.lock:
                    standin.requests.append(record)
                self.answer(201, {"sid": "SM" + uuid.uuid4().hex, "status": "queued", "to": form["To"], "from": form.get("From"),
                                  "body": form["Body"], "account_sid": ACCOUNT_SID})

            def answer(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def note_refusal(self, record, why):
        with self.lock:
            self.refusals.append((why, record))

    def messages_to(self, number):
        with self.lock:
            return [r for r in self.requests if r["form"].get("To") == number]

    def count(self):
        with self.lock:
            return len(self.requests)

    def wait_for(self, number, after=0, timeout=30):
        """The first message to `number` beyond the first `after` ones, waited for (the outbox sends off the request path)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            messages = self.messages_to(number)
            if len(messages) > after:
                return messages[after]
            time.sleep(0.1)
        raise AssertionError(f"no message to {number} within {timeout}s; refusals: {self.refusals[-3:]}")

    def url(self):
        return f"twilio+http://{ACCOUNT_SID}:{AUTH_TOKEN}@127.0.0.1:{self.port}?from=%2B{SENDER[1:]}"


class Recaptcha:
    """reCAPTCHA's siteverify as Hearth calls it: a form POST of secret, response, remoteip. Tokens: `good` (score
    0.9), `low` (score 0.1), anything else refused; a wrong secret is `invalid-input-secret`."""

    def __init__(self):
        self.calls = []
        standin = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                form = {k: v[0] for k, v in parse_qs(self.rfile.read(length).decode(), keep_blank_values=True).items()}
                standin.calls.append(form)
                if form.get("secret") != RECAPTCHA_SECRET:
                    body = {"success": False, "error-codes": ["invalid-input-secret"]}
                elif form.get("response") == "good":
                    body = {"success": True, "score": 0.9, "action": "sendVerificationCode", "hostname": "localhost"}
                elif form.get("response") == "low":
                    body = {"success": True, "score": 0.1, "action": "sendVerificationCode", "hostname": "localhost"}
                else:
                    body = {"success": False, "error-codes": ["invalid-input-response"]}
                data = json.dumps(body).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/recaptcha/api/siteverify"


TWILIO = Twilio()
RECAPTCHA = Recaptcha()
work = tempfile.mkdtemp(prefix="hearth-phone-e2e-")
server, LOG_PATH, stop_server = start_server(HEARTH, PORT, work, BASE, extra=("--sms-url", TWILIO.url()))
APP = firebase_admin.initialize_app(options={"projectId": PROJECT}, name="phone-e2e")


# --- helpers -------------------------------------------------------------------------------------------------------

def v1(method, body, base=V1, key=KEY):
    response = requests.post(f"{base}/accounts:{method}?key={key}", json=body, timeout=30)
    return response.status_code, response.json()


def v2(method, body):
    response = requests.post(f"{V2}/accounts/{method}?key={KEY}", json=body, timeout=30)
    return response.status_code, response.json()


def admin_v1(method, body):
    response = requests.post(f"{V1}/projects/{PROJECT}/accounts:{method}", json=body, headers=ADMIN, timeout=30)
    return response.status_code, response.json()


def patch_config(body, mask):
    response = requests.patch(f"{CONFIG}?updateMask={mask}", json=body, headers=ADMIN, timeout=30)
    return response.status_code, response.json()


def get_config():
    response = requests.get(CONFIG, headers=ADMIN, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()


def error_of(status, body, expected_status=400):
    assert status == expected_status, (status, body)
    error = body["error"]
    assert error["code"] == expected_status and isinstance(error["message"], str), body
    return error["message"]


def expect_error(code, status, body, expected_status=400):
    message = error_of(status, body, expected_status)
    assert message.split(" : ")[0].strip() == code, f"expected {code}, got {message!r}"
    assert "idToken" not in body and "sessionInfo" not in body, body
    return message


SENT = [0]  # codes Hearth sent for real (counted against the daily budget)


def send_code(number, **fields):
    status, body = v1("sendVerificationCode", {"phoneNumber": number, **fields})
    if status == 200:
        SENT[0] += 1
    return status, body


def code_from(message):
    match = re.fullmatch(r"(\d{6}) is your verification code for (.+)\.", message["form"]["Body"])
    assert match, message["form"]["Body"]
    CODES.append(match.group(1))
    return match.group(1)


def sms_code(number, fields=None):
    """Sends a code to `number` and reads it from the message the Twilio stand-in received: (sessionInfo, code)."""
    before = len(TWILIO.messages_to(number))
    status, body = send_code(number, **(fields or {}))
    assert status == 200, body
    assert set(body) == {"sessionInfo"} and body["sessionInfo"].startswith("hps1."), body
    return body["sessionInfo"], code_from(TWILIO.wait_for(number, after=before))


def number(prefix="+1202555"):
    return prefix + str(uuid.uuid4().int)[-4:]


def verify(token):
    return auth.verify_id_token(token, app=APP)


# --- firebase-admin: phone users ------------------------------------------------------------------------------------

@check("firebase-admin: create_user with a phone number, get_user_by_phone_number, get_users, list_users, update, removal")
def _():
    phone = number("+1415555")
    user = auth.create_user(uid="ph-" + uuid.uuid4().hex[:10], phone_number=phone, display_name="Phone Ada", app=APP)
    assert user.phone_number == phone, user._data
    assert {p.provider_id for p in user.provider_data} == {"phone"}, user._data
    assert auth.get_user_by_phone_number(phone, app=APP).uid == user.uid
    found = auth.get_users([auth.PhoneIdentifier(phone)], app=APP)
    assert [u.uid for u in found.users] == [user.uid] and not found.not_found
    listed = {u.uid: u for u in auth.list_users(app=APP).iterate_all()}
    assert listed[user.uid].phone_number == phone
    expect_raises = None
    try:
        auth.create_user(phone_number=phone, app=APP)
        expect_raises = "a taken number was accepted"
    except auth.PhoneNumberAlreadyExistsError:
        pass
    assert expect_raises is None, expect_raises
    other = number("+4420795")
    changed = auth.update_user(user.uid, phone_number=other, app=APP)
    assert changed.phone_number == other
    try:
        auth.get_user_by_phone_number(phone, app=APP)
        raise AssertionError("the old number still finds the user")
    except auth.UserNotFoundError:
        pass
    removed = auth.update_user(user.uid, phone_number=auth.DELETE_ATTRIBUTE, app=APP)
    assert removed.phone_number is None and not removed.provider_data, removed._data
    auth.delete_user(user.uid, app=APP)


@check("a formatted number is normalised to E.164 (admin create and lookup); letters and a missing + refused (INVALID_PHONE_NUMBER)")
def _():
    digits = str(uuid.uuid4().int)[-4:]
    response = requests.post(f"{V1}/projects/{PROJECT}/accounts", json={"phoneNumber": f"+1 (303) 555.{digits}"}, headers=ADMIN, timeout=30)
    assert response.status_code == 200, response.text
    uid = response.json()["localId"]
    assert auth.get_user(uid, app=APP).phone_number == f"+1303555{digits}"
    assert auth.get_user_by_phone_number(f"+1303555{digits}", app=APP).uid == uid
    for bad in ("+1 202 555 CALL", "12025550100", "+0123456", "+1" + "2" * 20, "+1202555\u0661\u0662"):
        response = requests.post(f"{V1}/projects/{PROJECT}/accounts", json={"phoneNumber": bad}, headers=ADMIN, timeout=30)
        expect_error("INVALID_PHONE_NUMBER", response.status_code, response.json())
    auth.delete_user(uid, app=APP)


@check("firebase-admin import_users with phone numbers; phone second factors imported over REST (mfaInfo.phoneInfo), read back and written by hearth users export")
def _():
    a, b = number("+1617555"), number("+3361234")
    result = auth.import_users([auth.ImportUserRecord(uid="imp-" + uuid.uuid4().hex[:8], phone_number=a),
                                auth.ImportUserRecord(uid="imp-" + uuid.uuid4().hex[:8], email=f"i-{uuid.uuid4().hex[:6]}@example.com",
                                                      phone_number=b, email_verified=True)], app=APP)
    assert result.success_count == 2 and result.failure_count == 0, [e.reason for e in result.errors]
    assert auth.get_user_by_phone_number(a, app=APP).phone_number == a
    factor_number = number("+1718555")
    uid = "mfa-imp-" + uuid.uuid4().hex[:8]
    status, body = admin_v1("batchCreate", {"users": [{"localId": uid, "email": f"{uid}@example.com", "emailVerified": True,
                                                      "mfaInfo": [{"mfaEnrollmentId": "f1", "displayName": "Work phone", "phoneInfo": factor_number,
                                                                   "enrolledAt": "2026-01-02T03:04:05Z"}]}]})
    assert status == 200 and not body.get("error"), body
    record = auth.get_user(uid, app=APP)
    factors = record._data.get("mfaInfo")
    assert factors and factors[0]["phoneInfo"] == factor_number and factors[0]["displayName"] == "Work phone", record._data
    assert factors[0]["mfaEnrollmentId"] == "f1" and factors[0]["enrolledAt"].startswith("2026-01-02T03:04:05"), factors
    # Exported (batchGet) as imported: the factor's full number (admin views are not masked).
    exported = [u for u in auth.list_users(app=APP).iterate_all() if u.uid == uid][0]
    assert exported._data["mfaInfo"][0]["phoneInfo"] == factor_number, exported._data
    # hearth users export writes the SMS factor (Firebase's auth:export shape, mfaInfo), with the full number.
    exported_file = os.path.join(work, "users-export.json")
    result = subprocess.run([HEARTH, "users", "export", exported_file, "--data-dir", os.path.join(work, "data")],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    exported_user = [u for u in json.load(open(exported_file))["users"] if u["localId"] == uid][0]
    assert exported_user["mfaInfo"][0]["phoneInfo"] == factor_number and exported_user["mfaInfo"][0]["mfaEnrollmentId"] == "f1", exported_user
    # A TOTP factor still cannot be imported (its secret is never exported).
    status, body = admin_v1("batchCreate", {"users": [{"localId": "totp-" + uuid.uuid4().hex[:8],
                                                      "mfaInfo": [{"mfaEnrollmentId": "t1", "totpInfo": {}}]}]})
    assert status == 200 and body.get("error") and "mfaInfo" in body["error"][0]["message"], body
    # A bad factor number is refused per user.
    status, body = admin_v1("batchCreate", {"users": [{"localId": "bad-" + uuid.uuid4().hex[:8], "mfaInfo": [{"phoneInfo": "555-0100"}]}]})
    assert status == 200 and body.get("error") and "INVALID_PHONE_NUMBER" in body["error"][0]["message"], body


@check("admin accounts:update adds a phone second factor without an id (the Node Admin SDK's body) and keeps the others")
def _():
    uid = "mfa-upd-" + uuid.uuid4().hex[:8]
    auth.create_user(uid=uid, email=f"{uid}@example.com", email_verified=True, password="secret-pass-1", app=APP)
    first, second = number("+1212555"), number("+1213555")
    status, body = admin_v1("update", {"localId": uid, "mfa": {"enrollments": [{"phoneInfo": first, "displayName": "Home"}]}})
    assert status == 200, body
    factors = auth.get_user(uid, app=APP)._data["mfaInfo"]
    assert len(factors) == 1 and factors[0]["phoneInfo"] == first and factors[0]["mfaEnrollmentId"], factors
    kept = factors[0]["mfaEnrollmentId"]
    status, body = admin_v1("update", {"localId": uid, "mfa": {"enrollments": [{"mfaEnrollmentId": kept, "phoneInfo": first, "displayName": "Home"},
                                                                              {"phoneInfo": second, "displayName": "Work"}]}})
    assert status == 200, body
    factors = auth.get_user(uid, app=APP)._data["mfaInfo"]
    assert [f["phoneInfo"] for f in factors] == [first, second] and factors[0]["mfaEnrollmentId"] == kept, factors
    # The list is the user's factors afterwards: the same number twice in it is refused, nothing changes.
    status, body = admin_v1("update", {"localId": uid, "mfa": {"enrollments": [{"phoneInfo": first}, {"phoneInfo": "+1 " + first[2:]}]}})
    expect_error("SECOND_FACTOR_EXISTS", status, body)
    assert len(auth.get_user(uid, app=APP)._data["mfaInfo"]) == 2
    status, body = admin_v1("update", {"localId": uid, "mfa": {"enrollments": [{"phoneInfo": "not a number"}]}})
    expect_error("INVALID_PHONE_NUMBER", status, body)
    auth.delete_user(uid, app=APP)


# --- the project config --------------------------------------------------------------------------------------------

@check("config: phone sign-in, test numbers, region policy, sms settings and PHONE_SMS set and read back; the secret never shown; audited")
def _():
    status, body = patch_config({"signIn": {"phoneNumber": {"enabled": True, "testPhoneNumbers": {"+15555550100": "123456"}}},
                                 "mfa": {"state": "ENABLED", "enabledProviders": ["PHONE_SMS"]},
                                 "sms": {"perNumberPerHour": 50, "perAddressPerHour": 1000, "dailyBudget": 500,
                                         "recaptcha": {"secretKey": RECAPTCHA_SECRET, "verifyUrl": RECAPTCHA.url, "minScore": 0.5}}},
                                "signIn.phoneNumber,mfa.state,mfa.enabledProviders,sms")
    assert status == 200, body
    assert body["signIn"]["phoneNumber"] == {"enabled": True, "testPhoneNumbers": {"+15555550100": "123456"}}, body["signIn"]
    assert body["mfa"]["enabledProviders"] == ["PHONE_SMS"], body["mfa"]
    assert RECAPTCHA_SECRET not in json.dumps(body), "the secret was answered"
    recaptcha = body["sms"]["recaptcha"]
    assert recaptcha.get("secretKeySet") is True and recaptcha["verifyUrl"] == RECAPTCHA.url, body["sms"]
    assert body["sms"]["dailyBudget"] == 500 and body["sms"]["perNumberPerHour"] == 50, body["sms"]
    fetched = get_config()
    assert fetched["signIn"]["phoneNumber"]["testPhoneNumbers"] == {"+15555550100": "123456"} and RECAPTCHA_SECRET not in json.dumps(fetched)
    status, body = patch_config({"smsRegionConfig": {"allowByDefault": {"disallowedRegions": ["KP"]}}}, "smsRegionConfig")
    assert status == 200 and body["smsRegionConfig"] == {"allowByDefault": {"disallowedRegions": ["KP"]}}, body
    audit = requests.get(f"{BASE}/v1/projects/{PROJECT}/auditLog", headers=ADMIN, timeout=30)
    if audit.status_code == 200:
        text = audit.text
        assert "sms.recaptcha.secretKey" in text and RECAPTCHA_SECRET not in text, text[:500]


@check("config refusals with Google's envelope: test numbers (E.164, 6 digits, at most 10), regions, budget, the verify URL, both regions")
def _():
    cases = [
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"555-0100": "123456"}}}}, "signIn.phoneNumber.testPhoneNumbers", "INVALID_"),
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550101": "12345"}}}}, "signIn.phoneNumber.testPhoneNumbers", "6 digits"),
        ({"signIn": {"phoneNumber": {"testPhoneNumbers": {f"+1555555{i:04d}": "123456" for i in range(11)}}}},
         "signIn.phoneNumber.testPhoneNumbers", "10"),
        ({"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["USA"]}}}, "smsRegionConfig", "USA"),
        ({"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US"]}, "allowByDefault": {"disallowedRegions": []}}}, "smsRegionConfig", "one of"),
        ({"sms": {"dailyBudget": -1}}, "sms.dailyBudget", "dailyBudget"),
        ({"sms": {"recaptcha": {"verifyUrl": "http://recaptcha.example.com/siteverify"}}}, "sms.recaptcha.verifyUrl", "https"),
        ({"sms": {"recaptcha": {"minScore": 2}}}, "sms.recaptcha.minScore", "minScore"),
        ({"mfa": {"enabledProviders": ["EMAIL"]}}, "mfa.enabledProviders", "PHONE_SMS"),
    ]
    before = get_config()
    for body, mask, words in cases:
        status, answer = patch_config(body, mask)
        message = error_of(status, answer)
        assert message.startswith("INVALID_CONFIG") or message.startswith("INVALID_"), (body, message)
        assert words in message, (body, message)
    after = get_config()
    assert before == after, "a refused change saved something"


# --- phone sign-in through the Twilio stand-in ---------------------------------------------------------------------

USER_NUMBER = number("+1650555")


@check("phone sign-up through the Twilio stand-in: Basic auth, the account's path, To/From/Body; the code signs up; the token's claims")
def _():
    # reCAPTCHA is on (a secret is set): the good token passes.
    session, code = sms_code(USER_NUMBER, {"recaptchaToken": "good"})
    message = TWILIO.messages_to(USER_NUMBER)[-1]
    assert message["form"]["From"] == SENDER and message["type"].startswith("application/x-www-form-urlencoded"), message
    assert message["form"]["Body"] == f"{code} is your verification code for {PROJECT}." or message["form"]["Body"].startswith(f"{code} is your verification code for "), message
    status, body = v1("signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    assert status == 200 and body["isNewUser"] is True and body["phoneNumber"] == USER_NUMBER, body
    claims = verify(body["idToken"])
    assert claims["phone_number"] == USER_NUMBER and claims["firebase"]["sign_in_provider"] == "phone", claims
    assert auth.get_user_by_phone_number(USER_NUMBER, app=APP).uid == body["localId"]
    # The code was single use.
    status, again = v1("signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    assert status == 400 and again["error"]["message"].split(" : ")[0] in {"INVALID_SESSION_INFO", "SESSION_EXPIRED", "INVALID_CODE"}, again


@check("phone sign-in again (isNewUser false) through v3 verifyPhoneNumber; the emulator's verificationCodes lists the code")
def _():
    session, code = sms_code(USER_NUMBER, {"recaptchaToken": "good"})
    listed = requests.get(f"{BASE}/emulator/v1/projects/{PROJECT}/verificationCodes", timeout=30).json()["verificationCodes"]
    assert {"phoneNumber": USER_NUMBER, "sessionInfo": session, "code": code} in [
        {k: c.get(k) for k in ("phoneNumber", "sessionInfo", "code")} for c in listed], listed[-3:]
    response = requests.post(f"{V3}/verifyPhoneNumber?key={KEY}", json={"sessionInfo": session, "code": code}, timeout=30)
    body = response.json()
    assert response.status_code == 200 and body.get("isNewUser") in (False, None) and body["phoneNumber"] == USER_NUMBER, body


@check("a burst of 30 parallel wrong codes on one session: at most 5 checked, then even the right code is refused")
def _():
    target = number("+1651555")
    session, code = sms_code(target, {"recaptchaToken": "good"})
    wrong = "000000" if code != "000000" else "111111"

    def guess(_):
        return v1("signInWithPhoneNumber", {"sessionInfo": session, "code": wrong})

    with ThreadPoolExecutor(max_workers=10) as pool:
        answers = list(pool.map(guess, range(30)))
    codes = [body["error"]["message"].split(" : ")[0] for status, body in answers]
    assert all(status == 400 for status, _ in answers), answers[:3]
    assert codes.count("INVALID_CODE") <= 5, codes
    status, body = v1("signInWithPhoneNumber", {"sessionInfo": session, "code": code})
    assert status == 400 and "idToken" not in body, body


@check("app verification (reCAPTCHA stand-in): no token, a refused token and a low score refused; nothing sent; the secret and remote address posted")
def _():
    target = number("+1652555")
    calls = len(RECAPTCHA.calls)
    expect_error("MISSING_RECAPTCHA_TOKEN", *send_code(target))
    expect_error("CAPTCHA_CHECK_FAILED", *send_code(target, recaptchaToken="forged"))
    expect_error("CAPTCHA_CHECK_FAILED", *send_code(target, recaptchaToken="low"))
    assert not TWILIO.messages_to(target), "a refused send reached the gateway"
    posted = RECAPTCHA.calls[calls:]
    assert len(posted) == 2 and all(c["secret"] == RECAPTCHA_SECRET and c.get("remoteip") for c in posted), posted
    session, _ = sms_code(target, {"captchaResponse": "good"})
    assert session


@check("a disallowed region is refused before anything is spent: no reCAPTCHA call, no SMS, no listed code")
def _():
    status, body = patch_config({"smsRegionConfig": {"allowlistOnly": {"allowedRegions": ["US", "CA"]}}}, "smsRegionConfig")
    assert status == 200, body
    try:
        target = number("+4477009")
        calls = len(RECAPTCHA.calls)
        message = expect_error("OPERATION_NOT_ALLOWED", *send_code(target, recaptchaToken="good"))
        assert "region" in message, message
        assert len(RECAPTCHA.calls) == calls, "app verification ran before the region check"
        time.sleep(1)
        assert not TWILIO.messages_to(target)
        listed = requests.get(f"{BASE}/emulator/v1/projects/{PROJECT}/verificationCodes", timeout=30).json()["verificationCodes"]
        assert target not in [c["phoneNumber"] for c in listed]
        session, _ = sms_code(number("+1416555"), {"recaptchaToken": "good"})  # Canada is allowed
        assert session
    finally:
        patch_config({}, "smsRegionConfig")


@check("a test number is never sent: its fixed code signs in, a wrong code is refused, no reCAPTCHA needed")
def _():
    before = TWILIO.count()
    status, body = v1("sendVerificationCode", {"phoneNumber": "+1 555-555-0100"})
    assert status == 200 and body["sessionInfo"], body
    status, wrong = v1("signInWithPhoneNumber", {"sessionInfo": body["sessionInfo"], "code": "654321"})
    expect_error("INVALID_CODE", status, wrong)
    status, signed = v1("signInWithPhoneNumber", {"sessionInfo": body["sessionInfo"], "code": "123456"})
    assert status == 200 and signed["phoneNumber"] == "+15555550100", signed
    time.sleep(1)
    assert TWILIO.count() == before and not TWILIO.messages_to("+15555550100"), "a test number reached the gateway"


# --- SMS as a second factor ----------------------------------------------------------------------------------------

@check("SMS second factor: enrollment and sign-in with codes from the stand-in; masked in the sign-in answer, full in the admin record")
def _():
    email = f"mfa-{uuid.uuid4().hex[:8]}@example.com"
    password = "pw " + uuid.uuid4().hex[:10]
    auth.create_user(email=email, password=password, email_verified=True, app=APP)
    status, signed = v1("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    assert status == 200, signed
    phone = number("+1653555")
    before = len(TWILIO.messages_to(phone))
    status, started = v2("mfaEnrollment:start", {"idToken": signed["idToken"], "phoneEnrollmentInfo": {"phoneNumber": phone, "recaptchaToken": "good"}})
    assert status == 200 and started["phoneSessionInfo"]["sessionInfo"], started
    SENT[0] += 1
    code = code_from(TWILIO.wait_for(phone, after=before))
    status, done = v2("mfaEnrollment:finalize", {"idToken": signed["idToken"], "displayName": "My phone",
                                                 "phoneVerificationInfo": {"sessionInfo": started["phoneSessionInfo"]["sessionInfo"], "code": code}})
    assert status == 200 and done["idToken"], done
    status, pending = v1("signInWithPassword", {"email": email, "password": password, "returnSecureToken": True})
    assert status == 200 and pending["mfaPendingCredential"] and "idToken" not in pending, pending
    info = pending["mfaInfo"][0]
    assert info["phoneInfo"] != phone and info["phoneInfo"].endswith(phone[-4:]) and "*" in info["phoneInfo"], info
    before = len(TWILIO.messages_to(phone))
    status, challenge = v2("mfaSignIn:start", {"mfaPendingCredential": pending["mfaPendingCredential"], "mfaEnrollmentId": info["mfaEnrollmentId"],
                                              "phoneSignInInfo": {"recaptchaToken": "good"}})
    assert status == 200 and challenge["phoneResponseInfo"]["sessionInfo"], challenge
    SENT[0] += 1
    code = code_from(TWILIO.wait_for(phone, after=before))
    status, finished = v2("mfaSignIn:finalize", {"mfaPendingCredential": pending["mfaPendingCredential"],
                                                 "phoneVerificationInfo": {"sessionInfo": challenge["phoneResponseInfo"]["sessionInfo"], "code": code}})
    assert status == 200 and finished["idToken"], finished
    claims = verify(finished["idToken"])
    assert claims["firebase"].get("sign_in_second_factor") == "phone", claims
    record = auth.get_user_by_email(email, app=APP)._data
    assert record["mfaInfo"][0]["phoneInfo"] == phone, record


@check("the daily budget stops sends: QUOTA_EXCEEDED naming the budget, nothing sent; test numbers still work")
def _():
    # Today's sends so far are SENT[0]: a budget of two more lets two through and stops the third.
    status, body = patch_config({"sms": {"dailyBudget": SENT[0] + 2}}, "sms.dailyBudget")
    assert status == 200, body
    try:
        for _ in range(2):
            assert sms_code(number("+1654555"), {"recaptchaToken": "good"})[0]
        target = number("+1655555")
        message = expect_error("QUOTA_EXCEEDED", *send_code(target, recaptchaToken="good"))
        assert str(SENT[0]) in message and "budget" in message, message
        time.sleep(1)
        assert not TWILIO.messages_to(target)
        status, body = v1("sendVerificationCode", {"phoneNumber": "+15555550100"})
        assert status == 200, body
    finally:
        patch_config({"sms": {"dailyBudget": 100000}}, "sms.dailyBudget")


# --- the console in Chromium ----------------------------------------------------------------------------------------

SHOTS = sys.argv[3] if len(sys.argv) > 3 else None


def console_driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900", "--hide-scrollbars"):
        options.add_argument(argument)
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)


def shoot(driver, name):
    save_page_screenshots(driver, name, SHOTS)


@check("console in Chromium: the Phone page (today's count, a test number added by clicking, a refused one beside its form), the Phone column, the Overview's budget banner")
def _():
    from selenium.webdriver.common.by import By
    out = subprocess.run([HEARTH, "console", "login-link", "--data-dir", os.path.join(work, "data"), "--public-url", BASE],
                         capture_output=True, text=True, timeout=60)
    link = re.search(r"https?://\S+", out.stdout + out.stderr)
    assert link, out.stdout + out.stderr
    driver = console_driver()
    try:
        driver.get(link.group(0))
        time.sleep(1)
        driver.get(f"{BASE}/console/phone")
        page = driver.find_element(By.TAG_NAME, "main").text
        assert "SMS sent today" in page and f"of {get_config()['sms']['dailyBudget']} today (UTC)" in page, page[:800]
        assert RECAPTCHA_SECRET not in driver.page_source and "A secret is set." in page, page[:800]
        number_field = driver.find_element(By.ID, "test-number")
        number_field.send_keys("+1 555 555 0111")
        driver.find_element(By.ID, "test-code").send_keys("111111")
        number_field.submit()
        time.sleep(0.5)
        assert "+15555550111" in driver.find_element(By.TAG_NAME, "main").text
        assert get_config()["signIn"]["phoneNumber"]["testPhoneNumbers"]["+15555550111"] == "111111"
        shoot(driver, "phone")
        number_field = driver.find_element(By.ID, "test-number")
        number_field.send_keys("555-0199")
        driver.find_element(By.ID, "test-code").send_keys("222222")
        number_field.submit()
        time.sleep(0.5)
        error = driver.find_element(By.ID, "test-number-error").text
        assert "is not a phone number" in error, error
        driver.get(f"{BASE}/console/users?q={USER_NUMBER.replace('+', '%2B')}")
        assert USER_NUMBER in [cell.text for cell in driver.find_elements(By.CSS_SELECTOR, 'td[data-label="Phone"]')]
        status, body = patch_config({"sms": {"dailyBudget": 0}}, "sms.dailyBudget")
        assert status == 200, body
        try:
            driver.get(f"{BASE}/console")
            banner = driver.find_element(By.CSS_SELECTOR, "section.card.error").text
            assert "daily SMS budget (0) is used up" in banner, banner
            if SHOTS:
                driver.set_window_size(1200, 900)
                driver.save_screenshot(os.path.join(SHOTS, "console-phone-banner-desktop.png"))
        finally:
            patch_config({"sms": {"dailyBudget": 100000}}, "sms.dailyBudget")
    finally:
        driver.quit()
        patch_config({"signIn": {"phoneNumber": {"testPhoneNumbers": {"+15555550100": "123456"}}}}, "signIn.phoneNumber.testPhoneNumbers")


# --- a production project -------------------------------------------------------------------------------------------

PROD_PORT = str(int(PORT) - 1)
PROD_BASE = f"http://127.0.0.1:{PROD_PORT}"
PROD_PROJECT = "hearth-phone-e2e"
PROD_KEY = "phone-prod-key"
prod_work = tempfile.mkdtemp(prefix="hearth-phone-prod-")
prod_data = os.path.join(prod_work, "data")
prod_log_path = os.path.join(prod_work, "server.log")


def cli(*arguments):
    return subprocess.run([HEARTH, *arguments, "--data-dir", prod_data, "--project-id", PROD_PROJECT], capture_output=True, text=True, timeout=120)


def start_production():
    log = open(prod_log_path, "a")  # noqa: SIM115 - open for the server's lifetime
    process = subprocess.Popen([HEARTH, "serve", "--project-id", PROD_PROJECT, "--api-key", PROD_KEY, "--port", PROD_PORT,
                                "--data-dir", prod_data, "--sms-url", TWILIO.url()], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(300):
        try:
            if requests.get(f"{PROD_BASE}/healthz", timeout=1).status_code == 200:
                return process, log
        except requests.RequestException:
            pass
        time.sleep(0.1)
    process.kill()
    raise AssertionError("the production server did not start: " + open(prod_log_path).read()[-2000:])


def stop_production(process, log):
    process.terminate()
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


def prod_send(phone):
    response = requests.post(f"{PROD_BASE}/identitytoolkit.googleapis.com/v1/accounts:sendVerificationCode?key={PROD_KEY}",
                             json={"phoneNumber": phone}, timeout=30)
    return response.status_code, response.json()


@check("production project: phone sign-in off by default; with it on, every send refused until app verification is configured or turned off explicitly")
def _():
    process, log = start_production()
    try:
        target = number("+1656555")
        expect_error("OPERATION_NOT_ALLOWED", *prod_send(target))
    finally:
        stop_production(process, log)
    enabled = cli("project", "sms", "set", "--phone-sign-in", "on")
    assert enabled.returncode == 0, enabled.stderr + enabled.stdout
    process, log = start_production()
    try:
        message = expect_error("OPERATION_NOT_ALLOWED", *prod_send(target))
        assert "app verification" in message and "--no-app-verification" in message, message
        time.sleep(1)
        assert not TWILIO.messages_to(target)
    finally:
        stop_production(process, log)
    shown = cli("project", "sms", "show")
    assert shown.returncode == 0 and "app verification" in shown.stdout and "not configured" in shown.stdout, shown.stdout + shown.stderr
    off = cli("project", "sms", "set", "--no-app-verification")
    assert off.returncode == 0 and "off (turned off explicitly" in off.stdout, off.stdout + off.stderr
    process, log = start_production()
    try:
        status, body = prod_send(target)
        assert status == 200 and body["sessionInfo"], body
        code_from(TWILIO.wait_for(target))
        listed = requests.get(f"{PROD_BASE}/emulator/v1/projects/{PROD_PROJECT}/verificationCodes", timeout=30)
        assert listed.status_code in (401, 403, 404) or target not in listed.text, "a production project listed its codes"
    finally:
        stop_production(process, log)


@check("hearth project sms: wrong input gets one clear line (a bad test number, a bad code, an unknown region, a negative budget)")
def _():
    for arguments, words in [
        (("test-numbers", "add", "555-0100", "123456"), "E.164"),
        (("test-numbers", "add", "+15555550199", "12ab56"), "6 digits"),
        (("set", "--allow-regions", "USA"), "USA"),
        (("set", "--daily-budget=-5"), "sms.dailyBudget must be between 0"),
        (("test-numbers", "remove", "+15555550188"), "not a test number"),
    ]:
        result = cli("project", "sms", *arguments)
        assert result.returncode != 0 and words in result.stderr, (arguments, result.stdout, result.stderr)
    added = cli("project", "sms", "test-numbers", "add", "+1 555 555 0142", "424242")
    assert added.returncode == 0 and "+15555550142  424242" in added.stdout, added.stdout + added.stderr
    removed = cli("project", "sms", "test-numbers", "remove", "+15555550142")
    assert removed.returncode == 0 and "+15555550142" not in removed.stdout, removed.stdout


# --- no secret in the logs ------------------------------------------------------------------------------------------

@check("no code, Twilio auth token or reCAPTCHA secret in the server logs")
def _():
    for path in (LOG_PATH, prod_log_path):
        text = open(path).read() if os.path.exists(path) else ""
        for secret in SECRETS:
            assert secret not in text, f"a secret reached {path}"
        for code in set(CODES):
            assert not re.search(rf"(?<!\d){code}(?!\d)", text), f"a code ({code}) reached {path}"


@check("the Twilio stand-in refused nothing Hearth sent (auth, path and form were right every time)")
def _():
    assert not TWILIO.refusals, TWILIO.refusals[:3]


stop_server()
finish("phone")
