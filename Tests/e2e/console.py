"""The web console (/console) driven end to end in a real browser (Debian's Chromium through Selenium), the way an
operator does the seeds' set-up: log in with the start-up link, enable Microsoft with a client ID and secret, read
the redirect URI, add an oidc.* provider, add a user, find it, disable it (its password sign-in refused over REST),
edit its claims (seen in a fresh ID token), delete it, change the authorized domains, turn two-step verification and
passkeys on (a passkey registered over the RPCs listed on its user's page and removed), create a service-account key,
read the audit log, log out; plus a form posted without its CSRF token and an idle session sent back to log in; on a
--dev server, blocking functions set, tested against a loopback function and a dead one shown failing (issue 39).
Controls are found by their visible label or accessible name, as a person finds them.

Usage: console.py HEARTH_BINARY PORT [SCREENSHOT_DIR]   (starts its own servers on PORT and PORT+1)
Prints one line per check and 'console: N passed, N failed'; exits non-zero on any failure.
"""
import base64
import glob
import hashlib
import json
import os
import re
import subprocess
import sys
import traceback
import tempfile
import time

import html
import hmac
import http.server
import threading
import shutil
import struct

import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException, WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait
from hearth_server import save_page_screenshots

HEARTH, PORT = sys.argv[1:3]
SHOTS = sys.argv[3] if len(sys.argv) > 3 else None
BASE = f"http://127.0.0.1:{PORT}"
API = f"{BASE}/identitytoolkit.googleapis.com/v1"
OWNER = {"Authorization": "Bearer owner"}
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"
work = tempfile.mkdtemp()
downloads = os.path.join(work, "downloads")
os.makedirs(downloads)
if SHOTS:
    os.makedirs(SHOTS, exist_ok=True)
results = []
SECRET = "ms-secret-7f3Kq9"
OIDC_SECRET = "oidc-secret-Pz42"
GOOGLE_SECRET = "google-secret-Wd58"


def serve(port, data_dir, *extra):
    log = open(os.path.join(work, f"server-{port}.log"), "w+")
    server = subprocess.Popen([HEARTH, "serve", "--port", str(port), "--data-dir", data_dir, *extra], stdout=log, stderr=subprocess.STDOUT)
    for _ in range(200):
        log.seek(0)
        match = re.search(r"Console: open (\S+) to sign in", log.read())
        if match:
            return server, match.group(1)
        time.sleep(0.1)
    server.kill()
    log.seek(0)
    raise AssertionError("no console login link at start-up: " + log.read()[-2000:])


def check(name, body):
    try:
        body()
        results.append(True)
        print(f"PASS {name}")
    except Exception as error:  # noqa: BLE001 - report every failure
        results.append(False)
        print(f"FAIL {name}: {error!r}")
        print("".join(line for line in traceback.format_tb(error.__traceback__) if "/site-packages/" not in line))


def literal(text):
    return "concat('" + "', \"'\", '".join(text.split("'")) + "', '')" if "'" in text else f"'{text}'"


def field(label):
    """The control a visible label names (its `for`, or the control inside it)."""
    element = driver.find_element(By.XPATH, f"//label[contains(normalize-space(), {literal(label)})]")
    target = element.get_attribute("for")
    return driver.find_element(By.ID, target) if target else element.find_element(By.TAG_NAME, "input")


def button(name):
    """A button by its visible text or accessible name (aria-label), once it can be clicked."""
    locator = (By.XPATH, f"//button[normalize-space()={literal(name)} or @aria-label={literal(name)}]"
                         f" | //a[normalize-space()={literal(name)} or @aria-label={literal(name)}]")
    return WebDriverWait(driver, 20, ignored_exceptions=[StaleElementReferenceException]).until(
        expected_conditions.element_to_be_clickable(locator))


def go(section):
    press(driver.find_element(By.XPATH, f"//nav[@aria-label='Console sections']//a[normalize-space()={literal(section)}]"), section)


def wait_text(text, timeout=20):
    WebDriverWait(driver, timeout, ignored_exceptions=[StaleElementReferenceException]).until(
        lambda d: text in d.find_element(By.TAG_NAME, "body").text)


def replaced(old):
    """The page holding `old` is gone. Asking a document that is being torn down about its element fails with
    StaleElementReferenceException or, in the middle of the navigation, with an empty WebDriverException: both
    mean the old page is gone (`wait_text` then checks what the new page says)."""
    def predicate(_):
        try:
            old.is_enabled()
            return False
        except WebDriverException:
            return True
    return predicate


def press(control, text):
    """Clicks a control that loads a new page and waits for that page (not the old one) to show `text`."""
    old = driver.find_element(By.TAG_NAME, "html")
    try:
        control.click()
    except WebDriverException as error:
        # chromedriver now and then answers a click that started a navigation with an empty error; whether the
        # click took effect is decided by the wait below (a click that did nothing times out there and fails).
        print(f"note: the click on {text!r} reported {error!r}; waiting for the next page")
    WebDriverWait(driver, 20).until(replaced(old))
    wait_text(text)


def press_confirmed(control, text):
    """Clicks a control whose form asks for a confirmation (console.js's data-confirm), accepts it, and waits for the
    next page to show `text`."""
    old = driver.find_element(By.TAG_NAME, "html")
    control.click()
    WebDriverWait(driver, 10).until(lambda d: d.switch_to.alert)
    driver.switch_to.alert.accept()
    WebDriverWait(driver, 20).until(replaced(old))
    wait_text(text)


def find_user(email):
    """The Users page searched for `email` (one match)."""
    go("Users")
    field("Search by email, UID or phone number").send_keys(email)
    press(button("Search"), "Users 1–1 of 1")


def shoot(name):
    save_page_screenshots(driver, name, SHOTS)


def sign_in(email, password):
    return requests.post(f"{API}/accounts:signInWithPassword?key=any",
                         json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)


