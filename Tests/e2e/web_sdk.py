"""Web apps' OAuth popups and redirects through Hearth, in headless Chromium (issue 36).

Usage: web_sdk.py HEARTH_BINARY PORT
Starts two `hearth serve --dev` servers: on PORT with `--public-url http://localhost:PORT` (the same-site setup: the app
is on http://localhost:<app port>) and on PORT+1 with its default public URL http://127.0.0.1:PORT+1 (the cross-site
setup, as `hearth serve --dev` comes out of the box); then, on ports the system picks, the app's pages
(Tests/e2e/web/, plain HTTP, dual-stack) and a stand-in for https://apis.google.com/js/api.js (Tests/e2e/web/api.js:
gapi.iframes for the SDK's page and Hearth's iframe) over loopback HTTPS with a certificate for apis.google.com made
here by openssl. Chromium maps apis.google.com to the stand-in and app.unauthorized.test (not an authorized domain) to
127.0.0.1 with --host-resolver-rules, and ignores the stand-in's self-signed certificate.

1. Without the SDK (always): Tests/e2e/web/protocol.html performs the Firebase JS SDK 12.3's own requests and message
   exchanges (api.js?onload=, the iframe through gapi with its 5 s ping, webStorageSupport, the handler's query in
   the SDK's order, the popup, the pendingRedirect key, the SDK's auth event matching, accounts:signInWithIdp with
   the event's requestUri/sessionId, accounts:lookup) through the --dev Microsoft (tenant common, scopes) and Yahoo
   providers, popup and redirect; a provider refusal as an error event; then the attacks: an unauthorized
   redirectUrl, an unauthorized embedding origin, a replayed event and callback, an event for another eventId, an
   event for another app origin, a requestUri/sessionId mix-up, another provider's callback, a sign-in completed as
   another operation (reauth creates no user, link needs the idToken, sign-in takes none), the cross-site redirect
   (Hearth's explanation page) and the same-site redirect; and no Cross-Origin-Opener-Policy on Hearth's pages in
   the popup's path.
2. With Google's Firebase JS SDK (the CDN build's firebase-app.js and firebase-auth.js in the folder named by
   HEARTH_FIREBASE_JS_SDK, default /work/firebase-js-sdk; never copied into the repository; a SKIP line when absent):
   Tests/e2e/web/sdk.html runs, for microsoft.com (tenant common, a scope) and for yahoo.com: signInWithPopup,
   linkWithPopup (the other provider), reauthenticateWithPopup (as the user: reauthenticate; as an account the user
   does not have: auth/user-mismatch), signInWithRedirect + getRedirectResult, and the
   account-exists error → credentialFromError → password sign-in → linkWithCredential; then linkWithRedirect, a
   cancelled popup, an unauthorized embedding origin, and the cross-site redirect stopping at Hearth's explanation
   page.
3. Identity Platform tenants (issue 38): two tenants made through the v2 admin API, microsoft.com configured in one
   (…/tenants/{t}/defaultSupportedIdpConfigs, the dev IdP's client). Always, with protocol.html: the SDK's requests
   with tenantId (sign-up, password, signInWithIdp after a popup with `tid` whose event carries tenantId), refresh,
   the admin API's view, and the attacks (an unknown tid, a tenantId swapped mid-flow, another tenant's ID token).
   With the SDK: `auth.tenantId = tid` — createUserWithEmailAndPassword, signInWithEmailAndPassword,
   signInWithPopup(microsoft.com), getIdToken(true) — and updateCurrentUser across tenants (auth/tenant-id-mismatch).
Prints one line per check and 'web-sdk: N passed, M failed'; exits non-zero on any failure.
"""
import atexit
import base64
import http.server
import json
import os
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from urllib.parse import parse_qs, urlencode, urlparse, urlunparse

import requests
from checks import check, finish
from hearth_server import start_server
from selenium import webdriver
from selenium.common.exceptions import WebDriverException
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

HEARTH, PORT = sys.argv[1], int(sys.argv[2])
# Never let Selenium Manager look for drivers or send statistics: everything is local.
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

HERE = os.path.dirname(os.path.abspath(__file__))
WEB = os.path.join(HERE, "web")
SDK_DIR = os.environ.get("HEARTH_FIREBASE_JS_SDK", "/work/firebase-js-sdk")
SDK_FILES = ("firebase-app.js", "firebase-auth.js")
HAS_SDK = all(os.path.isfile(os.path.join(SDK_DIR, name)) for name in SDK_FILES)

BASE = f"http://localhost:{PORT}"            # Hearth, same site as the app
CROSS = f"http://127.0.0.1:{PORT + 1}"       # Hearth on another site than the app (its default public URL)
UNAUTHORIZED_HOST = "app.unauthorized.test"  # not an authorized domain of the project
PROJECT = "demo-hearth"
AUTHORIZED_TITLE = "This site is not an authorized domain"
CROSS_SITE_TITLE = "Redirect sign-in cannot work here"
started = time.monotonic()


# --- servers: Hearth ×2, the app's pages, the gapi stand-in ----------------------------------------------------------

work = tempfile.mkdtemp(prefix="hearth-web-sdk-e2e-")
for name in ("same-site", "cross-site"):
    os.makedirs(os.path.join(work, name))
start_server(HEARTH, PORT, os.path.join(work, "same-site"), f"http://127.0.0.1:{PORT}", extra=("--public-url", BASE))
start_server(HEARTH, PORT + 1, os.path.join(work, "cross-site"), CROSS)


class DualStackServer(http.server.ThreadingHTTPServer):
    """Listens on :: and 0.0.0.0 alike, so `localhost` works whichever address Chromium tries first."""
    address_family = socket.AF_INET6
    daemon_threads = True

    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()


class Quiet(http.server.BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send_file(self, path, content_type):
        with open(path, "rb") as file:
            data = file.read()
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(data)


class AppPages(Quiet):
    """The app's origin: the test pages, and the SDK's two files (read from outside the repository) under /sdk/."""
    pages = {"/protocol.html": "protocol.html", "/sdk.html": "sdk.html"}

    def do_GET(self):  # noqa: N802 - http.server's name
        path = urlparse(self.path).path
        if path in self.pages:
            return self.send_file(os.path.join(WEB, self.pages[path]), "text/html; charset=utf-8")
        if HAS_SDK and path.startswith("/sdk/") and path[5:] in SDK_FILES:
            return self.send_file(os.path.join(SDK_DIR, path[5:]), "text/javascript; charset=utf-8")
        self.send_error(404)


class GapiStandIn(Quiet):
    """https://apis.google.com/js/api.js (any query): Tests/e2e/web/api.js. Remembers who loaded it."""
    loads = []

    def do_GET(self):  # noqa: N802
        if urlparse(self.path).path != "/js/api.js":
            return self.send_error(404)
        GapiStandIn.loads.append({"path": self.path, "referer": self.headers.get("Referer")})
        self.send_file(os.path.join(WEB, "api.js"), "text/javascript; charset=utf-8")


def serve(server):
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server.server_address[1]


APP_PORT = serve(DualStackServer(("::", 0), AppPages))
APP = f"http://localhost:{APP_PORT}"
cert, key = os.path.join(work, "apis.pem"), os.path.join(work, "apis.key")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2",
                "-subj", "/CN=apis.google.com", "-addext", "subjectAltName=DNS:apis.google.com"],
               check=True, capture_output=True)
gapi_server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), GapiStandIn)
tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
tls.load_cert_chain(cert, key)
gapi_server.socket = tls.wrap_socket(gapi_server.socket, server_side=True)
GAPI_PORT = serve(gapi_server)


# --- Chromium --------------------------------------------------------------------------------------------------------

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,760",
                 f"--host-resolver-rules=MAP apis.google.com 127.0.0.1:{GAPI_PORT}, MAP {UNAUTHORIZED_HOST} 127.0.0.1",
                 "--ignore-certificate-errors"):
    options.add_argument(argument)
options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
atexit.register(driver.quit)  # before the servers' stops (atexit runs last-registered first)
MAIN = driver.current_window_handle


# --- helpers ---------------------------------------------------------------------------------------------------------

