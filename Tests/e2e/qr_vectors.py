#!/usr/bin/env python3
"""Cross-checks Hearth's QR encoder (Sources/HearthPages/QRCode.swift) against independent software (test-only).

Two checks:

1. The Swift suite `QRCodeSegnoVectorsTests` (Tests/HearthServerTests/QRCodeSegnoVectorsTests.swift) holds a table
   of symbols — data (made by a small generator both sides share, or a literal string), error-correction level,
   the version and mask segno chooses (or a forced mask), and the SHA-256 of the module matrix. This script
   rebuilds every row with segno, an independent encoder, and fails on any difference; it also checks that the
   row's byte count is the version's full capacity where the row says so (segno puts one byte more in the next
   version). `--print` writes the rows (how the table was made).
2. `--decode DIR`: every `*.svg` in DIR (the Swift test writes them there when `HEARTH_QR_SVG_DIR` is set) is
   rendered to PNG with cairosvg and decoded with zbar (`zbarimg -Sbinary`); the decoded bytes must equal the
   `*.bin` file beside it.

    .build/test-venv/bin/pip install segno cairosvg          # and: apt-get install zbar-tools
    .build/test-venv/bin/python Tests/e2e/qr_vectors.py                 # check the Swift table with segno
    .build/test-venv/bin/python Tests/e2e/qr_vectors.py --print         # the table's rows
    HEARTH_QR_SVG_DIR=/tmp/qr .build/debug/hearthPackageTests.xctest --testing-library swift-testing \
        --filter QRCodeSegnoVectorsTests
    .build/test-venv/bin/python Tests/e2e/qr_vectors.py --decode /tmp/qr   # decode the Swift SVGs with zbar
"""
import hashlib
import pathlib
import re
import sys

import segno
from segno import encoder as segno_encoder

# segno 1.6 writes 8 zero bits after the terminator when the bit stream already ends on a codeword boundary
# (`8 - length % 8`), which puts an extra 0x00 data codeword before the 0xEC/0x11 pads; ISO/IEC 18004:2015 7.4.10
# adds padding bits only to reach the boundary. Decoders ignore both, but the matrices differ, so segno is run here
# with the standard's rule (the rest of its encoder unchanged).
_segno_padding = segno_encoder.write_padding_bits


def _standard_padding_bits(buff, version, length):
    if length % 8:
        _segno_padding(buff, version, length)


segno_encoder.write_padding_bits = _standard_padding_bits

TABLE = pathlib.Path(__file__).resolve().parents[1] / "HearthServerTests" / "QRCodeSegnoVectorsTests.swift"
LEVELS = "LMQH"
SWIFT_LEVELS = {"L": "low", "M": "medium", "Q": "quartile", "H": "high"}
# G(count, seed, .level, version, mask, forced, full, "sha256") and T("text", .level, version, mask, forced, "sha256")
GENERATED = re.compile(r'G\((\d+), (\d+), \.(low|medium|quartile|high), (\d+), (\d), (true|false), (true|false), "([0-9a-f]{64})"\)')
TEXT = re.compile(r'T\("((?:[^"\\]|\\.)*)", \.(low|medium|quartile|high), (\d+), (\d), (true|false), "([0-9a-f]{64})"\)')
URIS = [
    "otpauth://totp/Hearth%20Demo:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Hearth%20Demo"
    "&algorithm=SHA1&digits=6&period=30",
    "otpauth://totp/demo-project:clock-check?secret=GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ&issuer=demo-project"
    "&algorithm=SHA1&digits=6&period=30",
    "otpauth://totp/An%20app%20with%20a%20rather%20long%20name%20%C3%A9t%C3%A9:someone.with.a.long.address%40"
    "subdomain.example.org?secret=MFRGGZDFMZTWQ2LKNNWG23TPOBYXE43UOV3HO6DZPIYTEMZUGU3DOOBZ&issuer=An%20app%20with"
    "%20a%20rather%20long%20name%20%C3%A9t%C3%A9&algorithm=SHA1&digits=6&period=30",
    "",
    "A",
    "Hello, QR!",
]


def generated(count: int, seed: int) -> bytes:
    """The generator the Swift test shares: a 31-bit LCG, one byte per step."""
    state = seed
    out = bytearray()
    for _ in range(count):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        out.append((state >> 16) & 0xFF)
    return bytes(out)


def make(data: bytes, level: str, mask=None, version=None):
    return segno.make_qr(data, error=level, mode="byte", mask=mask, version=version, boost_error=False)


def digest(code) -> str:
    rows = ["".join("1" if module else "0" for module in row) for row in code.matrix]
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()