def claims_of(token):
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1200,900", "--hide-scrollbars"):
    options.add_argument(argument)
options.add_experimental_option("prefs", {"download.default_directory": downloads, "download.prompt_for_download": False})
server, link = serve(PORT, os.path.join(work, "data"))
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
driver.execute_cdp_cmd("Page.setDownloadBehavior", {"behavior": "allow", "downloadPath": downloads})
state = {}


def login_with_link():
    assert link.startswith(f"{BASE}/console/login/link?token="), link
    driver.get(link)
    wait_text("Signed in as owner")
    assert "token=" not in driver.current_url, "the token leaves the address bar"
    cookie = driver.get_cookie("hearth_console")
    assert cookie and cookie["httpOnly"] and cookie.get("sameSite") == "Strict", cookie
    driver.get(link)
    wait_text("used already or has expired")
    driver.get(BASE + "/console")
    wait_text("Users")
    shoot("overview")


def link_from_another_site():
    """`hearth console login-link` while the server runs; the link clicked on another site's page (a chat, a mail)."""
    out = subprocess.run([HEARTH, "console", "login-link", "--data-dir", os.path.join(work, "data"), "--public-url", BASE],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    fresh = re.search(r"(http://\S+/console/login/link\?token=\S+)", out.stdout).group(1)
    driver.delete_all_cookies()
    driver.get("data:text/html,<a href='" + fresh + "'>open the console</a>")
    driver.find_element(By.LINK_TEXT, "open the console").click()
    wait_text("Signed in as owner")


def enable_microsoft():
    go("Sign-in method")
    press(button("Configure Microsoft"), "Redirect URI to register at the provider")
    redirect = field("Redirect URI to register at the provider").get_attribute("value")
    assert redirect == f"{BASE}/__/auth/handler", redirect
    assert driver.find_element(By.XPATH, "//button[normalize-space()='Copy redirect URI']").is_displayed()
    field("Client ID").send_keys("00000000-aaaa-bbbb-cccc-console00001")
    field("Client secret").send_keys(SECRET)
    shoot("provider")
    press(button("Save"), "Provider saved.")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'Microsoft')]]")
    assert "Enabled" in row.text, row.text
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/defaultSupportedIdpConfigs/microsoft.com",
                          headers=OWNER, timeout=10).json()
    assert config["enabled"] and config["clientId"] == "00000000-aaaa-bbbb-cccc-console00001", config
    press(button("Configure Microsoft"), "set; never shown")
    assert SECRET not in driver.page_source, "the secret is never echoed"
    assert field("Client secret").get_attribute("value") == ""


def enable_oidc():
    go("Sign-in method")
    press(button("Add OIDC provider"), "Provider ID")
    provider_id = field("Provider ID")
    provider_id.clear()
    provider_id.send_keys("oidc.corp")
    field("Display name").send_keys("Corp SSO")
    field("Issuer URL").send_keys("https://login.corp.example.com")
    field("Client ID").send_keys("corp-console")
    field("Client secret").send_keys(OIDC_SECRET)
    press(button("Save"), "Provider saved.")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'Corp SSO')]]")
    assert "Enabled" in row.text and "oidc.corp" in row.text, row.text
    assert OIDC_SECRET not in driver.page_source


def pem_lines(pem):
    """The base64 lines of a PEM: the key's text, which no page or log may hold."""
    return [line for line in pem.splitlines() if line and not line.startswith("-----")]


def key_file(name, key):
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
    path = os.path.join(work, name)
    with open(path, "w") as file:
        file.write(pem)
    return path, pem


def upload(label, path):
    """Chooses a file in a file input; the page's script reads it and says so."""
    field(label).send_keys(path)
    wait_text(os.path.basename(path) + " read: it is sent when you save.")


def apple_native_only():
    """Bundle IDs alone: native Sign in with Apple only (no services ID, no key)."""
    go("Sign-in method")
    press(button("Configure Apple"), "Return URL to register at Apple")
    assert field("Return URL to register at Apple").get_attribute("value") == f"{BASE}/__/auth/handler"
    assert field("Domain to register with the services ID").get_attribute("value") == "127.0.0.1"
    body = driver.find_element(By.TAG_NAME, "body").text
    assert "Apple requires HTTPS and a verified domain" in body, body
    assert "accepts only HTTPS return URLs" in body, "this server's http public URL is flagged"
    assert "no key on file: native sign-in only" in body
    assert not driver.find_elements(By.NAME, "clientSecret"), "Apple has no typed client secret"
    field("Bundle IDs whose").send_keys("com.example.notes")
    press(button("Save"), "Provider saved.")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'Apple')]]")
    assert "Enabled native only (1 bundle ID, no web key)" in row.text, row.text
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/defaultSupportedIdpConfigs/apple.com",
                          headers=OWNER, timeout=10).json()
    assert config["appleSignInConfig"]["bundleIds"] == ["com.example.notes"] and "codeFlowConfig" not in config["appleSignInConfig"], config


