"""Every HTML page Hearth serves, in a real headless Chromium, at phone and desktop widths: checks the shared look
(viewport, stylesheet, no raw JSON) and saves a screenshot of each for people to look at.

Usage: pages_screenshots.py BASE_URL HEARTH_BINARY OUT_DIR [DATA_DIR]   (the server runs with --dev; with its
DATA_DIR the console's Templates page is shot too, signed in with `hearth console login-link`)
Prints one line per page and 'pages: N passed, N failed'.
"""
import json
import os
import subprocess
import sys
import tempfile
import urllib.request

from cli_signin import start_signin
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

BASE, HEARTH, OUT = sys.argv[1:4]
DATA = sys.argv[4] if len(sys.argv) > 4 else None
os.makedirs(OUT, exist_ok=True)
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--hide-scrollbars"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
results = []
SIZES = {"phone": (390, 844), "desktop": (1100, 800)}


def shoot(name, expect):
    """Checks the page on screen and saves it at both sizes."""
    try:
        source = driver.page_source
        assert 'name="viewport"' in source, "no viewport meta"
        assert "--accent" in source, "not the shared stylesheet"
        assert '{"' not in driver.find_element(By.TAG_NAME, "body").text, "raw JSON on the page"
        assert expect in source, f"expected {expect!r}"
        for size, (width, height) in SIZES.items():
            driver.set_window_size(width, height)
            driver.save_screenshot(os.path.join(OUT, f"{name}-{size}.png"))
        results.append(True)
        print(f"PASS {name}")
    except Exception as error:  # noqa: BLE001 - report every failure
        results.append(False)
        print(f"FAIL {name}: {error!r}")


def login(email, cancel=False):
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.CSS_SELECTOR, "button[value=cancel]" if cancel else "button[value=login]").click()


def wait_for(text):
    WebDriverWait(driver, 15).until(lambda d: text in d.page_source)


