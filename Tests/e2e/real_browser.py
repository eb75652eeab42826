"""A real browser (Debian's Chromium, driven by Selenium) through Hearth's federated flow with the --dev providers.

Usage: real_browser.py BASE_URL HEARTH_BINARY
1. /__dev/try: auth handler → dev Microsoft login form → callback → signed in.
2. `hearth signin yahoo.com`: the browser follows the URL the CLI prints; the CLI's loopback listener completes.
3. /__dev/try/web (issue 36): the JS SDK's popup flow on Hearth's own page — the handler in a popup with the SDK's
   query (Microsoft, tenant organizations, a scope), the dev login form there, the auth event back to the page,
   accounts:signInWithIdp; a cancelled sign-in and a closed popup shown with the codes a web app gets; the page
   opened at another origin than the public URL says where to open it.
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


def web_try(query, in_popup):
    """Opens /__dev/try/web with `query`, clicks the button, runs `in_popup` in the popup, returns (outcome, error)."""
    driver.get(BASE + "/__dev/try/web" + query)
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "try-web-go").get_attribute("disabled") is None)
    page = driver.current_window_handle
    driver.find_element(By.ID, "try-web-go").click()
    WebDriverWait(driver, 10).until(lambda d: len(d.window_handles) == 2)
    driver.switch_to.window(next(handle for handle in driver.window_handles if handle != page))
    in_popup()
    driver.switch_to.window(page)
    WebDriverWait(driver, 20).until(lambda d: d.find_element(By.ID, "try-web-outcome").text or d.find_element(By.ID, "try-web-error").text)
    return driver.find_element(By.ID, "try-web-outcome").text, driver.find_element(By.ID, "try-web-error").text


def web_try_page():
    def in_popup():
        assert "/organizations/oauth2/v2.0/authorize" in driver.current_url and "User.Read" in driver.current_url, driver.current_url
        fill_and_submit("web@contoso.com", "Web User")
    outcome, error = web_try('?provider=microsoft.com&customParameters={"tenant":"organizations"}&scopes=User.Read', in_popup)
    assert outcome.startswith("Signed in with microsoft.com."), (outcome, error)
    result = driver.find_element(By.ID, "try-web-result").text
    assert "web@contoso.com" in result and "Refresh token" in result, result
    assert len(driver.window_handles) == 1, "the popup stayed open"


def web_try_refusals():
    def cancel():
        WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
        driver.find_element(By.CSS_SELECTOR, "button[value=cancel]").click()
    outcome, error = web_try("?provider=yahoo.com", cancel)
    assert "auth/user-cancelled" in error and not outcome, (outcome, error)

    def close():
        WebDriverWait(driver, 15).until(expected_conditions.presence_of_element_located((By.NAME, "email")))
        driver.close()
    outcome, error = web_try("?provider=microsoft.com", close)
    assert "auth/popup-closed-by-user" in error, (outcome, error)

    driver.get(BASE.replace("127.0.0.1", "localhost") + "/__dev/try/web")
    WebDriverWait(driver, 10).until(lambda d: d.find_element(By.ID, "try-web-error").text)
    assert f"Open this page at {BASE}/__dev/try/web" in driver.find_element(By.ID, "try-web-error").text
    assert driver.find_element(By.ID, "try-web-go").get_attribute("disabled") is not None


try:
    check("a real browser completes the --dev try page (Microsoft, organizations tenant)", try_page)
    check("/__dev/try/web: the JS SDK's popup flow signs in (Microsoft, organizations tenant, User.Read)", web_try_page)
    check("/__dev/try/web: a cancelled sign-in, a closed popup and another origin are explained", web_try_refusals)
    check("hearth signin yahoo.com completes in a real browser (loopback listener)", cli_signin)
finally:
    driver.quit()

passed = sum(results)
print(f"browser: {passed} passed, {len(results) - passed} failed")
sys.exit(0 if all(results) else 1)