def apple_key():
    """The web flow's key: a bad file gets the admin API's reason; a P-256 .p8 is kept, never shown again."""
    press(button("Configure Apple"), "Return URL to register at Apple")
    bad_path, bad_pem = key_file("rsa.p8", rsa.generate_private_key(public_exponent=65537, key_size=2048))
    good_path, good_pem = key_file("AuthKey_CONSOLE123.p8", ec.generate_private_key(ec.SECP256R1()))
    state["apple_pems"] = [bad_pem, good_pem]
    field("Services ID").send_keys("com.example.notes.web")
    field("Team ID").send_keys("TEAM123456")
    field("Key ID").send_keys("CONSOLE123")
    upload("Private key file (.p8)", bad_path)
    shoot("provider-apple-file")
    press(button("Save"), "Nothing was saved")
    error = driver.find_element(By.ID, "private-key-error").text
    assert "RSA key" in error and "P-256" in error, error
    assert field("Services ID").get_attribute("value") == "com.example.notes.web", "the form comes back as typed"
    assert not any(line in driver.page_source for line in pem_lines(bad_pem)), "the refused key is not echoed"
    shoot("provider-apple-error")
    upload("Private key file (.p8)", good_path)
    press(button("Save"), "Provider saved.")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'Apple')]]")
    assert "Enabled web and native (key CONSOLE123, 1 bundle ID)" in row.text, row.text
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/defaultSupportedIdpConfigs/apple.com",
                          headers=OWNER, timeout=10).json()
    flow = config["appleSignInConfig"]["codeFlowConfig"]
    assert config["clientId"] == "com.example.notes.web" and flow == {"teamId": "TEAM123456", "keyId": "CONSOLE123"}, config
    press(button("Configure Apple"), "key on file (key ID CONSOLE123)")
    assert not any(line in driver.page_source for line in pem_lines(good_pem)), "the key is never shown again"
    assert field("…or paste the key").get_attribute("value") == ""
    shoot("provider-apple")


def enable_google():
    go("Sign-in method")
    press(button("Configure Google"), "Redirect URI to register at the provider")
    assert field("Redirect URI to register at the provider").get_attribute("value") == f"{BASE}/__/auth/handler"
    assert "Authorized redirect URIs" in driver.find_element(By.TAG_NAME, "body").text
    field("Client ID").send_keys("1234-web.apps.googleusercontent.com")
    field("Client secret").send_keys(GOOGLE_SECRET)
    field("Native client IDs").send_keys("1234-ios.apps.googleusercontent.com")
    field("Allowed hosted domains").send_keys("example.com, *")
    press(button("Save"), "Nothing was saved")
    assert "not a Google Workspace domain" in driver.find_element(By.ID, "allowed-hosted-domains-error").text
    assert GOOGLE_SECRET not in driver.page_source
    field("Client secret").send_keys(GOOGLE_SECRET)
    domains = field("Allowed hosted domains")
    domains.clear()
    domains.send_keys("Example.com, example.org")
    press(button("Save"), "Provider saved.")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'Google')]]")
    assert "Enabled hosted domains: example.com, example.org" in row.text, row.text
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/defaultSupportedIdpConfigs/google.com",
                          headers=OWNER, timeout=10).json()
    assert config["allowedHostedDomains"] == ["example.com", "example.org"], config
    assert config["nativeClientIds"] == ["1234-ios.apps.googleusercontent.com"] and "clientSecret" not in config, config
    press(button("Configure Google"), "set; never shown")
    assert GOOGLE_SECRET not in driver.page_source
    assert field("Allowed hosted domains").get_attribute("value") == "example.com, example.org"
    shoot("provider-google")
    go("Sign-in method")
    shoot("sign-in-method")  # every kind of provider configured: Apple's and Google's details beside their state


def add_and_find_user():
    go("Users")
    field("Email").send_keys("console-user@example.com")
    field("Password").send_keys("correct horse battery")
    press(button("Add user"), "User added.")
    uid = driver.find_element(By.XPATH, "//dt[.='UID']/following-sibling::dd[1]").text
    assert uid, "no uid"
    state["uid"] = uid
    shoot("user")
    go("Users")
    search = field("Search by email, UID or phone number")
    search.send_keys("console-user@example.com")
    press(button("Search"), "Users 1–1 of 1")
    assert uid in driver.page_source
    shoot("users")
    press(driver.find_element(By.LINK_TEXT, "console-user@example.com"), "Custom claims")
    assert sign_in("console-user@example.com", "correct horse battery").status_code == 200


def disable_user():
    press(button("Disable account"), "Account disabled.")
    response = sign_in("console-user@example.com", "correct horse battery")
    assert response.status_code == 400 and "USER_DISABLED" in response.text, response.text
    press(button("Enable account"), "Account enabled.")
    assert sign_in("console-user@example.com", "correct horse battery").status_code == 200


def edit_claims():
    claims = field("Custom claims")
    claims.clear()
    claims.send_keys('{"role": "admin"')
    press(button("Save claims"), "INVALID_CLAIMS")
    driver.back()
    wait_text("Custom claims")
    claims = field("Custom claims")
    claims.clear()
    claims.send_keys('{"role": "admin", "tier": 2}')
    press(button("Save claims"), "Custom claims saved.")
    token = sign_in("console-user@example.com", "correct horse battery").json()["idToken"]
    payload = claims_of(token)
    assert payload.get("role") == "admin" and payload.get("tier") == 2, payload


def delete_user():
    press(button("Delete user"), "cannot be undone")
    shoot("delete-user")
    press(button("Delete permanently"), "User deleted.")
    lookup = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=OWNER, json={"localId": [state["uid"]]}, timeout=10).json()
    assert "users" not in lookup, lookup
    assert sign_in("console-user@example.com", "correct horse battery").status_code == 400


def authorized_domains():
    go("Settings")
    field("Domain to authorize").send_keys("app.example.com")
    press(button("Add domain"), "Authorized domains saved.")
    shoot("settings")
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/config", headers=OWNER, timeout=10).json()
    assert "app.example.com" in config["authorizedDomains"], config
    press(button("Remove app.example.com"), "Authorized domains saved.")
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/config", headers=OWNER, timeout=10).json()
    assert "app.example.com" not in config.get("authorizedDomains", []), config
    # The other settings: one form, saved through the admin API.
    field("Email enumeration protection").click()
    press(button("Save settings"), "Settings saved.")
    config = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/config", headers=OWNER, timeout=10).json()
    assert config["emailPrivacyConfig"]["enableImprovedEmailPrivacy"] is True, config


V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"