def capacity(version: int, level: str) -> int:
    """Largest byte count segno puts in `version` (found by asking it)."""
    low, high = 0, 3000
    while low < high:
        middle = (low + high + 1) // 2
        try:
            make(b"\0" * middle, level, version=version)
            low = middle
        except segno.DataOverflowError:
            high = middle - 1
    return low


def swift_string(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def rows():
    for level_index, level in enumerate(LEVELS):
        for version in range(1, 41):
            count = capacity(version, level)
            seed = version * 4 + level_index
            code = make(generated(count, seed), level)
            yield f'G({count}, {seed}, .{SWIFT_LEVELS[level]}, {code.version}, {code.mask}, false, true, "{digest(code)}"),'
    for level in LEVELS:
        for count in (0, 1, 2, 3, 17, 42, 100, 150, 200, 250):
            seed = 1000 + count
            code = make(generated(count, seed), level)
            yield f'G({count}, {seed}, .{SWIFT_LEVELS[level]}, {code.version}, {code.mask}, false, false, "{digest(code)}"),'
    for mask in range(8):
        for level, count in (("M", 10), ("L", 130), ("H", 300)):
            seed = 2000 + mask
            code = make(generated(count, seed), level, mask=mask)
            yield f'G({count}, {seed}, .{SWIFT_LEVELS[level]}, {code.version}, {code.mask}, true, false, "{digest(code)}"),'
    for uri in URIS:
        for level in LEVELS:
            code = make(uri.encode(), level)
            yield f'T("{swift_string(uri)}", .{SWIFT_LEVELS[level]}, {code.version}, {code.mask}, false, "{digest(code)}"),'


def check_table() -> int:
    text = TABLE.read_text()
    failures = checked = 0
    for count, seed, level, version, mask, forced, full, expected in GENERATED.findall(text):
        checked += 1
        letter = {v: k for k, v in SWIFT_LEVELS.items()}[level]
        data = generated(int(count), int(seed))
        code = make(data, letter, mask=int(mask) if forced == "true" else None)
        problems = []
        if (code.version, code.mask) != (int(version), int(mask)):
            problems.append(f"segno chooses version {code.version} mask {code.mask}")
        if digest(code) != expected:
            problems.append("matrix differs")
        if full == "true" and int(version) < 40 and make(data + b"\0", letter).version != int(version) + 1:
            problems.append("one byte more still fits the version")
        if problems:
            failures += 1
            print(f"MISMATCH G({count}, {seed}, {level}): {'; '.join(problems)}")
    for literal, level, version, mask, forced, expected in TEXT.findall(text):
        checked += 1
        data = literal.encode().decode("unicode_escape").encode("latin-1") if "\\" in literal else literal.encode()
        letter = {v: k for k, v in SWIFT_LEVELS.items()}[level]
        code = make(data, letter, mask=int(mask) if forced == "true" else None)
        if (code.version, code.mask) != (int(version), int(mask)) or digest(code) != expected:
            failures += 1
            print(f"MISMATCH T({literal[:40]}…, {level}): segno version {code.version} mask {code.mask}")
    if not checked:
        print(f"no rows found in {TABLE}", file=sys.stderr)
        return 1
    print(f"{checked - failures}/{checked} rows agree with segno {segno.__version__}")
    return 1 if failures else 0


def decode(directory: pathlib.Path) -> int:
    """Renders each SVG with cairosvg and reads it with zbar's `zbarimg --raw -Sbinary` (the bytes as encoded, no
    guess at a text encoding)."""
    import subprocess
    import tempfile

    import cairosvg

    failures = checked = 0
    with tempfile.TemporaryDirectory() as work:
        png = pathlib.Path(work) / "code.png"
        for svg in sorted(directory.glob("*.svg")):
            expected = svg.with_suffix(".bin").read_bytes()
            cairosvg.svg2png(bytestring=svg.read_bytes(), write_to=str(png), scale=4)
            result = subprocess.run(["zbarimg", "--quiet", "--raw", "-Sbinary", str(png)], capture_output=True, timeout=60)
            checked += 1
            if result.returncode != 0 or result.stdout != expected:
                failures += 1
                print(f"DECODE FAILED {svg.name}: expected {expected[:40]!r}…, zbar read {result.stdout[:40]!r} (status {result.returncode})")
    if not checked:
        print(f"no SVG files in {directory}", file=sys.stderr)
        return 1
    print(f"{checked - failures}/{checked} SVGs decode with zbar to the bytes encoded")
    return 1 if failures else 0


def main() -> int:
    if "--print" in sys.argv:
        for row in rows():
            print("        " + row)
        return 0
    if "--decode" in sys.argv:
        return decode(pathlib.Path(sys.argv[sys.argv.index("--decode") + 1]))
    return check_table()


if __name__ == "__main__":
    sys.exit(main())
