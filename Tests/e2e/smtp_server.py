#!/usr/bin/env python3
"""A real SMTP server for the tests (aiosmtpd), started by scripts/test-smtp.

Three listeners on 127.0.0.1:
  PORT_BASE      plain SMTP offering STARTTLS; STARTTLS is required, then AUTH (PLAIN/LOGIN, hearth / s3cret)
  PORT_BASE + 1  implicit TLS (smtps), the same AUTH required
  PORT_BASE + 2  plain SMTP without TLS or AUTH (a loopback relay)

Recipients at reject.test are refused with 550, at tempfail.test with 451. Every accepted message is written to
MAILDIR as one .eml file (written under MAILDIR/../tmp, then renamed: a reader never sees half a message), with
three headers in front saying how it arrived: X-Test-SMTP-Listener (starttls|implicit|plain), X-Test-SMTP-TLS
(yes|no), X-Test-SMTP-Auth (the login or "none"), plus Return-Path and Delivered-To from the envelope.

usage: smtp_server.py PORT_BASE CERT KEY MAILDIR
"""
import logging
import os
import signal
import ssl
import sys
import threading
import time
import uuid
import warnings

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

USER = b"hearth"
PASSWORD = b"s3cret"


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == USER and auth_data.password == PASSWORD
    return AuthResult(success=ok, handled=False, auth_data=auth_data.login if ok else None)


class Handler:
    def __init__(self, listener, maildir):
        self.listener = listener
        self.maildir = maildir
        self.tmpdir = os.path.join(os.path.dirname(os.path.abspath(maildir)), "tmp")
        os.makedirs(self.maildir, exist_ok=True)
        os.makedirs(self.tmpdir, exist_ok=True)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        domain = address.rpartition("@")[2].lower()
        if domain == "reject.test":
            return f"550 5.1.1 <{address}>: Recipient address rejected: User unknown"
        if domain == "tempfail.test":
            return f"451 4.3.0 <{address}>: Temporary lookup failure, try again later"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        name = f"{time.time_ns()}-{uuid.uuid4().hex}.eml"
        login = session.auth_data
        if isinstance(login, bytes):
            login = login.decode("utf-8", "replace")
        prefix = (
            f"X-Test-SMTP-Listener: {self.listener}\r\n"
            f"X-Test-SMTP-TLS: {'yes' if session.ssl or self.listener == 'implicit' else 'no'}\r\n"
            f"X-Test-SMTP-Auth: {login if session.authenticated else 'none'}\r\n"
            f"Return-Path: <{envelope.mail_from}>\r\n"
            f"Delivered-To: {', '.join(envelope.rcpt_tos)}\r\n"
        ).encode()
        temporary = os.path.join(self.tmpdir, name)
        with open(temporary, "wb") as file:
            file.write(prefix + envelope.original_content)
            file.flush()
            os.fsync(file.fileno())
        os.rename(temporary, os.path.join(self.maildir, name))
        return f"250 2.0.0 Ok: queued as {name}"


def main():
    logging.getLogger("mail.log").setLevel(logging.ERROR)
    # The implicit-TLS listener sets auth_require_tls=False (see below): its connections are all TLS.
    warnings.filterwarnings("ignore", message="Requiring AUTH while not requiring TLS")
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    base, cert, key, maildir = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    common = dict(hostname="127.0.0.1", server_hostname="hearth-test-smtp", ready_timeout=10)
    controllers = [
        Controller(Handler("starttls", maildir), port=base, tls_context=context, require_starttls=True,
                   authenticator=authenticator, auth_required=True, auth_require_tls=True, **common),
        # aiosmtpd counts only STARTTLS as TLS for auth_require_tls; every connection here is TLS from the start.
        Controller(Handler("implicit", maildir), port=base + 1, ssl_context=context,
                   authenticator=authenticator, auth_required=True, auth_require_tls=False, **common),
        Controller(Handler("plain", maildir), port=base + 2, auth_required=False, auth_require_tls=False, **common),
    ]
    for controller in controllers:
        controller.start()
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    print(f"ready on 127.0.0.1:{base} (starttls), {base + 1} (implicit TLS), {base + 2} (plain); maildir {maildir}", flush=True)
    stop.wait()
    for controller in controllers:
        controller.stop()


if __name__ == "__main__":
    main()