def totp_code(secret, at=None):
    """The RFC 6238 code of a base32 secret (SHA-1, 6 digits, 30 s): pyotp's when it is installed, else the
    standard library's HMAC — either way not Hearth's code."""
    at = time.time() if at is None else at
    try:
        import pyotp
        return pyotp.TOTP(secret).at(int(at))
    except ImportError:
        key = base64.b32decode(secret.upper() + "=" * (-len(secret) % 8))
        digest = hmac.new(key, struct.pack(">Q", int(at) // 30), "sha1").digest()
        offset = digest[-1] & 0x0F
        return "%06d" % ((struct.unpack(">I", digest[offset:offset + 4])[0] & 0x7FFFFFFF) % 1_000_000)


def two_step_verification():
    go("Settings")
    wait_text("Two-step verification (TOTP)")
    assert "a window of ±150 seconds" in driver.find_element(By.TAG_NAME, "body").text, "the default of 5 intervals explained"
    enabled = field("Allow users to add an authenticator app")
    if not enabled.is_selected():
        enabled.click()
    intervals = field("Adjacent intervals (0–10)")
    intervals.clear()
    intervals.send_keys("1")
    press(button("Save two-step verification"), "Two-step verification saved.")
    wait_text("a window of ±30 seconds")
    config = requests.get(f"{V2}/projects/demo-hearth/config", headers=OWNER, timeout=10).json()
    mfa = config["mfa"]
    assert mfa["state"] == "ENABLED", mfa
    assert mfa["providerConfigs"][0]["totpProviderConfig"]["adjacentIntervals"] == 1, mfa
    shoot("settings-mfa")


def clock_check():
    go("Settings")
    wait_text("Check your authenticator app against this server's clock")
    source = driver.page_source
    key = re.search(r"Key: <code>([A-Z2-7]+)</code>", source).group(1)
    uri = html.unescape(re.search(r'<code class="uri">([^<]+)</code>', source).group(1))
    assert uri.startswith("otpauth://totp/demo-hearth:clock-check?secret=" + key), uri
    qr = driver.find_element(By.CSS_SELECTOR, ".qr svg")
    assert qr.get_attribute("role") == "img" and qr.get_attribute("aria-label"), "the QR code has an accessible name"
    if shutil.which("zbarimg"):
        # What a phone's camera reads: the code as the browser drew it, decoded by zbar.
        picture = os.path.join(work, "clock-check.png")
        with open(picture, "wb") as file:
            file.write(qr.screenshot_as_png)
        read = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sbinary", picture], capture_output=True, timeout=30)
        assert read.returncode == 0 and read.stdout.decode() == uri, (read.returncode, read.stdout[:200])
    else:
        print("note: zbarimg not installed (apt-get install zbar-tools): the QR code was not decoded")
    secret = re.search(r"secret=([A-Z2-7]+)", uri).group(1)
    field("Code the app shows").send_keys(totp_code(secret))
    press(button("Check code"), "The code matches")
    # The same step, or one behind when a 30-second boundary passed between typing and checking.
    text = driver.find_element(By.CSS_SELECTOR, "p.clock-ok").text
    assert "the app's clock and the server's agree" in text or "matches 1 step (about 30 seconds) behind" in text, text
    shoot("clock-check")
    field("Code the app shows").send_keys(totp_code(secret, time.time() - 60))
    press(button("Check code"), "Sign-ins refuse it: the adjacent intervals are 1.")
    text = driver.find_element(By.CSS_SELECTOR, "p.clock-bad").text
    assert re.search(r"matches [23] steps \(about (60|90) seconds\) behind", text), text


def user_with_second_factor():
    """A user enrolled over the REST API with TOTP codes computed here; the console lists the factor and removes it."""
    email = "totp-user@example.com"
    created = requests.post(f"{API}/projects/demo-hearth/accounts", headers=OWNER,
                            json={"email": email, "password": "correct horse battery", "emailVerified": True}, timeout=10)
    assert created.status_code == 200, created.text
    token = sign_in(email, "correct horse battery").json()["idToken"]
    started = requests.post(f"{V2}/accounts/mfaEnrollment:start?key=any", json={"idToken": token, "totpEnrollmentInfo": {}}, timeout=10)
    assert started.status_code == 200, started.text
    info = started.json()["totpSessionInfo"]
    finalized = requests.post(f"{V2}/accounts/mfaEnrollment:finalize?key=any", timeout=10, json={
        "idToken": token, "displayName": "Pixel 8",
        "totpVerificationInfo": {"sessionInfo": info["sessionInfo"], "verificationCode": totp_code(info["sharedSecretKey"])}})
    assert finalized.status_code == 200, finalized.text
    pending = sign_in(email, "correct horse battery").json()
    assert "mfaPendingCredential" in pending and "idToken" not in pending, pending
    find_user(email)
    assert "2FA" in driver.find_element(By.TAG_NAME, "table").text
    press(driver.find_element(By.LINK_TEXT, email), "Second factors")
    wait_text("Pixel 8")
    assert info["sharedSecretKey"] not in driver.page_source, "the factor's secret on a page"
    enrollment = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=OWNER, json={"email": [email]},
                               timeout=10).json()["users"][0]["mfaInfo"][0]["mfaEnrollmentId"]
    assert enrollment in driver.page_source, enrollment
    shoot("user-mfa")
    press_confirmed(button(f"Remove Pixel 8 ({enrollment})"), "Second factor removed.")
    wait_text("None: this user signs in with one factor.")
    signed_in = sign_in(email, "correct horse battery").json()
    assert "idToken" in signed_in and "mfaPendingCredential" not in signed_in, signed_in
    lookup = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=OWNER, json={"email": [email]}, timeout=10).json()
    assert not lookup["users"][0].get("mfaInfo"), lookup


