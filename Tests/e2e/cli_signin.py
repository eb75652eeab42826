"""Starting `hearth signin` as a user would, with no browser opener on PATH, and reading the URL it prints."""
import os
import re
import subprocess


def start_signin(hearth, config_home, *arguments):
    """Starts `hearth signin <arguments>`; returns the process and the auth handler URL it printed."""
    # No xdg-open on PATH: the CLI prints the URL, and the caller plays the browser.
    env = dict(os.environ, XDG_CONFIG_HOME=config_home, PATH="/usr/sbin:/sbin")
    cli = subprocess.Popen([hearth, "signin", *arguments], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    for line in cli.stderr:
        match = re.search(r"(http://\S+/__/auth/handler\?\S+)", line)
        if match:
            return cli, match.group(1), env
    raise AssertionError("the CLI printed no sign-in URL")