def wait_for(probe, timeout, what):
    """probe()'s first truthy value within `timeout` seconds, else an AssertionError naming `what`."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.1)


def page_url(origin, page, hearth, fragment=""):
    return f"{origin}/{page}?" + urlencode({"hearth": hearth}) + fragment


def open_page(origin, page, hearth, ready="window.t", fragment=""):
    """Opens a test page in the main window (closing stray popups) and waits until its script ran."""
    for handle in driver.window_handles:
        if handle != MAIN:
            driver.switch_to.window(handle)
            driver.close()
    driver.switch_to.window(MAIN)
    driver.get(page_url(origin, page, hearth, fragment))
    wait_for(lambda: driver.execute_script(f"return !!({ready})"), 15, f"{page} to load")


def click_action(js, argument):
    """Sets window.nextAction to `js` (with `a` = argument) and clicks #go: a real user gesture. The page's id."""
    driver.execute_script("const a = arguments[0]; window.nextAction = () => { " + js + " };", argument)
    driver.find_element(By.ID, "go").click()


def new_window(before, op_id, scope, timeout=15):
    """The popup's window handle; fails at once when the page's operation ended without one (the iframe did not
    answer, the popup was blocked)."""
    def probe():
        handles = [h for h in driver.window_handles if h not in before]
        if handles:
            return handles[0]
        op = driver.execute_script(f"return {scope}.ops[arguments[0]]", op_id)
        if op and op.get("done"):
            raise AssertionError(f"the operation ended without a popup: {op.get('error')}")
        return None
    return wait_for(probe, timeout, "the popup window")


def provider_form(action="login", email=None, name="Web Tester"):
    """On the dev IdP's login form in the current window: its URL (the authorization request); then signs in as
    `email` or cancels."""
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    url = driver.current_url
    if action == "login":
        driver.find_element(By.NAME, "email").send_keys(email)
        driver.find_element(By.NAME, "name").send_keys(name)
    try:
        driver.find_element(By.CSS_SELECTOR, f"button[value={action}]").click()
    except WebDriverException:
        pass  # Hearth's result page may close the popup while the click is still being reported
    return url


def popup(js, argument, action="login", email=None, keep_open=False):
    """Starts a popup operation from the main window's #go, signs in (or cancels) at the dev IdP in the popup, and
    returns (operation id, the provider's authorization URL, the popup's handle). `keep_open`: stay in the popup."""
    driver.switch_to.window(MAIN)
    before = set(driver.window_handles)
    click_action(js, argument)
    scope = "t" if driver.execute_script("return !!window.t") else "sdk"
    op_id = driver.execute_script(f"return {scope}.lastOpId")
    handle = new_window(before, op_id, scope)
    driver.switch_to.window(handle)
    authorize = provider_form(action, email) if action else None
    if not keep_open:
        driver.switch_to.window(MAIN)
    return op_id, authorize, handle


def operation(op_id, timeout=20, scope="t"):
    driver.switch_to.window(MAIN)
    return wait_for(lambda: driver.execute_script(f"const o = {scope}.ops[arguments[0]]; return o && o.done ? o : null", op_id),
                    timeout, f"operation {op_id}")


def received():
    return driver.execute_script("return t.received")


def rest(method, body):
    """An Identity Toolkit call from the page (the app's Origin, as the SDK sends it): (status, JSON)."""
    answer = driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; t.rest(arguments[0], arguments[1]).then(done, e => done({status: 0, body: String(e)}))",
        method, body)
    return answer["status"], answer["body"]


def email(prefix, domain="contoso.com"):
    return f"{prefix}-{uuid.uuid4().hex[:8]}@{domain}"


def ms(scopes=("User.Read", "Mail.Read"), **extra):
    return {"providerId": "microsoft.com", "customParameters": {"tenant": "common"}, "scopes": list(scopes), **extra}


def yahoo(**extra):
    return {"providerId": "yahoo.com", "scopes": ["sdps-r"], **extra}


def note(text):
    print(f"  - {text}")


def refused(status, body):
    """A signInWithIdp refusal: a 4xx with Google's error envelope and no session (its message printed)."""
    assert 400 <= status < 500, (status, body)
    assert isinstance(body.get("error", {}).get("message"), str), body
    assert "idToken" not in body and "refreshToken" not in body, body
    note(f"refused {status}: {body['error']['message'][:160]}")
    return body["error"]["message"]


def assert_event(event, auth_type, event_id, public_url):
    assert event["type"] == auth_type, event
    assert event["eventId"] == event_id, (event_id, event)
    assert event["urlResponse"].startswith(public_url + "/__/auth/handler?"), event
    for secret in ("access_token", "id_token", "client_secret", "code_verifier"):
        assert secret not in event["urlResponse"], event
    assert isinstance(event["sessionId"], str) and len(event["sessionId"]) >= 16, event
    assert event["postBody"] is None and event["tenantId"] is None and event.get("error") is None, event


def assert_signed_in(op, provider_id, address):
    assert "error" not in op, op
    status, body = op["signIn"]["status"], op["signIn"]["body"]
    assert status == 200 and body.get("idToken") and body.get("refreshToken"), op["signIn"]
    assert "needConfirmation" not in body and "errorMessage" not in body, body
    assert body["providerId"] == provider_id and body["email"] == address, body
    user = op["lookup"]["body"]["users"][0]
    assert op["lookup"]["status"] == 200 and user["localId"] == body["localId"], op["lookup"]
    assert [p for p in user["providerUserInfo"] if p["providerId"] == provider_id and p.get("email") == address], user


def authorize_query(url):
    return {k: v[0] for k, v in parse_qs(urlparse(url).query).items()}


def initial_events():
    return [r for r in received() if r["event"]["type"] == "unknown"]


def events_for(event_id):
    return [r for r in received() if r["event"].get("eventId") == event_id]


def coop(response):
    value = response.headers.get("Cross-Origin-Opener-Policy")
    assert value in (None, "unsafe-none"), (response.url, value)


def handler_query(**fields):
    query = {"apiKey": "web-protocol-e2e-key", "appName": "[DEFAULT]", "authType": "signInViaPopup",
             "redirectUrl": f"{APP}/protocol.html", "v": "12.3.0", "eventId": "1234567890", "providerId": "microsoft.com"}
    query.update({k: v for k, v in fields.items() if v is not None})
    for k in [k for k, v in fields.items() if v is None]:
        query.pop(k, None)
    return urlencode(query)


state = {}


# --- 1. the SDK's protocol without the SDK ---------------------------------------------------------------------------

@check("protocol: popup sign-in with the dev Microsoft IdP (tenant common, scopes) through the iframe and signInWithIdp")
def protocol_popup_microsoft():
    """Issue 36, items 1-3: the handler's JS SDK query, the iframe (gapi, webStorageSupport, one initial event), the
    popup's auth event, signInWithIdp."""
    open_page(APP, "protocol.html", BASE)
    address = email("popup-ms")
    op_id, authorize, _ = popup("t.popup(a)", ms(), email=address)
    op = operation(op_id)
    query = authorize_query(authorize)
    assert "/__dev/microsoft/common/oauth2/v2.0/authorize" in urlparse(authorize).path, authorize
    assert {"openid", "User.Read", "Mail.Read"} <= set(query["scope"].split()), query
    assert query.get("code_challenge_method") == "S256" and query.get("nonce") and query.get("state"), query
    # The iframe's one initial event (no redirect pending), acknowledged; webStorageSupport answered true.
    initial = initial_events()
    assert len(initial) == 1 and initial[0]["event"]["error"]["code"] == "auth/no-auth-event" and initial[0]["status"] == "ACK", initial
    assert op["webStorageSupport"] and op["webStorageSupport"][0]["webStorageSupport"] is True, op.get("webStorageSupport")
    assert_event(op["event"], "signInViaPopup", op["eventId"], BASE)
    assert [r["status"] for r in events_for(op["eventId"])] == ["ACK"], events_for(op["eventId"])
    assert_signed_in(op, "microsoft.com", address)
    # The app's page loaded api.js?onload=…, and Hearth's iframe loaded it too (plain, it defines gapi_onload).
    assert [load for load in GapiStandIn.loads if "onload=" in load["path"]], GapiStandIn.loads
    assert [load for load in GapiStandIn.loads if "onload=" not in load["path"]], GapiStandIn.loads
    state["ms_popup"] = op