def passkeys_card():
    go("Settings")
    wait_text("Passkeys")
    text = driver.find_element(By.TAG_NAME, "body").text
    assert "changing it strands every registered passkey" in text, "the rp id warning"
    assert f"Always allowed: {BASE}" in text, text[text.find("Always allowed"):][:200]
    enabled = field("Allow users to register and sign in with passkeys")
    if not enabled.is_selected():
        enabled.click()
    field("Preferred: a passkey that only checks presence is accepted").click()
    press(button("Save passkeys"), "Passkey setting saved.")
    passkeys = requests.get(f"{V2}/projects/demo-hearth/config", headers=OWNER, timeout=10).json()["passkeys"]
    assert passkeys["enabled"] is True and passkeys["userVerification"] == "PREFERRED", passkeys
    assert passkeys["rpId"] == "127.0.0.1", "the default rp id: the host of the public URL"
    # A bad rp id: the admin API's INVALID_CONFIG on the console's error page, nothing saved.
    rp_id = field("Relying party ID (rp id)")
    rp_id.send_keys("example.org")
    press(button("Save passkeys"), "INVALID_CONFIG")
    assert requests.get(f"{V2}/projects/demo-hearth/config", headers=OWNER, timeout=10).json()["passkeys"]["rpId"] == "127.0.0.1"
    go("Settings")
    wait_text("Passkeys")
    shoot("settings-passkeys")


def register_passkey(id_token, name):
    """A passkey registered over the RPCs by a software authenticator made here: a P-256 key, fido2's CBOR and COSE,
    `none` attestation, the server's origin and rp id."""
    from fido2 import cbor
    from fido2.cose import ES256
    from fido2.utils import websafe_encode
    started = requests.post(f"{V2}/accounts/passkeyEnrollment:start?key=any", json={"idToken": id_token}, timeout=10)
    assert started.status_code == 200, started.text
    options = started.json()["credentialCreationOptions"]
    key = ec.generate_private_key(ec.SECP256R1())
    credential_id = os.urandom(32)
    client_data = json.dumps({"type": "webauthn.create", "challenge": websafe_encode(base64.b64decode(options["challenge"])),
                              "origin": BASE, "crossOrigin": False}).encode()
    # rp id hash, flags UP|UV|AT, counter 0, AAGUID 0, the credential id and its COSE key.
    auth_data = (hashlib.sha256(options["rp"]["id"].encode()).digest() + bytes([0x45]) + struct.pack(">I", 0) + bytes(16)
                 + struct.pack(">H", len(credential_id)) + credential_id + cbor.encode(ES256.from_cryptography_key(key.public_key())))
    attestation = cbor.encode({"fmt": "none", "attStmt": {}, "authData": auth_data})
    finalized = requests.post(f"{V2}/accounts/passkeyEnrollment:finalize?key=any", timeout=10, json={
        "idToken": id_token, "name": name, "authenticatorRegistrationResponse": {
            "id": websafe_encode(credential_id), "rawId": websafe_encode(credential_id), "type": "public-key",
            "response": {"clientDataJSON": websafe_encode(client_data), "attestationObject": websafe_encode(attestation)}}})
    assert finalized.status_code == 200, finalized.text
    return websafe_encode(credential_id)


def user_passkeys():
    """A user with a passkey registered over the RPCs; the console lists it (shortened id) and removes it."""
    email = "passkey-user@example.com"
    created = requests.post(f"{API}/projects/demo-hearth/accounts", headers=OWNER,
                            json={"email": email, "password": "correct horse battery", "emailVerified": True}, timeout=10)
    assert created.status_code == 200, created.text
    credential_id = register_passkey(sign_in(email, "correct horse battery").json()["idToken"], "Work laptop")
    find_user(email)
    press(driver.find_element(By.LINK_TEXT, email), "Passkeys")
    wait_text("Work laptop")
    short = credential_id if len(credential_id) <= 20 else f"{credential_id[:10]}…{credential_id[-6:]}"
    assert short in driver.find_element(By.TAG_NAME, "body").text, short
    assert credential_id in driver.page_source, "the whole id in the row"
    shoot("user-passkeys")
    press_confirmed(button(f"Remove passkey Work laptop ({short})"), "Passkey removed")
    wait_text("None: this user has not registered a passkey.")
    lookup = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=OWNER, json={"email": [email]}, timeout=10).json()
    assert not lookup["users"][0].get("passkeyInfo"), lookup


def service_account_key():
    go("Service accounts")
    field("Service account email").send_keys("console@demo-hearth.iam.gserviceaccount.com")
    button("Create key and download JSON").click()
    deadline = time.time() + 20
    files = []
    while time.time() < deadline:
        files = [f for f in glob.glob(os.path.join(downloads, "*.json"))]
        if files:
            break
        time.sleep(0.2)
    assert files, "no key file downloaded"
    time.sleep(0.3)
    key = json.load(open(files[0]))
    assert key["type"] == "service_account" and "BEGIN PRIVATE KEY" in key["private_key"], key.keys()
    assert key["client_email"] == "console@demo-hearth.iam.gserviceaccount.com"
    driver.get(BASE + "/console/service-accounts")
    wait_text(key["private_key_id"])
    assert "PRIVATE KEY" not in driver.page_source
    shoot("service-accounts")
    # The key works: google-auth obtains an access token from Hearth's token endpoint and calls the admin API.
    from google.auth.transport.requests import Request
    from google.oauth2 import service_account
    credentials = service_account.Credentials.from_service_account_file(
        files[0], scopes=["https://www.googleapis.com/auth/identitytoolkit"])
    credentials.refresh(Request())
    bearer = {"Authorization": f"Bearer {credentials.token}"}
    lookup = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=bearer, json={"localId": ["nobody"]}, timeout=10)
    assert lookup.status_code == 200, lookup.text
    # Removing it (after a confirmation) ends its access at once.
    button(f"Remove key {key['private_key_id']}").click()
    WebDriverWait(driver, 10).until(lambda d: d.switch_to.alert)
    driver.switch_to.alert.accept()
    wait_text("Service-account key removed.")
    refused = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=bearer, json={"localId": ["nobody"]}, timeout=10)
    assert refused.status_code == 401, refused.text


