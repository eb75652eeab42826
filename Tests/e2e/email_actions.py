"""Email actions end to end: firebase-admin's generate_*_link (emulator mode and with a service account), the REST
flows, and real delivery through a real SMTP server (aiosmtpd from scripts/test-smtp, STARTTLS + AUTH, a private
CA): the message arrives, parses as MIME, and its link completes a password reset.

Usage: email_actions.py HEARTH_BINARY PORT SMTP_BASE SMTP_CA MAILDIR
Starts its own `hearth serve --dev` (project demo-hearth) relaying through smtp://hearth:s3cret@127.0.0.1:SMTP_BASE,
and a second one for the non-demo project email-e2e (service-account credentials).
Prints one line per check and 'email-actions: N passed, N failed'; exits non-zero on any failure.
"""
import email
import email.policy
import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import uuid
from urllib.parse import parse_qs, urlparse

import requests

HEARTH, PORT, SMTP_BASE, SMTP_CA, MAILDIR = sys.argv[1:6]
BASE = f"http://127.0.0.1:{PORT}"
V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
os.environ["FIREBASE_AUTH_EMULATOR_HOST"] = f"127.0.0.1:{PORT}"

import firebase_admin  # noqa: E402  (the variable must be set before the SDK reads it)
import firebase_admin.exceptions  # noqa: E402
from firebase_admin import auth, credentials  # noqa: E402
from checks import check, finish  # noqa: E402

work = tempfile.mkdtemp()
servers = []


def start(port, *extra):
    data = os.path.join(work, f"data-{port}")
    env = dict(os.environ, HEARTH_SMTP_URL=f"smtp://hearth:s3cret@127.0.0.1:{SMTP_BASE}")
    server = subprocess.Popen([HEARTH, "serve", "--dev", "--port", str(port), "--data-dir", data, "--smtp-ca-file", SMTP_CA,
                               "--mail-from", "Hearth E2E <no-reply@hearth.test>", *extra],
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env)
    servers.append(server)
    for _ in range(150):
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return data
        except requests.RequestException:
            pass
        time.sleep(0.1)
    raise SystemExit("server did not start")


def post(method, body, base=V1, key="any"):
    response = requests.post(f"{base}/accounts:{method}?key={key}", json=body, timeout=10)
    return response.status_code, response.json()


def code_of(link):
    query = parse_qs(urlparse(link).query)
    return query["oobCode"][0], query["mode"][0]


def wait_for_message(recipient, seen):
    """The next .eml in the maildir for `recipient` that is not in `seen` (the relay is asynchronous)."""
    for _ in range(150):
        for path in sorted(glob.glob(os.path.join(MAILDIR, "*.eml"))):
            if path in seen:
                continue
            with open(path, "rb") as handle:
                message = email.message_from_binary_file(handle, policy=email.policy.default)
            if recipient in str(message["To"]):
                seen.add(path)
                return message
        time.sleep(0.1)
    raise AssertionError(f"no message for {recipient} arrived")


data_dir = start(PORT)
APP = firebase_admin.initialize_app(options={"projectId": "demo-hearth"}, name="email-e2e")
seen = set(glob.glob(os.path.join(MAILDIR, "*.eml")))
state = {}


