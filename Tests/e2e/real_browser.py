"""A real browser (Debian's Chromium, driven by Selenium) through Hearth's federated flow with the --dev providers.

Usage: real_browser.py BASE_URL HEARTH_BINARY
1. /__dev/try: auth handler → dev Microsoft login form → callback → signed in.
2. `hearth signin yahoo.com`: the browser follows the URL the CLI prints; the CLI's loopback listener completes.
Prints 'browser: N passed, N failed'.
"""
import os
import sys
import tempfile
import time

from cli_signin import start_signin
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

BASE, HEARTH = sys.argv[1:3]
# Never let Selenium Manager look for drivers or send statistics: everything is local.
os.environ["SE_OFFLINE"] = "true"
os.environ["SE_AVOID_STATS"] = "true"

options = Options()
options.binary_location = "/usr/bin/chromium"
for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=900,700"):
    options.add_argument(argument)
driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
results = []


def check(name, body):
    try:
        body()
        results.append(True)
        print(f"PASS {name}")
    except Exception as error:  # noqa: BLE001 - report every failure
        results.append(False)
        print(f"FAIL {name}: {error!r}")


def fill_and_submit(email, name):
    WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
    driver.find_element(By.NAME, "email").send_keys(email)
    driver.find_element(By.NAME, "name").send_keys(name)
    driver.find_element(By.CSS_SELECTOR, "button[value=login]").click()


def try_page():
    driver.get(BASE + "/__dev/try?provider=microsoft.com&tenant=organizations")
    fill_and_submit("browser@contoso.com", "Browser User")
    WebDriverWait(driver, 15).until(lambda d: "Signed in with microsoft.com" in d.page_source or "failed" in d.page_source)
    assert "Signed in with microsoft.com" in driver.page_source, driver.page_source[:500]
    assert "browser@contoso.com" in driver.page_source


def cli_signin():
    cli, url, _ = start_signin(HEARTH, tempfile.mkdtemp(), "yahoo.com", "--server", BASE)
    driver.get(url)
    fill_and_submit("browser@yahoo.com", "Browser Yahoo")
    WebDriverWait(driver, 15).until(lambda d: "Signed in with yahoo.com" in d.page_source)
    out, err = cli.communicate(timeout=30)
    assert cli.returncode == 0, (out, err)
    assert "Signed in as" in out and "yahoo.com" in out and "browser@yahoo.com" in out, out


try:
    check("a real browser completes the --dev try page (Microsoft, organizations tenant)", try_page)
    check("hearth signin yahoo.com completes in a real browser (loopback listener)", cli_signin)
finally:
    driver.quit()

passed = sum(results)
print(f"browser: {passed} passed, {len(results) - passed} failed")
sys.exit(0 if all(results) else 1)