def apps():
    go("Apps")
    field("Bundle ID").send_keys("com.example.notes")
    field("Firebase app ID").send_keys("1:1234567890:ios:0a1b2c3d")
    press(button("Add Apple app"), "App registered.")
    assert "app-1-1234567890-ios-0a1b2c3d://" in driver.find_element(By.TAG_NAME, "body").text
    field("Desktop app ID").send_keys("notes-desktop")
    press(button("Add desktop app"), "App registered.")
    shoot("apps")
    field("Bundle ID").send_keys("not a bundle id")
    field("Firebase app ID").send_keys("1:1:ios:zz")
    press(button("Add Apple app"), "a bundle id is dot-separated")
    driver.back()
    wait_text("notes-desktop")
    button("Remove notes-desktop").click()
    WebDriverWait(driver, 10).until(lambda d: d.switch_to.alert)
    driver.switch_to.alert.accept()
    wait_text("App removed.")
    assert "notes-desktop" not in driver.find_element(By.TAG_NAME, "body").text


def other_pages():
    for section, name, expect in [("Overview", "overview", "password")]:
        go(section)
        wait_text(expect)
        shoot(name)
    go("Audit log")
    body = driver.find_element(By.TAG_NAME, "body").text
    for action in ("console.login", "defaultSupportedIdpConfigs.create", "oauthIdpConfigs.create", "accounts.create", "accounts.update",
                   "accounts.delete", "config.update", "serviceAccountKeys.create", "apps.create", "apps.delete", "tenants.create",
                   "tenants.update", "tenants.delete"):
        assert action in body, action
    assert "console:owner" in body
    assert SECRET not in driver.page_source and OIDC_SECRET not in driver.page_source and GOOGLE_SECRET not in driver.page_source
    assert not any(line in driver.page_source for pem in state.get("apple_pems", []) for line in pem_lines(pem))
    shoot("audit-log")


def pick_scope(label, text):
    """Chooses `label` in the scope picker (console.js submits the GET form on change) and waits for `text`."""
    old = driver.find_element(By.TAG_NAME, "html")
    Select(field("Scope")).select_by_visible_text(label)
    WebDriverWait(driver, 20).until(replaced(old))
    wait_text(text)


def tenants():
    """Issue 38, item 4: create a tenant (a refused display name comes back beside its field), add a user in it with
    the picker on the tenant, switch the picker, configure the tenant's own Microsoft client, edit and delete."""
    go("Tenants")
    wait_text("No tenants yet")
    field("Display name").send_keys("Acme Corp")
    press(button("Create tenant"), "Nothing was saved")
    refusal = driver.find_element(By.ID, "display-name-error").text
    assert refusal == '"Acme Corp" is not a valid name: a display name starts with a letter and has 4 to 20 letters (a–z, A–Z), digits or hyphens', refusal
    name = field("Display name")
    name.clear()
    name.send_keys("Acme-Corp")
    field("Email/password sign-up and sign-in").click()
    press(button("Create tenant"), "Tenant created.")
    tenant = driver.find_element(By.ID, "tenant-id").get_attribute("value")
    assert re.fullmatch(r"acme-corp-[a-z0-9]{5}", tenant), tenant
    state["tenant"] = tenant
    resource = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/tenants/{tenant}", headers=OWNER, timeout=10).json()
    assert resource["displayName"] == "Acme-Corp" and resource["allowPasswordSignup"] is True, resource
    assert resource["enableAnonymousUser"] is False, resource

    press(button("Users of this tenant"), "No users in this tenant yet.")
    assert f"/console/t/{tenant}/users" in driver.current_url, driver.current_url
    field("Email").send_keys("ada@acme.example")
    field("Password").send_keys("correct horse battery")
    press(button("Add user"), "User added.")
    uid = driver.find_element(By.XPATH, "//dt[.='UID']/following-sibling::dd[1]").text
    assert driver.find_element(By.XPATH, "//dt[.='Tenant']/following-sibling::dd[1]").text == f"Acme-Corp ({tenant})"
    # The user signs in inside the tenant only; its ID token names the tenant.
    signed = requests.post(f"{API}/accounts:signInWithPassword?key=any", json={"email": "ada@acme.example", "password": "correct horse battery",
                                                                              "returnSecureToken": True, "tenantId": tenant}, timeout=10)
    assert signed.status_code == 200 and claims_of(signed.json()["idToken"])["firebase"]["tenant"] == tenant, signed.text
    assert sign_in("ada@acme.example", "correct horse battery").status_code == 400, "not a user of the project"
    go("Users")
    wait_text("ada@acme.example")
    assert "console-user@example.com" not in driver.find_element(By.TAG_NAME, "body").text
    shoot("tenant-users")

    # The picker: the project's users do not show the tenant's, and back.
    pick_scope("Project demo-hearth", "The project's own users and sign-in methods")
    assert "/console/users" in driver.current_url and "ada@acme.example" not in driver.find_element(By.TAG_NAME, "body").text
    # The tenant's user is not reachable from the project's pages.
    driver.get(f"{BASE}/console/user?uid={uid}")
    wait_text("USER_NOT_FOUND")
    driver.get(f"{BASE}/console/users")
    wait_text("Users")
    pick_scope(f"Acme-Corp ({tenant})", "ada@acme.example")

    # Sign-in method in the tenant: its own Microsoft client, the project's untouched.
    go("Sign-in method")
    wait_text("Users and sign-in methods of tenant Acme-Corp only")
    row = driver.find_element(By.XPATH, "//tr[td[contains(., 'microsoft.com')]]").text
    assert "Not configured" in row, row
    press(button("Configure Microsoft"), "Redirect URI to register at the provider")
    field("Client ID").send_keys("00000000-aaaa-bbbb-cccc-acmetenant01")
    field("Client secret").send_keys(SECRET)
    field("Allowed tenants").send_keys("acme.onmicrosoft.com")
    press(button("Save"), "Provider saved.")
    assert f"/console/t/{tenant}/providers" in driver.current_url, driver.current_url
    shoot("tenant-sign-in-method")
    ms = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/tenants/{tenant}/defaultSupportedIdpConfigs/microsoft.com",
                      headers=OWNER, timeout=10).json()
    assert ms["clientId"] == "00000000-aaaa-bbbb-cccc-acmetenant01", ms
    project_ms = requests.get(f"{BASE}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/defaultSupportedIdpConfigs/microsoft.com",
                              headers=OWNER, timeout=10).json()
    assert project_ms["clientId"] == "00000000-aaaa-bbbb-cccc-console00001", project_ms

    # A second tenant, edited and deleted after the confirmation page.
    go("Tenants")
    field("Display name").send_keys("Beta-Labs")
    press(button("Create tenant"), "Tenant created.")
    field("Anonymous sign-in").click()
    press(button("Save"), "Tenant saved.")
    shoot("tenant")
    go("Tenants")
    shoot("tenants")
    press(driver.find_element(By.LINK_TEXT, "Beta-Labs"), "Tenant Beta-Labs")
    press(button("Delete tenant"), "Its users (it has none now) and their data go with it")
    shoot("confirm-delete-tenant")
    press(button("Delete the tenant and its users"), "Tenant deleted")
    assert "Beta-Labs" not in driver.find_element(By.TAG_NAME, "body").text and "Acme-Corp" in driver.find_element(By.TAG_NAME, "body").text
    # A tenant that does not exist is a page saying so.
    driver.get(f"{BASE}/console/t/nope-zzzzz/users")
    wait_text("has no tenant")
    go("Overview")