def api(method, body):
    """An Identity Toolkit call as an app makes it (the demo project takes any API key)."""
    request = urllib.request.Request(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:{method}?key=pages", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    return json.load(urllib.request.urlopen(request))


def mailed_link(request_type):
    """The newest link of a kind in the dev mailbox (the emulator's oobCodes listing)."""
    codes = json.load(urllib.request.urlopen(f"{BASE}/emulator/v1/projects/demo-hearth/oobCodes"))["oobCodes"]
    return [code for code in codes if code["requestType"] == request_type][-1]["oobLink"]


def submit(fields, button_text):
    """Fills a plain HTML form and presses its button (no JavaScript on these pages)."""
    for name, value in fields.items():
        driver.find_element(By.NAME, name).send_keys(value)
    driver.find_element(By.XPATH, f"//button[contains(., {json.dumps(button_text)})]").click()


def action_pages():
    """The email action pages: a password reset by its form, the same link used again, email verification, a
    broken link, the dev mailbox, and the console's Templates page."""
    account = api("signUp", {"email": "pages-reset@example.com", "password": "old password", "returnSecureToken": True})
    api("sendOobCode", {"requestType": "PASSWORD_RESET", "email": "pages-reset@example.com"})
    reset = mailed_link("PASSWORD_RESET")
    driver.set_window_size(*SIZES["phone"])
    driver.get(reset)
    shoot("action-reset-form", "Choose a new password")
    submit({"newPassword": "new secret 42", "confirmPassword": "new secret 42"}, "Save the new password")
    wait_for("Password changed")
    shoot("action-reset-done", "Password changed")
    signed_in = api("signInWithPassword", {"email": "pages-reset@example.com", "password": "new secret 42", "returnSecureToken": True})
    assert signed_in["localId"] == account["localId"], "the new password signs in"
    driver.get(reset)
    shoot("action-link-used", "This link was already used or is not valid")

    api("sendOobCode", {"requestType": "VERIFY_EMAIL", "idToken": signed_in["idToken"]})
    driver.get(mailed_link("VERIFY_EMAIL"))
    shoot("action-verify", "Verify my email")
    submit({}, "Verify my email")
    wait_for("Email verified")
    shoot("action-verified", "Email verified")

    driver.get(BASE + "/__/auth/action?mode=resetPassword")
    shoot("action-bad-link", "This link does not work")

    driver.get(BASE + "/__dev/mail")
    shoot("dev-mailbox", "Dev mailbox")

    if DATA:
        out = subprocess.run([HEARTH, "console", "login-link", "--data-dir", DATA, "--public-url", BASE], capture_output=True, text=True, check=True)
        driver.get(next(word for word in out.stdout.split() if "/console/login/link?token=" in word))
        wait_for("Log out")
        driver.get(BASE + "/console/templates?kind=resetPassword")
        shoot("console-templates", "Send a test email")


try:
    driver.set_window_size(*SIZES["phone"])
    driver.get(BASE + "/")
    shoot("index", "Hearth is running")

    driver.get(BASE + "/__dev/try?provider=microsoft.com&tenant=organizations")
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    shoot("dev-idp-login-form", "Sign in to Microsoft")
    login("pages@outlook.com")
    wait_for("refused the sign-in")
    shoot("try-refused-work-or-school", "work or school accounts only")

    driver.get(BASE + "/__dev/try?provider=yahoo.com")
    login("pages@yahoo.com", cancel=True)
    wait_for("Sign-in cancelled")
    shoot("try-cancelled", "Sign-in cancelled")

    driver.get(BASE + "/__dev/try?provider=yahoo.com")
    login("pages@yahoo.com")
    wait_for("Signed in with yahoo.com")
    shoot("try-signed-in", "Signed in with yahoo.com")

    # The Apple- and Google-shaped dev providers' forms share the look (issue 35); Apple's answer is a form_post page.
    driver.get(BASE + "/__dev/try?provider=apple.com")
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    shoot("dev-idp-login-form-apple", "Hide My Email")
    login("pages-apple@example.com")
    wait_for("Signed in with apple.com")
    shoot("try-signed-in-apple", "Signed in with apple.com")

    driver.get(BASE + "/__dev/try?provider=google.com")
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    shoot("dev-idp-login-form-google", "Email address not verified")

    driver.get(BASE + "/__dev/try?provider=microsoft.com")
    login("pages@yahoo.com")
    wait_for("An account already exists")
    shoot("try-account-exists", "then link microsoft.com")

    driver.get(BASE + "/__/auth/handler?apiKey=k&providerId=facebook.com")
    shoot("handler-error", "Unsupported provider")

    # /__dev/try/web (issue 36): the JS SDK's popup flow on Hearth's own page, signed in.
    driver.get(BASE + '/__dev/try/web?provider=microsoft.com&customParameters={"tenant":"organizations"}&scopes=User.Read')
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "try-web-go").get_attribute("disabled") is None)
    page = driver.current_window_handle
    driver.find_element(By.ID, "try-web-go").click()
    WebDriverWait(driver, 10).until(lambda d: len(d.window_handles) == 2)
    driver.switch_to.window(next(handle for handle in driver.window_handles if handle != page))
    login("pages-web@contoso.com")
    driver.switch_to.window(page)
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "try-web-outcome").text)
    shoot("try-web-signed-in", "Signed in with microsoft.com")

    cli, url, _ = start_signin(HEARTH, tempfile.mkdtemp(), "yahoo.com", "--server", BASE)
    driver.get(url)
    login("pages-cli@yahoo.com")
    wait_for("Signed in with yahoo.com")
    shoot("cli-loopback-signed-in", "pages-cli@yahoo.com")
    cli.communicate(timeout=30)

    cli, url, _ = start_signin(HEARTH, tempfile.mkdtemp(), "microsoft.com", "--server", BASE)
    driver.get(url)
    login("pages-cli@yahoo.com")
    wait_for("An account already exists")
    shoot("cli-loopback-account-exists", "yahoo.com")
    cli.communicate(timeout=30)

    cli, url, _ = start_signin(HEARTH, tempfile.mkdtemp(), "microsoft.com", "--server", BASE, "--param", "tenant=organizations")
    driver.get(url)
    login("pages-cli@outlook.com")
    wait_for("refused the sign-in")
    shoot("cli-loopback-refused", "work or school accounts only")
    cli.communicate(timeout=30)

    try:
        action_pages()
    except Exception as error:  # noqa: BLE001 - report it with the others
        results.append(False)
        print(f"FAIL action pages: {error!r}")
finally:
    driver.quit()

passed = sum(results)
print(f"pages: {passed} passed, {len(results) - passed} failed (screenshots in {OUT})")
sys.exit(0 if results and all(results) else 1)
