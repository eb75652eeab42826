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