class HookHandler(http.server.BaseHTTPRequestHandler):
    """A blocking function on loopback for the console's page: beforeCreate adds a role, beforeSignIn is down (500)."""
    seen = []

    def do_POST(self):  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))) or b"{}")
        claims = claims_of(body["data"]["jwt"])
        HookHandler.seen.append(claims)
        if self.path == "/before-create":
            status, answer = 200, {"userRecord": {"customClaims": {"role": "tester"}, "updateMask": "customClaims"}}
        else:
            status, answer = 500, {"error": {"status": "INTERNAL", "message": "the CRM is down"}}
        data = json.dumps(answer).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def blocking_functions():
    """Issue 39, items 1 and 5: on a `--dev` server (loopback http allowed), set beforeCreate and beforeSignIn on the
    Blocking functions page (an http URL to another host refused beside its field), send test events (the answer
    shown, never the JWT): beforeCreate's function answers claims, beforeSignIn's is down (500) and is then shown as
    failing on the page and the overview; the page seen from a tenant (read-only, the project's functions apply)."""
    hooks = http.server.ThreadingHTTPServer(("127.0.0.1", 0), HookHandler)
    threading.Thread(target=hooks.serve_forever, daemon=True).start()
    hook = f"http://127.0.0.1:{hooks.server_address[1]}"
    port = int(PORT) + 1
    base = f"http://127.0.0.1:{port}"
    dev_server, dev_link = serve(port, os.path.join(work, "hooks"), "--dev")
    try:
        driver.get(dev_link)
        wait_text("Signed in as owner")
        go("Blocking functions")
        wait_text("Function URLs")
        field("Before a user is created").send_keys("http://hooks.example.com/before-create")
        press(button("Save blocking functions"), "Nothing was saved")
        refusal = driver.find_element(By.ID, "hook-beforeCreate-error").text
        assert "http" in refusal, refusal
        url = field("Before a user is created")
        url.clear()
        url.send_keys(f"{hook}/before-create")
        field("Before a user signs in").send_keys(f"{hook}/before-sign-in")
        field("The provider's ID token").click()
        press(button("Save blocking functions"), "Blocking functions saved.")
        config = requests.get(f"{base}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/config", headers=OWNER, timeout=10).json()
        functions = config["blockingFunctions"]
        assert functions["triggers"]["beforeCreate"]["functionUri"] == f"{hook}/before-create", functions
        assert functions["triggers"]["beforeSignIn"]["functionUri"] == f"{hook}/before-sign-in", functions
        assert functions["forwardInboundCredentials"].get("idToken") is True, functions

        press(button("Send a test event to beforeCreate"), "Test event sent to beforeCreate")
        result = driver.find_element(By.ID, "test-result").text
        assert "HTTP 200" in result and "role" in result, result
        assert HookHandler.seen and HookHandler.seen[-1]["event_type"] == "beforeCreate", HookHandler.seen[-1:]
        sent = len(HookHandler.seen)
        assert not any(part in driver.page_source for part in ("eyJ",)), "a JWT on the page"
        shoot("blocking-functions")
        # beforeSignIn is down (500): its test event fails, and the page and the overview say so.
        press(button("Send a test event to beforeSignIn"), "Test event sent to beforeSignIn")
        result = driver.find_element(By.ID, "test-result").text
        assert "HTTP 500" in result and "Failed" in result, result
        assert [c["event_type"] for c in HookHandler.seen[sent:]] == ["beforeSignIn"], HookHandler.seen[sent:]
        go("Blocking functions")
        wait_text("A blocking function is failing")
        row = driver.find_element(By.ID, "event-beforeSignIn").text
        assert "Failing" in row, row
        assert "OK" in driver.find_element(By.ID, "event-beforeCreate").text
        shoot("blocking-functions-outage")
        go("Overview")
        wait_text("The last call to beforeSignIn failed")
        # Seen from a tenant: the project's functions, read-only.
        created = requests.post(f"{base}/identitytoolkit.googleapis.com/v2/projects/demo-hearth/tenants", headers=OWNER,
                                json={"displayName": "Acme-Corp"}, timeout=10).json()
        tenant = created["name"].split("/")[-1]
        driver.get(f"{base}/console/t/{tenant}/blocking-functions")
        wait_text("Change them on the project's page")
        assert "Save blocking functions" not in driver.find_element(By.TAG_NAME, "body").text
        assert f"{hook}/before-sign-in" in driver.find_element(By.TAG_NAME, "body").text
    finally:
        hooks.shutdown()
        dev_server.terminate()
        dev_server.wait(timeout=20)


