#!/usr/bin/env python3
"""regress_plan_snapshot: a prepared statement's plan keeps alive the
catalog snapshot it was built against. The defect: a plan made while
another session committed DDL held the *newer* snapshot, so once the
session moved on the plan's table objects were freed under it — prepared
UPDATEs then failed with XX000 "table <garbage> has no index 0" or
crashed the server (seen in the kill -9 ledger test). Here: prepared
UPDATEs by primary key from several sessions while another session
creates, fills, indexes and drops an unrelated table and checkpoints;
every UPDATE must succeed or fail only with 40001 / 40P01, the balances
must add up, and the server must stay up.

Usage: regress_plan_snapshot.py --dsn DSN --kind cadenza|postgres [--seconds N]
"""
import argparse
import os
import random
import sys
import threading
import time

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

ACCOUNTS = 50
RETRY = (psycopg.errors.SerializationFailure, psycopg.errors.DeadlockDetected)


def updater(dsn, seed, stop, errs, done):
    r = random.Random(seed)
    with psycopg.connect(dsn) as cn:
        cur = cn.cursor(binary=True)
        while time.time() < stop:
            a, b = r.randint(1, ACCOUNTS), r.randint(1, ACCOUNTS)
            try:
                cur.execute("BEGIN")
                cur.execute("UPDATE rps_acct SET bal = bal + %s WHERE id = %s", (1, a), prepare=True)
                cur.execute("UPDATE rps_acct SET bal = bal - %s WHERE id = %s", (1, b), prepare=True)
                cur.execute("COMMIT")
                done[0] += 1
            except RETRY:
                cn.rollback()
            except Exception as e:  # noqa: BLE001 — any other error is the defect
                errs.append(repr(e))
                return


def ddl(dsn, kind, stop, errs):
    with psycopg.connect(dsn, autocommit=True) as cn:
        i = 0
        while time.time() < stop:
            i += 1
            try:
                cn.execute("DROP TABLE IF EXISTS rps_tmp")
                cn.execute("CREATE TABLE rps_tmp (a int PRIMARY KEY, b text)")
                cn.execute("INSERT INTO rps_tmp SELECT g, 'x' FROM generate_series(1, 100) g")
                if i % 3 == 0:
                    cn.execute("CREATE INDEX rps_tmp_b ON rps_tmp (b)")
                if i % 5 == 0 and kind == "cadenza":
                    cn.execute("CHECKPOINT")
            except Exception as e:  # noqa: BLE001
                errs.append("DDL: " + repr(e))
                return


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    ap.add_argument("--seconds", type=float, default=15)
    args = ap.parse_args()
    with psycopg.connect(args.dsn, autocommit=True) as c:
        c.execute("DROP TABLE IF EXISTS rps_acct")
        c.execute("DROP TABLE IF EXISTS rps_tmp")
        c.execute("CREATE TABLE rps_acct (id int PRIMARY KEY, bal bigint NOT NULL)")
        c.execute("INSERT INTO rps_acct SELECT g, 1000 FROM generate_series(1, %d) g" % ACCOUNTS)
    stop = time.time() + args.seconds
    errs, done = [], [0]
    ts = [threading.Thread(target=updater, args=(args.dsn, k, stop, errs, done)) for k in range(6)]
    ts.append(threading.Thread(target=ddl, args=(args.dsn, args.kind, stop, errs)))
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    check("prepared UPDATEs beside concurrent DDL: no other error than 40001 / 40P01",
          not errs, "; ".join(errs[:3]))
    check("some transfers committed", done[0] > 0, "none")
    try:
        with psycopg.connect(args.dsn, autocommit=True) as c:
            total = c.execute("SELECT sum(bal), count(*) FROM rps_acct").fetchone()
            check("balances add up", total == (ACCOUNTS * 1000, ACCOUNTS), repr(total))
            c.execute("DROP TABLE IF EXISTS rps_acct")
            c.execute("DROP TABLE IF EXISTS rps_tmp")
    except psycopg.OperationalError as e:
        check("the server still answers", False, repr(e))
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