@check("protocol: popup sign-in with the dev Yahoo IdP")
def protocol_popup_yahoo():
    """Issue 36, items 1-3: the same with Yahoo."""
    open_page(APP, "protocol.html", BASE)
    address = email("popup-yahoo", "yahoo.com")
    op_id, authorize, _ = popup("t.popup(a)", yahoo(), email=address)
    op = operation(op_id)
    assert "/__dev/yahoo/" in authorize and "sdps-r" in authorize_query(authorize)["scope"].split(), authorize
    assert_event(op["event"], "signInViaPopup", op["eventId"], BASE)
    assert_signed_in(op, "yahoo.com", address)


def redirect_round_trip(provider, address, hearth=BASE):
    """signInViaRedirect from the protocol page (a fragment in its URL), the dev IdP's form in the same tab, back."""
    open_page(APP, "protocol.html", hearth, fragment="#section-2")
    start = driver.current_url
    click_action("t.redirect(a)", provider)
    authorize = provider_form("login", address)
    result = wait_for(lambda: driver.execute_script("return window.t && t.redirectResult"), 20, "the redirect's result")
    return start, authorize, result


@check("protocol: same-site redirect sign-in (Microsoft): back to the exact redirectUrl, the stored event once, signInWithIdp")
def protocol_redirect_microsoft():
    """Issue 36, items 1-3 and 6: the redirect's event kept on Hearth's site, taken once by the iframe."""
    address = email("redirect-ms")
    start, authorize, result = redirect_round_trip(ms(), address)
    assert "/__dev/microsoft/common/" in authorize, authorize
    assert driver.current_url == start, (driver.current_url, start)
    assert driver.execute_script("return t.hadPendingRedirect") is True
    assert_event(result["event"], "signInViaRedirect", None, BASE)
    assert_signed_in(result, "microsoft.com", address)
    assert [r["event"]["type"] for r in received()] == ["signInViaRedirect"], received()
    # The stored event was read and deleted: a later page with the pendingRedirect key gets no-auth-event.
    driver.execute_script("sessionStorage.setItem('firebase:pendingRedirect:' + t.apiKey + ':[DEFAULT]', '\"true\"')")
    driver.refresh()
    again = wait_for(lambda: driver.execute_script("return window.t && t.redirectResult"), 15, "the second load's result")
    assert again["event"]["type"] == "unknown" and again["event"]["error"]["code"] == "auth/no-auth-event" and again["result"] is None, again


@check("protocol: same-site redirect sign-in (Yahoo)")
def protocol_redirect_yahoo():
    """Issue 36, items 1-3: the redirect with Yahoo."""
    address = email("redirect-yahoo", "yahoo.com")
    _, authorize, result = redirect_round_trip(yahoo(), address)
    assert "/__dev/yahoo/" in authorize, authorize
    assert_event(result["event"], "signInViaRedirect", None, BASE)
    assert_signed_in(result, "yahoo.com", address)


@check("protocol: the provider refused (cancel at the dev IdP): an error event the SDK maps to its code, no sign-in")
def protocol_cancel():
    """Issue 36, item 3: a provider refusal is an error event with the SDK's code."""
    open_page(APP, "protocol.html", BASE)
    op_id, _, _ = popup("t.popup(a)", ms(), action="cancel")
    op = operation(op_id)
    assert op["error"] in ("user-cancelled", "web-context-cancelled"), op
    events = events_for(op["eventId"])
    note(f"error event {events and events[0]['event']['error']}")
    assert len(events) == 1, events
    event = events[0]["event"]
    assert event["type"] == "signInViaPopup" and event["error"]["code"].startswith("auth/"), event
    assert event["urlResponse"] is None and event["sessionId"] is None, event
    assert not [r for r in driver.execute_script("return t.requests") if r["method"] == "signInWithIdp"]


# --- attacks ---------------------------------------------------------------------------------------------------------

@check("attack: an unauthorized redirectUrl stops at Hearth's refusal page in the popup, and nothing is delivered")
def attack_unauthorized_redirect_url_popup():
    """Issue 36, item 5: an unauthorized redirectUrl stops at the refusal page."""
    open_page(APP, "protocol.html", BASE)
    op_id, _, handle = popup("t.popup(a)", ms(redirectUrl="http://evil.example/app"), action=None, keep_open=True)
    wait_for(lambda: AUTHORIZED_TITLE in driver.page_source, 10, "the refusal page")
    assert "/emulator/auth/handler" in driver.current_url, driver.current_url
    driver.switch_to.window(MAIN)
    time.sleep(2)
    event_id = driver.execute_script("return t.ops[arguments[0]].eventId", op_id)
    assert events_for(event_id) == [] and not driver.execute_script("return t.ops[arguments[0]].done", op_id)
    driver.switch_to.window(handle)
    driver.close()
    driver.switch_to.window(MAIN)


@check("attack: unauthorized redirectUrls get a 400 page and no redirect (popup and redirect); a subdomain of an authorized domain passes")
def attack_unauthorized_redirect_urls():
    """Issue 36, item 5: Hearth enforces the authorized domains on redirectUrl (the SDK skips it in emulator mode)."""
    bad = ["http://evil.example/", "https://localhost.evil.example/", "http://127.0.0.1.evil.example:8080/",
           f"http://{UNAUTHORIZED_HOST}:{APP_PORT}/protocol.html", "ftp://localhost/", "javascript:alert(1)//localhost",
           "http://evil.example@/", "//localhost/", "not a url"]
    for auth_type in ("signInViaPopup", "signInViaRedirect"):
        for url in bad:
            response = requests.get(f"{BASE}/emulator/auth/handler?" + handler_query(authType=auth_type, redirectUrl=url,
                                                                                    eventId="1234567890" if "Popup" in auth_type else None),
                                    allow_redirects=False, timeout=10)
            assert response.status_code == 400 and "Location" not in response.headers, (auth_type, url, response.status_code, response.headers)
            assert "text/html" in response.headers.get("Content-Type", ""), (url, response.headers)
            coop(response)
        assert AUTHORIZED_TITLE in requests.get(f"{BASE}/emulator/auth/handler?" + handler_query(authType=auth_type, redirectUrl=bad[0]),
                                                timeout=10).text
    good = requests.get(f"{BASE}/emulator/auth/handler?" + handler_query(redirectUrl=f"http://app.localhost:{APP_PORT}/x?y=1#z"),
                        allow_redirects=False, timeout=10)
    assert good.status_code in (302, 303) and "/__dev/microsoft/" in good.headers["Location"], (good.status_code, good.text[:300])


@check("attack: an unauthorized embedding origin: the iframe is blocked (frame-ancestors), no ping answer, no popup")
def attack_unauthorized_embedding_origin():
    """Issue 36, items 2 and 5: the iframe's frame-ancestors come from the authorized domains."""
    open_page(f"http://{UNAUTHORIZED_HOST}:{APP_PORT}", "protocol.html", BASE)
    driver.get_log("browser")
    before = set(driver.window_handles)
    click_action("t.popup(a)", ms())
    op_id = driver.execute_script("return t.lastOpId")
    op = operation(op_id, timeout=15)
    assert op["error"] == "network-request-failed" and not op.get("opened"), op
    assert driver.execute_script("return t.initError.afterMs") >= 4500
    assert set(driver.window_handles) == before and received() == []
    # Blocked by the browser for its frame-ancestors (not a 404 or a script error).
    log = driver.get_log("browser")
    assert [e for e in log if "frame-ancestors" in e["message"] and f"Framing '{BASE}/'" in e["message"]], log
    policy = requests.get(f"{BASE}/emulator/auth/iframe?apiKey=k&appName=%5BDEFAULT%5D&v=12.3.0&eid=p", timeout=10).headers
    csp = policy.get("Content-Security-Policy", "")
    ancestors = next((d.split()[1:] for d in csp.split(";") if d.split() and d.split()[0] == "frame-ancestors"), None)
    assert ancestors and "*" not in ancestors, csp
    assert {"http://localhost:*", "https://localhost:*", "http://*.localhost:*", "https://*.localhost:*", "http://127.0.0.1:*"} <= set(ancestors), csp
    assert not any(UNAUTHORIZED_HOST in a for a in ancestors) and "X-Frame-Options" not in policy, policy