def rotate_keys():
    go("Signing keys")
    button("Rotate now").click()
    WebDriverWait(driver, 10).until(lambda d: d.switch_to.alert)
    driver.switch_to.alert.accept()
    wait_text("A new signing key is published")
    rows = [row.text for row in driver.find_elements(By.XPATH, "//tbody/tr")]
    assert any("next" in row for row in rows) and any("active" in row for row in rows), rows
    shoot("keys")


def csrf_refused():
    session = driver.get_cookie("hearth_console")["value"]
    cookies = {"hearth_console": session}
    refused = requests.post(f"{BASE}/console/users", data={"email": "csrf@example.com", "password": "correct horse"}, cookies=cookies,
                            allow_redirects=False, timeout=10)
    assert refused.status_code == 403, refused.status_code
    forged = requests.post(f"{BASE}/console/users", data={"csrf": "forged", "email": "csrf@example.com", "password": "correct horse"},
                           cookies=cookies, allow_redirects=False, timeout=10)
    assert forged.status_code == 403, forged.status_code
    lookup = requests.post(f"{API}/projects/demo-hearth/accounts:lookup", headers=OWNER, json={"email": ["csrf@example.com"]}, timeout=10).json()
    assert "users" not in lookup, lookup


def log_out():
    press(button("Log out"), "You are logged out.")
    shoot("login")
    driver.get(BASE + "/console/users")
    wait_text("Administrator name")
    assert "/console/login" in driver.current_url


def idle_session():
    idle_server, idle_link = serve(int(PORT) + 1, os.path.join(work, "idle"), "--console-idle-timeout", "2")
    try:
        driver.get(idle_link)
        wait_text("Signed in as owner")
        time.sleep(3)
        driver.get(f"http://127.0.0.1:{int(PORT) + 1}/console/users")
        wait_text("Your console session has ended")
        assert "/console/login" in driver.current_url
    finally:
        idle_server.terminate()
        idle_server.wait(timeout=20)


try:
    check("the start-up link signs in once (HttpOnly, SameSite=Strict cookie)", login_with_link)
    check("hearth console login-link: a fresh link, clicked on another site's page, signs in", link_from_another_site)
    check("Sign-in method: enable Microsoft with client ID and write-only secret; redirect URI shown", enable_microsoft)
    check("Sign-in method: add and enable an oidc.* provider", enable_oidc)
    check("Sign-in method: Apple with bundle IDs alone (native only); return URL and HTTPS note shown", apple_native_only)
    check("Sign-in method: Apple's .p8 uploaded (a bad key gets the API's reason), never shown again", apple_key)
    check("Sign-in method: Google with a write-only secret, native client IDs and hosted domains", enable_google)
    check("Users: add a user, find it by email", add_and_find_user)
    check("Users: disable refuses its password sign-in over REST; enable restores it", disable_user)
    check("Users: claims are validated and appear in a fresh ID token", edit_claims)
    check("Users: delete with confirmation", delete_user)
    check("Settings: authorized domains added and removed; enumeration protection saved", authorized_domains)
    check("Settings: two-step verification (TOTP) on with 1 adjacent interval, read back from the admin API", two_step_verification)
    check("Settings: the clock check's QR code decodes to its otpauth URI; a current code matches, one 60 s old is refused", clock_check)
    check("Users: a user enrolled over REST with TOTP codes shows its factor; Remove (confirmed) ends the second step", user_with_second_factor)
    check("Settings: passkeys on with user verification preferred, read back from the admin API; a foreign rp id refused", passkeys_card)
    check("Users: a passkey registered over the RPCs (fido2's CBOR/COSE) is listed; Remove (confirmed) deletes it", user_passkeys)
    check("Service accounts: create downloads the JSON key once (google-auth gets admin tokens with it); remove ends it", service_account_key)
    check("Apps: add an Apple app (its URL scheme shown) and a desktop app, bad input refused, remove", apps)
    check("Tenants: create (bad name refused beside the field), add a user with the picker on it, switch scope, its own Microsoft client, delete", tenants)
    check("Overview and the audit log (changes recorded as console:owner)", other_pages)
    check("Signing keys: rotate now publishes the next key (after a confirmation)", rotate_keys)
    check("a form posted without (or with a wrong) CSRF token is refused", csrf_refused)
    check("log out ends the session", log_out)
    check("Blocking functions (--dev server): URLs saved (an http URL to another host refused beside its field), a test event's answer shown, a dead function shown failing on the page and the overview, read-only in a tenant", blocking_functions)
    check("an idle session is sent to log in", idle_session)
finally:
    driver.quit()
    server.terminate()
    server.wait(timeout=20)


def no_secret_in_the_log():
    with open(os.path.join(work, f"server-{PORT}.log")) as file:
        log = file.read()
    for secret in (SECRET, OIDC_SECRET, GOOGLE_SECRET):
        assert secret not in log, "a client secret in the server's log"
    assert not any(line in log for pem in state.get("apple_pems", []) for line in pem_lines(pem)), "a .p8 in the server's log"


check("the server's log holds no client secret and no .p8 key", no_secret_in_the_log)

passed = sum(results)
print(f"console: {passed} passed, {len(results) - passed} failed")
sys.exit(0 if all(results) else 1)
