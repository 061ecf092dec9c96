#!/usr/bin/env python3
"""Regression (issue 11, item 7: the write path): COPY FROM STDIN into a
table with a primary key as PostgreSQL does it, now that Cadenza locks a
batch's keys, looks them up together and inserts them together
(txn/txn_insert_batch.c). Rows appended after the last key and rows
falling between existing keys, batches past one chunk; an existing key
and a key twice in the data fail with 23505 and leave nothing; keys the
transaction deleted before are inserted again; a savepoint rolled back
over a failed COPY keeps the COPY before it; another session sees none
of an uncommitted COPY, waits for its keys (lock_timeout: 55P03) and gets
23505 once it committed; a rolled-back COPY leaves its keys free.
Usage: regress_copybatch.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

T = "rg_copybatch"


def copy_in(cur, keys, tag="v"):
    """COPY rows (k, 'tag-k') in the order given; None or the SQLSTATE."""
    data = "".join("%d\t%s-%d\n" % (k, tag, k) for k in keys)
    try:
        with cur.copy("COPY %s (k, v) FROM STDIN" % T) as cp:
            cp.write(data)
        return None
    except psycopg.Error as ex:
        return ex.sqlstate


def table(cur):
    cur.execute("SELECT k, v FROM %s ORDER BY k" % T)
    return cur.fetchall()


def rows_of(keys, tag="v"):
    return [(k, "%s-%d" % (tag, k)) for k in sorted(keys)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    a = ap.parse_args()
    with psycopg.connect(a.dsn, autocommit=True) as c, \
            psycopg.connect(a.dsn, autocommit=True) as c2:
        cur, cur2 = c.cursor(), c2.cursor()
        cur.execute("DROP TABLE IF EXISTS %s" % T)
        cur.execute("CREATE TABLE %s (k int PRIMARY KEY, v text NOT NULL, d int DEFAULT 7)" % T)
        try:
            # appended after the last key, several chunks and batches
            keys = list(range(1, 5001))
            check("COPY of 5000 new keys", copy_in(cur, keys) is None, "")
            cur.execute("SELECT count(*), sum(k), min(d), max(d) FROM %s" % T)
            check("5000 rows with their defaults", cur.fetchone() == (5000, 12502500, 7, 7), "")
            # keys between existing ones (odd ones exist up to 5000)
            cur.execute("DELETE FROM %s WHERE k %% 2 = 0" % T)
            keys = list(range(2, 10001, 2))
            check("COPY of keys between existing ones", copy_in(cur, keys, "w") is None, "")
            want = rows_of(range(1, 5001, 2)) + rows_of(range(2, 10001, 2), "w")
            check("interleaved keys all there, in order",
                  table(cur) == sorted(want), "")
            before = table(cur)
            # an existing key in the middle of the data: 23505, nothing kept
            keys = list(range(20001, 21000)) + [3001] + list(range(21000, 22000))
            check("existing key: 23505", copy_in(cur, keys) == "23505", "")
            check("existing key: nothing of the COPY kept", table(cur) == before, "")
            # an existing key as the only conflict at the end of a chunk
            keys = list(range(30001, 30256)) + [4999]
            check("existing key closing a chunk: 23505", copy_in(cur, keys) == "23505", "")
            check("existing key closing a chunk: nothing kept", table(cur) == before, "")
            # the same key twice in the data (apart, then sorted together)
            keys = list(range(40001, 40600)) + [40300]
            check("a key twice in the data: 23505", copy_in(cur, keys) == "23505", "")
            check("a key twice in the data: nothing kept", table(cur) == before, "")
            # keys the transaction deleted first come back with the new values
            c.autocommit = False
            cur.execute("DELETE FROM %s WHERE k BETWEEN 100 AND 400" % T)
            err = copy_in(cur, list(range(100, 401)) + list(range(50001, 50101)), "x")
            check("COPY of keys deleted in the same transaction", err is None, repr(err))
            c.commit()
            want = [r for r in before if not 100 <= r[0] <= 400] + rows_of(range(100, 401), "x") \
                + rows_of(range(50001, 50101), "x")
            check("deleted keys copied again: new values", table(cur) == sorted(want), "")
            c.commit()
            before = table(cur)
            c.commit()
            # a failed COPY rolled back to a savepoint keeps the one before
            cur.execute("SAVEPOINT s0")
            e1 = copy_in(cur, range(60001, 60301), "s")
            cur.execute("SAVEPOINT s1")
            e2 = copy_in(cur, list(range(60301, 60600)) + [60100], "s")
            cur.execute("ROLLBACK TO SAVEPOINT s1")
            e3 = copy_in(cur, range(60301, 60400), "t")
            c.commit()
            check("savepoint over a failed COPY: errors", (e1, e2, e3) == (None, "23505", None),
                  repr((e1, e2, e3)))
            want = before + rows_of(range(60001, 60301), "s") + rows_of(range(60301, 60400), "t")
            check("savepoint over a failed COPY: rows", table(cur) == sorted(want), "")
            c.commit()
            before = table(cur)
            c.commit()
            # another session and an uncommitted COPY
            err = copy_in(cur, range(70001, 71001), "u")
            cur2.execute("SELECT count(*) FROM %s WHERE k > 70000" % T)
            n_other = cur2.fetchone()[0]
            cur2.execute("SELECT v FROM %s WHERE k = 70500" % T)
            point = cur2.fetchall()
            check("uncommitted COPY unseen by another session", (err, n_other, point) ==
                  (None, 0, []), repr((err, n_other, point)))
            cur2.execute("SET lock_timeout = '300ms'")
            st = None
            try:
                cur2.execute("INSERT INTO %s (k, v) VALUES (70500, 'other')" % T)
            except psycopg.Error as ex:
                st = ex.sqlstate
            check("insert of an uncommitted COPY's key waits (55P03)", st == "55P03", repr(st))
            cur2.execute("INSERT INTO %s (k, v) VALUES (71500, 'other')" % T)
            c.commit()
            st = None
            try:
                cur2.execute("INSERT INTO %s (k, v) VALUES (70500, 'other')" % T)
            except psycopg.Error as ex:
                st = ex.sqlstate
            check("after the commit the key is taken (23505)", st == "23505", repr(st))
            cur2.execute("SELECT count(*) FROM %s WHERE k > 70000" % T)
            check("committed COPY seen", cur2.fetchone()[0] == 1001, "")
            # a rolled-back COPY leaves its keys free
            err = copy_in(cur, range(80001, 80500), "r")
            c.rollback()
            err2 = copy_in(cur, range(80001, 80500), "q")
            c.commit()
            cur.execute("SELECT count(*), min(v) FROM %s WHERE k > 80000" % T)
            got = cur.fetchone()
            c.commit()
            check("rolled-back COPY's keys copied again", (err, err2, got) ==
                  (None, None, (499, "q-80001")), repr((err, err2, got)))
        finally:
            c.rollback()
            c.autocommit = True
            cur2.execute("RESET lock_timeout")
            cur.execute("DROP TABLE IF EXISTS %s" % T)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