@check("attack: a replayed auth event (signInWithIdp again) and a replayed provider callback are refused")
def attack_replay():
    """Issue 36, item 3 (Tests: a replayed auth event): signInWithIdp completes a sign-in once."""
    first = state["ms_popup"]
    open_page(APP, "protocol.html", BASE)
    status, body = rest("signInWithIdp", {"requestUri": first["event"]["urlResponse"], "sessionId": first["event"]["sessionId"],
                                          "returnSecureToken": True, "returnIdpCredential": True})
    refused(status, body)
    again = requests.get(first["event"]["urlResponse"], allow_redirects=False, timeout=10)
    assert again.status_code == 400 and "Location" not in again.headers, (again.status_code, again.text[:300])
    assert first["event"]["sessionId"] not in again.text


@check("attack: an event for another eventId is not accepted (the SDK's matching answers ERROR, no signInWithIdp)")
def attack_other_event_id():
    """Issue 36, Tests (an event for another eventId): Hearth echoes the handler's eventId; the SDK's matching refuses others."""
    open_page(APP, "protocol.html", BASE)
    op_id, _, _ = popup("t.popup(a)", ms(eventId="1111111111", consumerEventId="2222222222"), email=email("other-event"))
    wait_for(lambda: events_for("1111111111"), 15, "Hearth's event")
    time.sleep(0.5)
    events = events_for("1111111111")
    assert [r["status"] for r in events] == ["ERROR"], events
    assert events[0]["event"]["type"] == "signInViaPopup", events
    assert not driver.execute_script("return t.ops[arguments[0]].done", op_id)
    assert not [r for r in driver.execute_script("return t.requests") if r["method"] == "signInWithIdp"]


@check("attack: an event made for another app origin is not relayed to this page (cross-site popup works for its own origin)")
def attack_other_app_origin():
    """Issue 36, item 5: never deliver an event to another origin."""
    # The app on 127.0.0.1 (an authorized domain, another site than Hearth at localhost): its own popup works...
    open_page(f"http://127.0.0.1:{APP_PORT}", "protocol.html", BASE)
    address = email("cross-site-popup")
    op_id, _, _ = popup("t.popup(a)", ms(), email=address)
    op = operation(op_id)
    assert_signed_in(op, "microsoft.com", address)
    # ...but a sign-in whose redirectUrl names http://localhost:<app> is not handed to the page on 127.0.0.1: Hearth's
    # result page finds the page's Hearth iframe and posts to it (then closes), and the iframe keeps it.
    op_id, _, handle = popup("t.popup(a)", ms(redirectUrl=f"{APP}/protocol.html"), email=email("other-origin"))
    wait_for(lambda: handle not in driver.window_handles, 10, "Hearth's result page to hand over the event and close")
    time.sleep(1)
    event_id = driver.execute_script("return t.ops[arguments[0]].eventId", op_id)
    assert events_for(event_id) == [], events_for(event_id)


def capture(provider, address):
    op_id, _, _ = popup("t.popup(a)", dict(provider, capture=True), email=address)
    op = operation(op_id)
    assert_event(op["event"], provider.get("authType", "signInViaPopup"), op["eventId"], BASE)
    return op["event"]


@check("attack: a requestUri/sessionId mix-up between two sign-ins is refused; each sign-in's own pair works")
def attack_mix_up():
    """Issue 36, item 3 (Tests: a requestUri/sessionId mix-up): the raw sessionId is bound to its sign-in."""
    open_page(APP, "protocol.html", BASE)
    first, second = capture(ms(), email("mixup-a")), capture(ms(), email("mixup-b"))
    assert first["sessionId"] != second["sessionId"]
    status, body = rest("signInWithIdp", {"requestUri": first["urlResponse"], "sessionId": second["sessionId"],
                                          "returnSecureToken": True, "returnIdpCredential": True})
    refused(status, body)
    status, body = rest("signInWithIdp", {"requestUri": second["urlResponse"], "sessionId": second["sessionId"],
                                          "returnSecureToken": True, "returnIdpCredential": True})
    assert status == 200 and body.get("idToken"), body


def with_code(url, code):
    parts = urlparse(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    query["code"] = code
    return urlunparse(parts._replace(query=urlencode(query)))


@check("attack: another provider's callback (Yahoo's code or result for a Microsoft sign-in) is refused")
def attack_other_provider():
    """Issue 36, Tests (another provider's callback): a code is exchanged only with the provider of its sign-in."""
    open_page(APP, "protocol.html", BASE)
    microsoft, yahoo_event = capture(ms(), email("swap-ms")), capture(yahoo(), email("swap-yahoo", "yahoo.com"))
    yahoo_code = parse_qs(urlparse(yahoo_event["urlResponse"]).query)["code"][0]
    status, body = rest("signInWithIdp", {"requestUri": with_code(microsoft["urlResponse"], yahoo_code), "sessionId": microsoft["sessionId"],
                                          "returnSecureToken": True, "returnIdpCredential": True})
    refused(status, body)
    status, body = rest("signInWithIdp", {"requestUri": yahoo_event["urlResponse"], "sessionId": microsoft["sessionId"],
                                          "returnSecureToken": True, "returnIdpCredential": True})
    refused(status, body)


def users_with_email(address):
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/projects/{PROJECT}/accounts:lookup",
                             json={"email": [address]}, headers={"Authorization": "Bearer owner"}, timeout=10)
    assert response.status_code == 200, response.text
    return response.json().get("users", [])


@check("attack: a sign-in used for another operation: a reauthentication creates no user, a link needs the idToken, a sign-in takes none")
def attack_operation_binding():
    """Issue 36, items 3-4 of the server contract: the authType kept with the session decides what signInWithIdp does."""
    open_page(APP, "protocol.html", BASE)
    # reauthViaPopup for an identity no user has (the SDK sends no idToken for a reauthentication).
    stranger = email("reauth-stranger")
    op_id, _, _ = popup("t.popup(a)", ms(authType="reauthViaPopup"), email=stranger)
    op = operation(op_id)
    assert_event(op["event"], "reauthViaPopup", op["eventId"], BASE)
    refused(op["signIn"]["status"], op["signIn"]["body"])
    assert users_with_email(stranger) == [], users_with_email(stranger)
    # linkViaPopup completed without the user's idToken.
    linking = capture(ms(authType="linkViaPopup"), email("link-no-token"))
    refused(*rest("signInWithIdp", {"requestUri": linking["urlResponse"], "sessionId": linking["sessionId"],
                                    "returnSecureToken": True, "returnIdpCredential": True}))
    # signInViaPopup completed with someone's idToken (it would link the identity to that user).
    holder = state["ms_popup"]["signIn"]["body"]
    intruder = email("signin-with-token")
    signing_in = capture(ms(), intruder)
    refused(*rest("signInWithIdp", {"requestUri": signing_in["urlResponse"], "sessionId": signing_in["sessionId"],
                                    "returnSecureToken": True, "returnIdpCredential": True, "idToken": holder["idToken"]}))
    status, body = rest("lookup", {"idToken": holder["idToken"]})
    assert status == 200 and all(p.get("email") != intruder for p in body["users"][0]["providerUserInfo"]), body


def console_messages(origin):
    try:
        return [entry["message"] for entry in driver.get_log("browser") if entry.get("source") == "console-api" and origin in entry["message"]]
    except WebDriverException:
        return []


