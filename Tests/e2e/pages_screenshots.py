"""Every HTML page Hearth serves, in a real headless Chromium, at phone and desktop widths: checks the shared look
(viewport, stylesheet, no raw JSON) and saves a screenshot of each for people to look at.

Usage: pages_screenshots.py BASE_URL HEARTH_BINARY OUT_DIR   (the server runs with --dev)
Prints one line per page and 'pages: N passed, N failed'.
"""
import os
import sys
import tempfile

from cli_signin import start_signin
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

BASE, HEARTH, OUT = sys.argv[1:4]
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

    driver.get(BASE + "/__dev/try?provider=microsoft.com")
    login("pages@yahoo.com")
    wait_for("An account already exists")
    shoot("try-account-exists", "then link microsoft.com")

    driver.get(BASE + "/__/auth/handler?apiKey=k&providerId=facebook.com")
    shoot("handler-error", "Unsupported provider")

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
finally:
    driver.quit()

passed = sum(results)
print(f"pages: {passed} passed, {len(results) - passed} failed (screenshots in {OUT})")
sys.exit(0 if results and all(results) else 1)
