"""The PASS/FAIL tally of the server test scripts (regress_*.py,
isolated_*.py): each check prints `PASS name` or `FAIL name: why` at once
(so a hung script still shows how far it got), and summary() prints the
closing `N passed, N failed` line run.sh reads and gives the exit status."""
import argparse
import sys

passed = 0
failed = 0


def check(name, ok, why=""):
    """Records one check; returns ok so callers can branch on it."""
    global passed, failed
    if ok:
        passed += 1
        print("PASS %s" % name)
    else:
        failed += 1
        print("FAIL %s: %s" % (name, why))
    sys.stdout.flush()
    return ok


def summary():
    """Prints the closing line; the exit status: 0 when nothing failed."""
    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


def isolated_args():
    """The arguments run.sh gives an isolated_*.py script."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--binary")
    ap.add_argument("--dir", required=True)
    return ap.parse_args()


def skip(why):
    """Nothing of the script applies (e.g. to PostgreSQL): says why, counts
    nothing; the exit status for main()."""
    print("SKIP %s" % why)
    return summary()