@check("attack: cross-site redirect (app on localhost, Hearth on 127.0.0.1): Hearth's explanation page, in the console too")
def protocol_cross_site_redirect():
    """Issue 36, item 6: the cross-site redirect explains itself on Hearth's page and in the console."""
    open_page(APP, "protocol.html", CROSS)
    driver.get_log("browser")
    click_action("t.redirect(a)", ms())
    wait_for(lambda: CROSS_SITE_TITLE in driver.title, 10, "the explanation page's title")
    assert driver.current_url.startswith(f"{CROSS}/emulator/auth/handler?"), driver.current_url
    text = driver.find_element(By.TAG_NAME, "body").text.lower()
    assert "popup" in text and "proxy" in text and "subdomain" in text, text[:800]
    assert console_messages(CROSS), driver.get_log("browser")
    response = requests.get(driver.current_url, allow_redirects=False, timeout=10)
    assert response.status_code == 400 and "Location" not in response.headers and CROSS_SITE_TITLE in response.text, response.status_code
    coop(response)
    # The same app page's popup on that server still reaches the provider (popups are not partitioned).
    popup_page = requests.get(f"{CROSS}/emulator/auth/handler?" + handler_query(), allow_redirects=False, timeout=10)
    assert popup_page.status_code in (302, 303) and "/__dev/microsoft/" in popup_page.headers["Location"], popup_page.status_code


@check("no Cross-Origin-Opener-Policy (or unsafe-none) on Hearth's pages in the popup's path: handler, dev IdP forms, result, iframe, refusals")
def no_coop():
    """Issue 36, item 4: no Cross-Origin-Opener-Policy on Hearth's pages in the popup's path."""
    for provider_id in ("microsoft.com", "yahoo.com"):
        custom = json.dumps({"tenant": "common"}) if provider_id == "microsoft.com" else None
        session = requests.Session()
        start = session.get(f"{BASE}/emulator/auth/handler?" + handler_query(providerId=provider_id, customParameters=custom),
                            allow_redirects=False, timeout=10)
        coop(start)
        assert start.status_code in (302, 303), start.status_code
        form = session.get(start.headers["Location"], allow_redirects=False, timeout=10)
        coop(form)
        assert form.status_code == 200 and 'name="request_id"' in form.text, form.status_code
        request_id = form.text.split('name="request_id" value="')[1].split('"')[0]
        action = form.text.split('<form method="post" action="')[1].split('"')[0]
        for choice in ("login", "cancel"):
            if choice == "cancel":  # a second sign-in for the refusal's result page
                start = session.get(f"{BASE}/emulator/auth/handler?" + handler_query(providerId=provider_id, customParameters=custom),
                                    allow_redirects=False, timeout=10)
                form = session.get(start.headers["Location"], allow_redirects=False, timeout=10)
                request_id = form.text.split('name="request_id" value="')[1].split('"')[0]
            back = session.post(BASE + action, data={"request_id": request_id, "email": email("coop"), "name": "C", "action": choice},
                                allow_redirects=False, timeout=10)
            coop(back)
            assert back.status_code in (302, 303) and back.headers["Location"].startswith(BASE + "/__/auth/handler?"), back.status_code
            result = session.get(back.headers["Location"], allow_redirects=False, timeout=10)
            coop(result)
            assert result.status_code == 200 and "text/html" in result.headers["Content-Type"], (result.status_code, result.text[:300])
            # The page holds the event (a raw session id): its scripts are Hearth's own, nothing inline or foreign.
            csp = result.headers.get("Content-Security-Policy", "")
            script_src = next((d.split()[1:] for d in csp.split(";") if d.split() and d.split()[0] == "script-src"), None)
            assert script_src and not {"'unsafe-inline'", "'unsafe-eval'", "*", "http:", "https:"} & set(script_src), csp
    coop(requests.get(f"{BASE}/emulator/auth/iframe?apiKey=k&appName=%5BDEFAULT%5D&v=12.3.0&eid=p", timeout=10))
    coop(requests.get(f"{BASE}/__/auth/iframe?apiKey=k&appName=%5BDEFAULT%5D&v=12.3.0", timeout=10))
    coop(requests.get(f"{BASE}/emulator/auth/handler?" + handler_query(redirectUrl="http://evil.example/"), timeout=10))


# --- Identity Platform tenants (issue 38): the protocol page in a tenant, the admin API's view ----------------------

V1 = f"{BASE}/identitytoolkit.googleapis.com/v1"
V2 = f"{BASE}/identitytoolkit.googleapis.com/v2"
ADMIN = {"Authorization": "Bearer owner"}  # the emulator's credential: a demo-* project in --dev


def token_claims(token):
    """An ID token's payload, decoded (the signature is Hearth's business; this reads what the app reads)."""
    payload = token.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def admin_lookup(body, tenant=None):
    """accounts:lookup through the admin API: the project's path, or the tenant's (…/tenants/{t}/accounts:lookup)."""
    path = f"{V1}/projects/{PROJECT}" + (f"/tenants/{tenant}" if tenant else "") + "/accounts:lookup"
    response = requests.post(path, json=body, headers=ADMIN, timeout=10)
    assert response.status_code == 200, (path, response.text)
    return response.json().get("users", [])


def error_message(response):
    return response.json().get("error", {}).get("message", "")


def create_tenant(display_name):
    """A tenant made through the v2 admin API, then password sign-up switched on with a patch (off when created)."""
    response = requests.post(f"{V2}/projects/{PROJECT}/tenants", json={"displayName": display_name}, headers=ADMIN, timeout=10)
    assert response.status_code == 200, response.text
    created = response.json()
    tenant_id = created["name"].rsplit("/", 1)[1]
    assert created["name"] == f"projects/{PROJECT}/tenants/{tenant_id}" and not created.get("allowPasswordSignup"), created
    patched = requests.patch(f"{V2}/projects/{PROJECT}/tenants/{tenant_id}?updateMask=allowPasswordSignup",
                             json={"allowPasswordSignup": True}, headers=ADMIN, timeout=10)
    assert patched.status_code == 200 and patched.json()["allowPasswordSignup"] is True, patched.text
    return tenant_id


def tenant_microsoft(tenant_id, secret):
    """microsoft.com in the tenant (…/tenants/{t}/defaultSupportedIdpConfigs) against the dev Microsoft IdP, with its
    client id and the given secret: what a person pastes, as admin_production.py does for a project."""
    with open(os.path.join(work, "same-site", "data", "dev-idp-clients.json")) as file:
        dev = json.load(file)["microsoft"]
    endpoint = f"{BASE}/__dev/microsoft"
    configs = f"{V2}/projects/{PROJECT}/tenants/{tenant_id}/defaultSupportedIdpConfigs"
    existing = requests.get(f"{configs}/microsoft.com", headers=ADMIN, timeout=10)
    if existing.status_code == 200:
        response = requests.patch(f"{configs}/microsoft.com?updateMask=clientSecret", json={"clientSecret": secret or dev["secret"]},
                                  headers=ADMIN, timeout=10)
    else:
        response = requests.post(f"{configs}?idpId=microsoft.com", headers=ADMIN, timeout=10,
                                 json={"enabled": True, "clientId": dev["id"], "clientSecret": secret or dev["secret"],
                                       "endpointBase": endpoint, "graphBase": endpoint})
    assert response.status_code == 200, response.text
    assert response.json()["name"] == f"projects/{PROJECT}/tenants/{tenant_id}/defaultSupportedIdpConfigs/microsoft.com", response.text


def assert_in_tenant(session, tenant_id, address):
    """A session (signUp / signInWithPassword / signInWithIdp answer) of `address` in `tenant_id`: the ID token's
    firebase.tenant, the admin API finds the user in the tenant and not in the project."""
    claims = token_claims(session["idToken"])
    assert claims["firebase"].get("tenant") == tenant_id and claims["sub"] == session["localId"], claims
    found = admin_lookup({"localId": [session["localId"]]}, tenant=tenant_id)
    assert [u["localId"] for u in found] == [session["localId"]] and found[0].get("tenantId") == tenant_id, found
    assert found[0]["email"] == address, found
    assert admin_lookup({"localId": [session["localId"]]}) == [], "the project's admin path sees a tenant's user"