@check("firebase-admin (emulator mode): generate_password_reset_link, generate_email_verification_link, generate_sign_in_with_email_link")
def _():
    address = f"admin-{uuid.uuid4().hex[:6]}@example.com"
    auth.create_user(email=address, password="first secret", app=APP)
    settings = auth.ActionCodeSettings(url="http://localhost/finish", handle_code_in_app=True, ios_bundle_id="com.example.app",
                                       android_package_name="com.example.app", android_install_app=True)
    reset = auth.generate_password_reset_link(address, settings, app=APP)
    verify = auth.generate_email_verification_link(address, app=APP)
    sign_in = auth.generate_sign_in_with_email_link(address, settings, app=APP)
    for link, mode in ((reset, "resetPassword"), (verify, "verifyEmail"), (sign_in, "signIn")):
        assert link.startswith(f"{BASE}/__/auth/action?"), link
        code, got = code_of(link)
        assert got == mode, link
    assert parse_qs(urlparse(reset).query)["continueUrl"] == ["http://localhost/finish"], reset
    status, body = post("resetPassword", {"oobCode": code_of(reset)[0], "newPassword": "second secret"})
    assert status == 200 and body["requestType"] == "PASSWORD_RESET" and body["email"] == address, body
    status, body = post("update", {"oobCode": code_of(verify)[0]})
    assert status == 200 and body["emailVerified"] is True, body
    status, body = post("signInWithEmailLink", {"email": address, "oobCode": code_of(sign_in)[0]})
    assert status == 200 and body["isNewUser"] is False and body["idToken"], body
    # Unknown users and unauthorized continue URLs are refused as Firebase refuses them.
    try:
        auth.generate_password_reset_link("nobody-here@example.com", app=APP)
        raise AssertionError("a link for an unknown user")
    except auth.EmailNotFoundError:
        pass
    try:
        auth.generate_password_reset_link(address, auth.ActionCodeSettings(url="https://evil.example.net/"), app=APP)
        raise AssertionError("an unauthorized continue URL")
    except firebase_admin.exceptions.InvalidArgumentError as error:
        # firebase-admin has no class of its own for it: Firebase's error string says what it is.
        assert "UNAUTHORIZED_DOMAIN" in str(error), error


@check("a password reset sent through the real SMTP relay (STARTTLS, AUTH, private CA) arrives as MIME and its link resets the password")
def _():
    address = f"reset-{uuid.uuid4().hex[:6]}@example.com"
    status, body = post("signUp", {"email": address, "password": "old secret 1", "returnSecureToken": True})
    assert status == 200, body
    status, sent = post("sendOobCode", {"requestType": "PASSWORD_RESET", "email": address})
    assert status == 200 and sent["email"] == address, sent
    message = wait_for_message(address, seen)
    assert message["X-Test-SMTP-TLS"] == "yes" and message["X-Test-SMTP-Auth"] == "hearth", dict(message)
    assert message.defects == [] and message.get_content_type() == "multipart/alternative", message.defects
    assert "no-reply@hearth.test" in str(message["From"]) and "password" in str(message["Subject"]).lower(), dict(message)
    text = message.get_body(("plain",)).get_content()
    html = message.get_body(("html",)).get_content()
    link = re.search(r"(http://\S+/__/auth/action\?\S+)", text).group(1)
    assert link.replace("&", "&amp;") in html, html[:400]
    code, mode = code_of(link)
    assert mode == "resetPassword"
    status, body = post("resetPassword", {"oobCode": code, "newPassword": "new secret 2"})
    assert status == 200, body
    assert post("signInWithPassword", {"email": address, "password": "old secret 1", "returnSecureToken": True})[0] == 400
    assert post("signInWithPassword", {"email": address, "password": "new secret 2", "returnSecureToken": True})[0] == 200
    status, body = post("resetPassword", {"oobCode": code, "newPassword": "third secret 3"})
    assert status == 400 and body["error"]["message"].startswith("INVALID_OOB_CODE"), body
    state["reset_link"] = link


@check("verify email and verify-before-update through the relay: the old address is told, and its link changes the email back")
def _():
    address = f"verify-{uuid.uuid4().hex[:6]}@example.com"
    status, created = post("signUp", {"email": address, "password": "a secret 12", "returnSecureToken": True})
    status, _ = post("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": created["idToken"]})
    assert status == 200
    code, _ = code_of(re.search(r"(http://\S+)", wait_for_message(address, seen).get_body(("plain",)).get_content()).group(1))
    status, body = post("update", {"oobCode": code})
    assert status == 200 and body["emailVerified"] is True, body
    new_address = "new-" + address
    status, body = post("sendOobCode", {"requestType": "VERIFY_AND_CHANGE_EMAIL", "idToken": created["idToken"], "newEmail": new_address})
    assert status == 200, body
    code, _ = code_of(re.search(r"(http://\S+)", wait_for_message(new_address, seen).get_body(("plain",)).get_content()).group(1))
    status, body = post("update", {"oobCode": code})
    assert status == 200 and body["email"] == new_address, body
    notice = wait_for_message(address, seen)
    recover, mode = code_of(re.search(r"(http://\S+)", notice.get_body(("plain",)).get_content()).group(1))
    assert mode == "recoverEmail", mode
    status, body = post("update", {"oobCode": recover})
    assert status == 200 and body["email"] == address, body


