"""Starts `hearth serve` for an e2e script: its log in a file of the script's work directory, stopped at exit."""
import atexit
import os
import subprocess
import time

import requests


def start_server(hearth, port, work, base, extra=()):
    """`hearth serve --dev --port PORT --data-dir <work>/data` plus `extra`, waited for until /healthz answers.
    Returns the process, the log's path and a function that stops the server (closing the log); exits (printing the
    log) when the server does not come up."""
    log_path = os.path.join(work, "server.log")
    log_file = open(log_path, "w")  # noqa: SIM115 - open for the server's lifetime
    server = subprocess.Popen([hearth, "serve", "--dev", "--port", str(port), *extra, "--data-dir", os.path.join(work, "data")],
                              stdout=log_file, stderr=subprocess.STDOUT)

    def stop():
        if server.poll() is None:
            server.terminate()
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                server.kill()
        log_file.close()

    atexit.register(stop)
    for _ in range(300):
        try:
            if requests.get(f"{base}/healthz", timeout=1).status_code == 200:
                return server, log_path, stop
        except requests.RequestException:
            pass
        time.sleep(0.1)
    stop()
    print(open(log_path).read())
    raise SystemExit("server did not start")


def save_page_screenshots(driver, name, directory):
    """docs/console.md's screenshots of the page `driver` shows, `console-<name>-{desktop,phone}.png` in `directory`
    (nothing when it is None), each of the whole page. A window resize that headless Chromium refuses is retried
    once, then reported; it never fails the functional check around it."""
    if not directory:
        return
    os.makedirs(directory, exist_ok=True)
    for attempt in (1, 2):
        try:
            for size, (width, height) in {"desktop": (1200, 900), "phone": (390, 844)}.items():
                driver.set_window_size(width, height)
                # The whole page: the document's height (the body's can be shorter) plus what the window itself
                # takes beyond its viewport, so the bottom of a long form is in the picture.
                total = driver.execute_script("return Math.max(document.documentElement.scrollHeight, document.body.scrollHeight)")
                chrome = driver.execute_script("return window.outerHeight - window.innerHeight")
                driver.set_window_size(width, min(max(height, total + max(chrome, 0) + 20), 2400))
                driver.execute_script("window.scrollTo(0, 0)")
                driver.save_screenshot(os.path.join(directory, f"console-{name}-{size}.png"))
            driver.set_window_size(1200, 900)
            return
        except Exception as error:  # selenium's WebDriverException; this module does not import selenium
            print(f"note: screenshot {name} attempt {attempt} failed: {error!r}")
            time.sleep(1)
    driver.set_window_size(1200, 900)