@check("tenants: two made through the v2 admin API (password sign-up off, then patched on); microsoft.com configured in one (…/tenants/{t}/defaultSupportedIdpConfigs)")
def tenants_created():
    """Issue 38, Done when (JS SDK in a tenant): the tenants and the tenant's own Microsoft client, by the admin API."""
    state["tenant_a"] = create_tenant("web-acme")
    state["tenant_b"] = create_tenant("web-globex")
    assert state["tenant_a"].startswith("web-acme-") and state["tenant_a"] != state["tenant_b"], state
    # A wrong secret first: the tenant's own configuration is the one a sign-in uses (checked below), then the right one.
    tenant_microsoft(state["tenant_a"], "not-the-secret")
    listed = requests.get(f"{V2}/projects/{PROJECT}/tenants/{state['tenant_a']}/defaultSupportedIdpConfigs", headers=ADMIN, timeout=10).json()
    assert [c["name"].rsplit("/", 1)[1] for c in listed.get("defaultSupportedIdpConfigs", [])] == ["microsoft.com"], listed
    assert "not-the-secret" not in json.dumps(listed), listed
    project = requests.get(f"{V2}/projects/{PROJECT}/defaultSupportedIdpConfigs", headers=ADMIN, timeout=10).json()
    assert not [c for c in project.get("defaultSupportedIdpConfigs", []) if c["name"].endswith("/microsoft.com")], project


@check("protocol in a tenant: signUp and signInWithPassword with tenantId, the token's firebase.tenant, lookup's users[].tenantId, refresh keeps it; the admin API sees the user in the tenant only; the same email in the project is another user")
def protocol_tenant_password():
    """Issue 38, Done when (JS SDK pattern, without the SDK): the requests the SDK sends with auth.tenantId set."""
    tenant = state["tenant_a"]
    open_page(APP, "protocol.html", BASE)
    address, password = email("tenant-pw"), "pw " + uuid.uuid4().hex[:12]
    status, created = rest("signUp", {"email": address, "password": password, "tenantId": tenant, "returnSecureToken": True})
    assert status == 200 and created.get("idToken"), created
    assert_in_tenant(created, tenant, address)
    status, signed_in = rest("signInWithPassword", {"email": address, "password": password, "tenantId": tenant, "returnSecureToken": True})
    assert status == 200 and signed_in["localId"] == created["localId"], signed_in
    assert_in_tenant(signed_in, tenant, address)
    # The SDK's reload: lookup with the ID token alone (no tenantId) answers the user's tenant.
    status, looked_up = rest("lookup", {"idToken": signed_in["idToken"]})
    assert status == 200 and looked_up["users"][0]["tenantId"] == tenant, looked_up
    # The password is the tenant's: the project has no such user.
    status, body = rest("signInWithPassword", {"email": address, "password": password, "returnSecureToken": True})
    assert status == 400, body
    # Refresh (no tenantId on the wire): the new ID token keeps the tenant.
    refreshed = requests.post(f"{BASE}/securetoken.googleapis.com/v1/token?key=web-protocol-e2e-key",
                              data={"grant_type": "refresh_token", "refresh_token": signed_in["refreshToken"]}, timeout=10)
    assert refreshed.status_code == 200, refreshed.text
    claims = token_claims(refreshed.json()["id_token"])
    assert claims["firebase"].get("tenant") == tenant and claims["sub"] == created["localId"], claims
    # The same email in the project is another user.
    status, project_user = rest("signUp", {"email": address, "password": password, "returnSecureToken": True})
    assert status == 200 and project_user["localId"] != created["localId"], project_user
    assert "tenant" not in token_claims(project_user["idToken"])["firebase"], project_user
    assert [u["localId"] for u in admin_lookup({"email": [address]})] == [project_user["localId"]]
    assert [u["localId"] for u in admin_lookup({"email": [address]}, tenant=tenant)] == [created["localId"]]
    state["protocol_tenant_session"] = signed_in


@check("protocol in a tenant: popup with the handler's tid (the tenant's own microsoft.com: a wrong secret refuses, the right one signs in); the auth event's tenantId; signInWithIdp in the tenant")
def protocol_tenant_popup():
    """Issue 38, item 2 and Done when: the handler takes tid, the auth event carries tenantId, the tenant's provider."""
    tenant = state["tenant_a"]
    open_page(APP, "protocol.html", BASE)
    # The tenant's microsoft.com has a wrong secret: refused, nobody signed in (the dev fallback would have worked).
    op_id, _, _ = popup("t.popup(a)", ms(tid=tenant), email=email("tenant-wrong-secret"))
    op = operation(op_id)
    assert op.get("error") or op["signIn"]["status"] != 200, op
    note(f"wrong secret: {op.get('error') or op['signIn']['body']['error']['message'][:160]}")
    tenant_microsoft(tenant, None)
    address = email("tenant-popup")
    op_id, authorize, _ = popup("t.popup(a)", ms(tid=tenant), email=address)
    op = operation(op_id)
    assert "/__dev/microsoft/common/oauth2/v2.0/authorize" in urlparse(authorize).path, authorize
    assert "tid=" + tenant in op["handlerUrl"], op["handlerUrl"]
    assert op["event"]["tenantId"] == tenant, op["event"]
    assert_event(dict(op["event"], tenantId=None), "signInViaPopup", op["eventId"], BASE)
    assert [r["status"] for r in events_for(op["eventId"])] == ["ACK"], events_for(op["eventId"])
    assert_signed_in(op, "microsoft.com", address)
    assert [r["body"].get("tenantId") for r in driver.execute_script("return t.requests") if r["method"] == "signInWithIdp"][-1] == tenant
    assert op["lookup"]["body"]["users"][0]["tenantId"] == tenant, op["lookup"]
    assert_in_tenant(op["signIn"]["body"], tenant, address)


@check("attack: tenants swapped: an unknown tid is an error event; a tenant's sign-in completed with another tenantId or none is refused and burned; a tenant's ID token with another tenantId is TENANT_ID_MISMATCH")
def attack_tenant_swap():
    """Issue 38, item 3 (a tenantId swapped mid-flow, another tenant's ID token)."""
    tenant, other = state["tenant_a"], state["tenant_b"]
    open_page(APP, "protocol.html", BASE)
    # A tenant Hearth does not have: the app hears of it as an error event, no provider page.
    click_action("t.popup(a)", ms(tid="nosuch-x7k2p"))
    op = operation(driver.execute_script("return t.lastOpId"))
    events = events_for(op["eventId"])
    assert op["error"] == "unsupported-tenant-operation" and len(events) == 1, (op, events)
    note(f"unknown tid: {events[0]['event']['error']}")
    # A sign-in begun in tenant a (tid) and completed naming tenant b, or the project: refused, and burned (as a wrong
    # sessionId burns it): not even its own tenant completes it afterwards, and nobody was signed up anywhere.
    address = email("tenant-swap")
    op_id, _, _ = popup("t.popup(a)", ms(tid=tenant, capture=True), email=address)
    captured = operation(op_id)
    event = captured["event"]
    assert event["tenantId"] == tenant, event
    assert_event(dict(event, tenantId=None), "signInViaPopup", captured["eventId"], BASE)
    for tenant_id in (other, None):
        body = {"requestUri": event["urlResponse"], "sessionId": event["sessionId"], "returnSecureToken": True, "returnIdpCredential": True}
        if tenant_id:
            body["tenantId"] = tenant_id
        refused(*rest("signInWithIdp", body))
    message = refused(*rest("signInWithIdp", {"requestUri": event["urlResponse"], "sessionId": event["sessionId"], "tenantId": tenant,
                                              "returnSecureToken": True, "returnIdpCredential": True}))
    assert "already completed" in message, message
    assert admin_lookup({"email": [address]}) == [] and admin_lookup({"email": [address]}, tenant=tenant) == []
    assert admin_lookup({"email": [address]}, tenant=other) == []
    # Tenant a's ID token sent with tenantId b.
    id_token = state["protocol_tenant_session"]["idToken"]
    for method, extra in (("lookup", {}), ("update", {"displayName": "Mallory"})):
        status, body = rest(method, {"idToken": id_token, "tenantId": other, **extra})
        assert status == 400 and body["error"]["message"].startswith("TENANT_ID_MISMATCH"), (method, status, body)
    status, body = rest("lookup", {"idToken": id_token})
    assert status == 200 and body["users"][0].get("displayName") != "Mallory", body