@check("the emulator's oobCodes lists the codes sent (Firebase emulator shape) and DELETE clears them")
def _():
    url = f"{BASE}/emulator/v1/projects/demo-hearth/oobCodes"
    listed = requests.get(url, timeout=10).json()["oobCodes"]
    assert listed and {"email", "oobCode", "oobLink", "requestType"} <= set(listed[-1]), listed[-1]
    assert requests.delete(url, timeout=10).status_code == 200
    assert requests.get(url, timeout=10).json()["oobCodes"] == []


@check("hearth users reset-link prints a link that works; an unknown email is a one-line error")
def _():
    address = f"cli-{uuid.uuid4().hex[:6]}@example.com"
    post("signUp", {"email": address, "password": "cli secret 1"})
    made = subprocess.run([HEARTH, "users", "reset-link", address, "--data-dir", data_dir], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made
    link = made.stdout.strip()
    assert link.startswith(f"{BASE}/__/auth/action?mode=resetPassword"), link
    status, body = post("resetPassword", {"oobCode": code_of(link)[0]})
    assert status == 200 and body["email"] == address, body
    missing = subprocess.run([HEARTH, "users", "reset-link", "nobody@example.com", "--data-dir", data_dir], capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "no user with email nobody@example.com" in missing.stderr, missing


@check("firebase-admin with a service account (a production project): generate_password_reset_link works, the emulator credential does not")
def _():
    port = int(PORT) + 1
    project = "email-e2e"
    data = start(port, "--project-id", project, "--api-key", "e2e-key")
    path = os.path.join(work, "sa.json")
    subprocess.run([HEARTH, "service-accounts", "create", "--data-dir", data, "--project-id", project,
                    "--email", f"admin@{project}.iam.gserviceaccount.com", "--out", path], check=True, capture_output=True, timeout=60)
    with open(path) as handle:
        info = json.load(handle)
    info["token_uri"] = f"http://127.0.0.1:{port}/oauth2.googleapis.com/token"
    with open(path, "w") as handle:
        json.dump(info, handle)
    os.environ.pop("FIREBASE_AUTH_EMULATOR_HOST", None)
    app = firebase_admin.initialize_app(credentials.Certificate(path), {"projectId": project}, name="email-prod")
    # firebase-admin talks to Google's host: point its user manager at this server (the URL it builds requests on).
    client = auth._get_client(app)
    client._user_manager.base_url = f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1/projects/{project}"
    address = f"prod-{uuid.uuid4().hex[:6]}@example.com"
    status, _ = post("signUp", {"email": address, "password": "prod secret 1"}, base=f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1", key="e2e-key")
    assert status == 200
    link = auth.generate_password_reset_link(address, app=app)
    assert link.startswith(f"http://127.0.0.1:{port}/__/auth/action?mode=resetPassword"), link
    assert "apiKey=e2e-key" in link, link
    owner = requests.post(f"http://127.0.0.1:{port}/identitytoolkit.googleapis.com/v1/projects/{project}/accounts:sendOobCode",
                          json={"requestType": "PASSWORD_RESET", "email": address, "returnOobLink": True},
                          headers={"Authorization": "Bearer owner"}, timeout=10)
    assert owner.status_code == 401, owner.text


for server in servers:
    server.terminate()
finish("email-actions")
