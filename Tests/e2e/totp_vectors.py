#!/usr/bin/env python3
"""Cross-checks Hearth's TOTP against pyotp, an independent implementation (test-only; scripts/test runs it).

The Swift suite `TOTPPyotpVectorsTests` (Tests/HearthCoreTests/TOTPPyotpVectorsTests.swift) holds a table of
codes; this script recomputes every row with pyotp and fails on any difference. `--print` writes the table's rows
from fixed seeds (how the table was made), so a reviewer can regenerate it and compare.

    .build/test-venv/bin/pip install pyotp
    .build/test-venv/bin/python Tests/e2e/totp_vectors.py            # check the Swift table
    .build/test-venv/bin/python Tests/e2e/totp_vectors.py --print    # rows from the fixed seeds
"""
import base64
import hashlib
import pathlib
import re
import sys

import pyotp

TABLE = pathlib.Path(__file__).resolve().parents[1] / "HearthCoreTests" / "TOTPPyotpVectorsTests.swift"
ROW = re.compile(r'V\("([A-Z2-7]+)", \.(sha1|sha256|sha512), (\d), (\d+), (\d+), "(\d+)"\)')
DIGESTS = {"sha1": hashlib.sha1, "sha256": hashlib.sha256, "sha512": hashlib.sha512}
SIZES = {"sha1": 20, "sha256": 32, "sha512": 64}


def code(secret: str, algorithm: str, digits: int, period: int, time: int) -> str:
    return pyotp.TOTP(secret, digits=digits, digest=DIGESTS[algorithm], interval=period).at(time)


def rows():
    algorithms = ["sha1", "sha256", "sha512"]
    for i in range(24):
        algorithm = algorithms[i % 3]
        seed = hashlib.sha512(f"hearth-totp-{i}".encode()).digest()[: SIZES[algorithm] if i % 4 else 14 + i]
        secret = base64.b32encode(seed).decode().rstrip("=")
        digits = 6 + (i % 3)
        period = 30 if i % 5 else 60
        time = [0, 29, 30, 59, 1_111_111_109, 1_700_000_000, 2_000_000_000, 4_102_444_800][i % 8] + i * 7_919
        yield secret, algorithm, digits, period, time, code(secret, algorithm, digits, period, time)


def main() -> int:
    if "--print" in sys.argv:
        for secret, algorithm, digits, period, time, value in rows():
            print(f'        V("{secret}", .{algorithm}, {digits}, {period}, {time}, "{value}"),')
        return 0
    table = ROW.findall(TABLE.read_text())
    if not table:
        print(f"no rows found in {TABLE}", file=sys.stderr)
        return 1
    failures = 0
    for secret, algorithm, digits, period, time, expected in table:
        actual = code(secret, algorithm, int(digits), int(period), int(time))
        if actual != expected:
            failures += 1
            print(f"MISMATCH {secret} {algorithm} {digits} {period} {time}: Swift table {expected}, pyotp {actual}")
    print(f"{len(table) - failures}/{len(table)} rows agree with pyotp")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