# --- 2. Google's Firebase JS SDK -------------------------------------------------------------------------------------

def sdk_operation(op_id, timeout=25):
    return operation(op_id, timeout, scope="sdk")


def sdk_popup(call, argument, action="login", address=None):
    op_id, authorize, _ = popup(f"sdk.{call}(a)", argument, action=action, email=address)
    return sdk_operation(op_id), authorize


def sdk_page(origin=APP, hearth=BASE):
    open_page(origin, "sdk.html", hearth, ready="window.sdk && window.sdk.ready && window.sdk.redirect !== undefined")


def password_user(address):
    password = "pw " + uuid.uuid4().hex[:12]
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signUp?key=k",
                             json={"email": address, "password": password, "returnSecureToken": True}, timeout=10)
    assert response.status_code == 200, response.text
    return password


def provider_ids(user):
    return sorted(p["providerId"] for p in user["providerData"])


PROVIDERS = {"microsoft.com": (ms, "contoso.com", "/__dev/microsoft/common/", "Mail.Read"),
             "yahoo.com": (yahoo, "yahoo.com", "/__dev/yahoo/", "sdps-r")}


def sdk_redirect_round_trip(call, argument, address):
    """sdk.<call> navigates this tab to Hearth; the dev IdP's form; back on the app, getRedirectResult's outcome."""
    click_action(f"sdk.{call}(a)", argument)
    provider_form("login", address)
    return wait_for(lambda: driver.execute_script("return window.sdk && window.sdk.redirect"), 20, "getRedirectResult")


def sdk_checks():
    for primary, other in (("microsoft.com", "yahoo.com"), ("yahoo.com", "microsoft.com")):
        make, domain, path, scope = PROVIDERS[primary]

        @check(f"SDK: signInWithPopup({primary}{', tenant common' if primary == 'microsoft.com' else ''}, a scope)")
        def sdk_popup_sign_in(primary=primary, make=make, domain=domain, path=path, scope=scope):
            """Issue 36, Done when: signInWithPopup with the real SDK."""
            sdk_page()
            sdk_operation(driver.execute_script("return sdk.signOut()"))
            address = email("sdk-popup", domain)
            op, authorize = sdk_popup("signInWithPopup", make(), address=address)
            assert "error" not in op, op
            assert path in authorize and scope in authorize_query(authorize)["scope"].split(), authorize
            result = op["result"]
            assert result["operationType"] == "signIn" and result["user"]["email"] == address, result
            assert provider_ids(result["user"]) == [primary], result
            assert result["credential"] and result["credential"]["providerId"] == primary, result
            state["sdk_user"] = (result["user"]["uid"], address)

        @check(f"SDK: linkWithPopup({other}) on that user")
        def sdk_link(primary=primary, other=other):
            """Issue 36, Done when: linkWithPopup with the real SDK."""
            uid, _ = state["sdk_user"]
            make_other, other_domain = PROVIDERS[other][:2]
            op, _ = sdk_popup("linkWithPopup", make_other(), address=email("sdk-link", other_domain))
            assert "error" not in op, op
            assert op["result"]["operationType"] == "link" and op["result"]["user"]["uid"] == uid, op
            assert provider_ids(op["result"]["user"]) == sorted([primary, other]), op

        @check(f"SDK: reauthenticateWithPopup({primary}) for the same user")
        def sdk_reauth(make=make):
            """Issue 36, Done when: reauthenticateWithPopup with the real SDK."""
            uid, address = state["sdk_user"]
            op, _ = sdk_popup("reauthenticateWithPopup", make(), address=address)
            assert "error" not in op, op
            assert op["result"]["operationType"] == "reauthenticate" and op["result"]["user"]["uid"] == uid, op

        @check(f"SDK: reauthenticateWithPopup({primary}) as an account the user does not have: auth/user-mismatch, still signed in")
        def sdk_reauth_mismatch(make=make, domain=domain):
            """Issue 36, item 3 (server contract 4): a reauthentication never creates a user; the SDK says user-mismatch."""
            uid, _ = state["sdk_user"]
            stranger = email("sdk-reauth-stranger", domain)
            op, _ = sdk_popup("reauthenticateWithPopup", make(), address=stranger)
            assert op.get("error", {}).get("code") == "auth/user-mismatch", op
            assert driver.execute_script("return sdk.currentUser()")["uid"] == uid
            assert users_with_email(stranger) == []

        @check(f"SDK: signInWithRedirect({primary}) + getRedirectResult (same site: app and Hearth on localhost)")
        def sdk_redirect(primary=primary, make=make, domain=domain):
            """Issue 36, Done when and item 6: signInWithRedirect + getRedirectResult, same site."""
            sdk_page()
            sdk_operation(driver.execute_script("return sdk.signOut()"))
            address = email("sdk-redirect", domain)
            result = sdk_redirect_round_trip("signInWithRedirect", make(), address)
            assert "error" not in result, result
            assert result["operationType"] == "signIn" and result["user"]["email"] == address, result
            assert provider_ids(result["user"]) == [primary], result
            state["sdk_redirect_user"] = result["user"]["uid"]

    @check("SDK: linkWithRedirect(microsoft.com) + getRedirectResult (its eventId <uid>:::<digits> comes back)")
    def sdk_link_redirect():
        """Issue 36, item 1: linkViaRedirect's eventId (<uid>:::<digits>) echoed exactly."""
        uid = state["sdk_redirect_user"]
        sdk_page()
        assert driver.execute_script("return sdk.currentUser()")["uid"] == uid
        result = sdk_redirect_round_trip("linkWithRedirect", ms(), email("sdk-link-redirect"))
        assert "error" not in result, result
        assert result["operationType"] == "link" and result["user"]["uid"] == uid, result
        assert provider_ids(result["user"]) == ["microsoft.com", "yahoo.com"], result

    for provider_id, make, domain in (("microsoft.com", ms, "contoso.com"), ("yahoo.com", yahoo, "yahoo.com")):
        @check(f"SDK: account exists ({provider_id}) → credentialFromError → password sign-in → linkWithCredential")
        def sdk_account_exists(provider_id=provider_id, make=make, domain=domain):
            """Issue 36, item 3 and Done when: account-exists → credentialFromError → link."""
            sdk_page()
            sdk_operation(driver.execute_script("return sdk.signOut()"))
            address = email("sdk-exists", domain)
            password = password_user(address)
            op, _ = sdk_popup("accountExists", make(password=password), address=address)
            assert "error" not in op, op
            result = op["result"]
            assert "unexpected" not in result, result
            assert result["error"]["code"] == "auth/account-exists-with-different-credential" and result["error"]["email"] == address, result
            assert result["error"]["credential"]["providerId"] == provider_id, result
            assert result["linked"]["operationType"] == "link" and result["linked"]["user"]["email"] == address, result
            assert provider_ids(result["linked"]["user"]) == sorted(["password", provider_id]), result

    @check("SDK: a popup cancelled at the provider rejects with the provider's refusal code")
    def sdk_cancel():
        """Issue 36, item 3: a provider refusal reaches the app as the SDK's error code."""
        sdk_page()
        op, _ = sdk_popup("signInWithPopup", ms(), action="cancel")
        assert op["error"]["code"] in ("auth/user-cancelled", "auth/web-context-cancelled"), op
        note(f"signInWithPopup rejected: {op['error']['code']}: {op['error']['message']}")

    @check("SDK: from an unauthorized origin signInWithPopup fails with auth/network-request-failed before any popup")
    def sdk_unauthorized_origin():
        """Issue 36, items 2 and 5: from an unauthorized origin the SDK fails before any popup."""
        sdk_page(origin=f"http://{UNAUTHORIZED_HOST}:{APP_PORT}")
        before = set(driver.window_handles)
        click_action("sdk.signInWithPopup(a)", ms())
        op = sdk_operation(driver.execute_script("return sdk.lastOpId"), timeout=15)
        assert op["error"]["code"] == "auth/network-request-failed", op
        assert set(driver.window_handles) == before

    @check("SDK: cross-site redirect (app on localhost, Hearth on 127.0.0.1) stops at Hearth's explanation page")
    def sdk_cross_site():
        """Issue 36, item 6 and Done when: the cross-site redirect fails with Hearth's message page."""
        sdk_page(hearth=CROSS)
        click_action("sdk.signInWithRedirect(a)", ms())
        wait_for(lambda: CROSS_SITE_TITLE in driver.title, 10, "the explanation page")
        assert driver.current_url.startswith(f"{CROSS}/emulator/auth/handler?") and "authType=signInViaRedirect" in driver.current_url


