"""The end-to-end scripts' one check runner: `@check("name")` runs the function at once and records PASS/FAIL;
`finish("label")` prints `label: N passed, M failed` and exits non-zero when anything failed."""
import sys

results = []


def check(name):
    def wrap(fn):
        try:
            fn()
            results.append((name, None))
            print(f"PASS {name}")
        except Exception as error:  # noqa: BLE001 - report every failure
            results.append((name, error))
            print(f"FAIL {name}: {error!r}")
        return fn
    return wrap


def record_failure(name, error):
    results.append((name, error))
    print(f"FAIL {name}: {error!r}")


def finish(label):
    failed = [name for name, error in results if error]
    print(f"{label}: {len(results) - len(failed)} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)
