"""`hearth users`: a Firebase auth:export file with Firebase's scrypt hashes imported by the CLI, signed in to,
exported again, and imported into a second Hearth with the parameters the export printed (a full migration).

Usage: users_cli.py HEARTH_BINARY PORT
Prints one line per check and 'users-cli: N passed, N failed'; exits non-zero on any failure.
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

import requests
from checks import check, finish, record_failure  # noqa: F401 - the shared runner

HEARTH, PORT = sys.argv[1:3]
BASE = f"http://127.0.0.1:{PORT}"
work = tempfile.mkdtemp()
FIREBASE_SCRYPT = ["--hash-algo", "SCRYPT", "--hash-key",
                   "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
                   "--salt-separator", "Bw==", "--rounds", "8", "--mem-cost", "14"]


def hearth(*arguments, env=None):
    return subprocess.run([HEARTH, *arguments], capture_output=True, text=True, timeout=120, env=env)


def serve(data_dir):
    server = subprocess.Popen([HEARTH, "serve", "--port", PORT, "--data-dir", data_dir], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            if requests.get(f"{BASE}/healthz", timeout=1).status_code == 200:
                return server
        except requests.RequestException:
            pass
        time.sleep(0.1)
    server.kill()
    raise AssertionError("server did not start")


def sign_in(email, password):
    response = requests.post(f"{BASE}/identitytoolkit.googleapis.com/v1/accounts:signInWithPassword?key=any",
                             json={"email": email, "password": password, "returnSecureToken": True}, timeout=10)
    return response.status_code


first = os.path.join(work, "first")
second = os.path.join(work, "second")
accounts = os.path.join(work, "firebase-export.json")
with open(accounts, "w") as handle:
    json.dump({"users": [
        {"localId": "fb-1", "email": "fb1@example.com", "emailVerified": True, "createdAt": "1500000000000",
         "passwordHash": "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==", "salt": "42xEC+ixf3L2lw==",
         "providerUserInfo": [{"providerId": "microsoft.com", "rawId": "ms-1", "email": "fb1@outlook.com"}]},
        {"localId": "fb-2", "email": "fb1@example.com"},
    ] + [{"localId": f"bulk-{i:04d}", "email": f"bulk{i}@example.com"} for i in range(250)]}, handle)


@check("hearth users import: a truncated file imports nothing; a data directory with no Hearth data gets its database")
def _():
    truncated = os.path.join(work, "truncated.json")
    with open(accounts) as whole, open(truncated, "w") as cut:
        cut.write(whole.read()[:2000])
    refused = hearth("users", "import", truncated, "--data-dir", first, *FIREBASE_SCRYPT)
    assert refused.returncode == 1 and "truncated" in refused.stderr and "nothing was imported" in refused.stderr, refused
    assert refused.stdout == "" and not os.path.exists(first), refused
    fresh = os.path.join(work, "fresh")
    made = hearth("users", "import", accounts, "--data-dir", fresh, *FIREBASE_SCRYPT)
    assert made.returncode == 1 and "Imported 251 of 252 users; 1 failed." in made.stdout, made
    assert oct(os.stat(fresh).st_mode & 0o777) == "0o700" and os.path.exists(os.path.join(fresh, "hearth.sqlite"))
    # The server creates the database and the project at its first start.
    for directory in (first, second):
        server = serve(directory)
        server.terminate()
        server.wait(timeout=30)


@check("hearth users import: a Firebase export with SCRYPT hashes; per-user failures reported, progress shown")
def _():
    done = hearth("users", "import", accounts, "--data-dir", first, *FIREBASE_SCRYPT)
    assert done.returncode == 1, done  # one user failed
    assert "Imported 251 of 252 users; 1 failed." in done.stdout and "EMAIL_EXISTS" in done.stdout, done.stdout
    assert "100%  252 users" in done.stderr and "users/s" in done.stderr, done.stderr  # the progress bar's last line
    listing = hearth("users", "list", "--data-dir", first, "--limit", "2")
    assert "More: hearth users list --page-token" in listing.stdout, listing.stdout


@check("the imported user signs in with the Firebase password, then the export round-trips into a second Hearth")
def _():
    server = serve(first)
    try:
        assert sign_in("fb1@example.com", "not-it") == 400
        assert sign_in("fb1@example.com", "user1password") == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    out = os.path.join(work, "hearth-export.json")
    exported = hearth("users", "export", out, "--data-dir", first)
    assert exported.returncode == 0, exported
    assert oct(os.stat(out).st_mode & 0o777) == "0o600"
    parameters = re.search(r"STANDARD_SCRYPT (--mem-cost \d+ --block-size \d+ --parallelization \d+ --dk-len \d+)", exported.stdout)
    assert parameters, exported.stdout
    with open(out) as handle:
        users = json.load(handle)["users"]
    assert len(users) == 251 and users[0]["localId"] == "bulk-0000", users[0]
    imported = hearth("users", "import", out, "--data-dir", second, "--hash-algo", "STANDARD_SCRYPT", *parameters.group(1).split())
    assert imported.returncode == 0, imported
    server = serve(second)
    try:
        assert sign_in("fb1@example.com", "user1password") == 200
    finally:
        server.terminate()
        server.wait(timeout=30)
    shown = hearth("users", "get", "fb-1", "--data-dir", second)
    assert "microsoft.com" in shown.stdout and "2017-07-14" in shown.stdout, shown.stdout


@check("hearth users create/set-claims/disable/revoke/delete, audited as cli:<user>")
def _():
    env = dict(os.environ, HEARTH_USER_PASSWORD="cli-password-1")
    assert hearth("users", "create", "--uid", "cli-1", "--email", "cli@example.com", "--data-dir", second, env=env).returncode == 0
    refused = hearth("users", "set-claims", "cli-1", '{"iss":"x"}', "--data-dir", second)
    assert refused.returncode != 0 and "FORBIDDEN_CLAIM" in refused.stderr, refused
    assert hearth("users", "set-claims", "cli-1", '{"role":"ops"}', "--data-dir", second).returncode == 0
    assert hearth("users", "disable", "cli@example.com", "--data-dir", second).returncode == 0
    assert "disabled         yes" in hearth("users", "get", "cli-1", "--data-dir", second).stdout
    assert hearth("users", "revoke", "cli-1", "--data-dir", second).returncode == 0
    assert hearth("users", "delete", "cli-1", "--data-dir", second).returncode == 0
    assert hearth("users", "get", "cli-1", "--data-dir", second).returncode != 0
    import sqlite3
    with sqlite3.connect(os.path.join(second, "hearth.sqlite")) as db:
        rows = db.execute("SELECT actor, action, detail FROM audit_log ORDER BY id").fetchall()
    assert [r[1] for r in rows][-5:] == ["accounts.create", "accounts.update", "accounts.update", "accounts.update", "accounts.delete"], rows
    assert all(r[0].startswith("cli:") for r in rows) and "cli-password-1" not in repr(rows) and "ops" not in repr(rows), rows


finish("users-cli")