def sdk_tenant_checks():
    """Issue 38, Done when: `auth.tenantId = …` with Google's SDK: sign-up, password and Microsoft sign-in, refresh."""

    def run(js, *arguments, timeout=25):
        driver.switch_to.window(MAIN)
        return sdk_operation(driver.execute_script("return " + js, *arguments), timeout)

    def ok(op):
        assert "error" not in op, op
        return op["result"]

    @check("SDK in a tenant: auth.tenantId = tid; createUserWithEmailAndPassword, signOut, signInWithEmailAndPassword: user.tenantId, the token's firebase.tenant, the admin API sees the user in the tenant only")
    def sdk_tenant_password():
        """Issue 38, Done when: the JS SDK pattern auth.tenantId = … signs up and signs in with a password."""
        tenant = state["tenant_a"]
        sdk_page()
        ok(run("sdk.signOut()"))
        assert driver.execute_script("return sdk.setTenant(arguments[0])", tenant) == tenant
        address, password = email("sdk-tenant"), "pw " + uuid.uuid4().hex[:12]
        created = ok(run("sdk.createUser(arguments[0])", {"email": address, "password": password}))
        assert created["operationType"] == "signIn" and created["user"]["tenantId"] == tenant, created
        uid = created["user"]["uid"]
        ok(run("sdk.signOut()"))
        signed_in = ok(run("sdk.signInWithPassword(arguments[0])", {"email": address, "password": password}))
        assert signed_in["user"]["uid"] == uid and signed_in["user"]["tenantId"] == tenant, signed_in
        token = ok(run("sdk.idToken(false)"))["token"]
        claims = token_claims(token)
        assert claims["firebase"]["tenant"] == tenant and claims["sub"] == uid and claims["firebase"]["sign_in_provider"] == "password", claims
        assert_in_tenant({"idToken": token, "localId": uid}, tenant, address)
        state["sdk_tenant_user"] = (uid, address, password, token)

    @check("SDK in a tenant: signInWithPopup(OAuthProvider('microsoft.com')) through the tenant's own microsoft.com: user.tenantId, firebase.tenant, the admin API")
    def sdk_tenant_microsoft():
        """Issue 38, Done when: the JS SDK pattern auth.tenantId = … signs in with Microsoft (tid, the event's tenantId)."""
        tenant = state["tenant_a"]
        assert driver.execute_script("return sdk.tenant()") == tenant
        address = email("sdk-tenant-ms")
        op, authorize = sdk_popup("signInWithPopup", ms(), address=address)
        result = ok(op)
        assert "/__dev/microsoft/common/" in authorize, authorize
        assert result["operationType"] == "signIn" and result["user"]["email"] == address and result["user"]["tenantId"] == tenant, result
        assert provider_ids(result["user"]) == ["microsoft.com"], result
        token = ok(run("sdk.idToken(false)"))["token"]
        claims = token_claims(token)
        assert claims["firebase"]["tenant"] == tenant and claims["firebase"]["sign_in_provider"] == "microsoft.com", claims
        assert_in_tenant({"idToken": token, "localId": result["user"]["uid"]}, tenant, address)
        state["sdk_tenant_ms"] = result["user"]["uid"]

    @check("SDK in a tenant: user.getIdToken(true) refreshes (a Secure Token request) and the new token keeps firebase.tenant")
    def sdk_tenant_refresh():
        """Issue 38, Done when: the JS SDK pattern auth.tenantId = … refreshes inside the tenant."""
        tenant, uid = state["tenant_a"], state["sdk_tenant_ms"]
        before = driver.execute_script("return sdk.refreshes()")
        time.sleep(1.1)  # a new iat: the refreshed token differs from the first
        first = ok(run("sdk.idToken(false)"))["token"]
        refreshed = ok(run("sdk.idToken(true)"))
        assert driver.execute_script("return sdk.refreshes()") == before + 1
        assert refreshed["token"] != first and refreshed["user"]["uid"] == uid and refreshed["user"]["tenantId"] == tenant, refreshed
        claims = token_claims(refreshed["token"])
        assert claims["firebase"]["tenant"] == tenant and claims["sub"] == uid and claims["iat"] > token_claims(first)["iat"], claims

    @check("SDK in a tenant: the same email in the project (auth.tenantId = null) is another user")
    def sdk_tenant_same_email_in_project():
        """Issue 38, item 2: the same email in a tenant and in the project is two users."""
        uid, address, password, _ = state["sdk_tenant_user"]
        ok(run("sdk.signOut()"))
        assert driver.execute_script("return sdk.setTenant(null)") is None
        project_user = ok(run("sdk.createUser(arguments[0])", {"email": address, "password": password}))["user"]
        assert project_user["uid"] != uid and project_user["tenantId"] is None, project_user
        assert "tenant" not in token_claims(ok(run("sdk.idToken(false)"))["token"])["firebase"]
        assert [u["localId"] for u in admin_lookup({"email": [address]})] == [project_user["uid"]]
        assert [u["localId"] for u in admin_lookup({"email": [address]}, tenant=state["tenant_a"])] == [uid]

    @check("attack: with auth.tenantId = tenant B, updateCurrentUser(tenant A's user) rejects with auth/tenant-id-mismatch; A's password does not sign in in B; A's ID token with tenantId B is TENANT_ID_MISMATCH")
    def sdk_tenant_mismatch():
        """Issue 38, item 3 (another tenant's ID token) and item 2 (TENANT_ID_MISMATCH), with the SDK."""
        tenant, other = state["tenant_a"], state["tenant_b"]
        uid, address, password, _ = state["sdk_tenant_user"]
        ok(run("sdk.signOut()"))
        driver.execute_script("return sdk.setTenant(arguments[0])", tenant)
        ok(run("sdk.signInWithPassword(arguments[0])", {"email": address, "password": password}))
        kept = driver.execute_script("return sdk.keep('a')")
        assert kept["uid"] == uid and kept["tenantId"] == tenant, kept
        token = ok(run("sdk.idToken(false)"))["token"]
        driver.execute_script("return sdk.setTenant(arguments[0])", other)
        op = run("sdk.updateCurrentUser('a')")
        assert op.get("error", {}).get("code") == "auth/tenant-id-mismatch", op
        # In tenant B, tenant A's email and password are nobody's.
        op = run("sdk.signInWithPassword(arguments[0])", {"email": address, "password": password})
        assert op.get("error", {}).get("code") in ("auth/invalid-credential", "auth/user-not-found"), op
        note(f"tenant A's password in tenant B: {op['error']['code']}")
        # Raw REST: tenant A's ID token naming tenant B.
        for method, extra in (("lookup", {}), ("update", {"displayName": "Mallory"})):
            response = requests.post(f"{V1}/accounts:{method}?key=web-sdk-e2e-key", json={"idToken": token, "tenantId": other, **extra}, timeout=10)
            assert response.status_code == 400 and error_message(response).startswith("TENANT_ID_MISMATCH"), (method, response.text)
        assert admin_lookup({"localId": [uid]}, tenant=tenant)[0].get("displayName") != "Mallory"
        driver.execute_script("return sdk.setTenant(null)")
        ok(run("sdk.signOut()"))


if HAS_SDK:
    sdk_checks()
    sdk_tenant_checks()
else:
    print(f"SKIP Firebase JS SDK checks: {SDK_DIR} has no firebase-app.js and firebase-auth.js "
          "(set HEARTH_FIREBASE_JS_SDK to a folder with the CDN build's two files; they are never committed)")

print(f"web-sdk: ran in {time.monotonic() - started:.0f} s (api.js served {len(GapiStandIn.loads)} times)")
finish("web-sdk")
