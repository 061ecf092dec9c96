#!/usr/bin/env python3
"""Constant folding reaches the plan (issue 8, item 2), read from EXPLAIN:

  pushed    a comparison with a folded constant (date ± interval, literal
            arithmetic, casts of literals) is pushed into the scan exactly
            as the literal it folds to: the Scan line is the literal
            form's (TPC-H Q1, Q5, Q6, Q10, Q12, Q14, Q15, Q20's shapes);
            also BETWEEN with folded ends and IN lists of folded values,
            and a bound that is not a midnight rounded to the date
  keys      a folded bound on a key column bounds the key range, on the
            primary key and on a secondary index
  estimate  a folded bound gets the estimate its literal gets (sampled,
            so a narrow and a wide bound differ)
  stable    a stable value (current_date - 30, timestamptz + interval in
            the session's zone) is pushed as an expression computed once
            per execution; a volatile one (random()) stays in the filter
  errors    an expression whose folding fails (1 / 0, overflow) is not
            pushed: it stays per row, so an empty table raises nothing
  params    a folded constant beside a parameter: both pushed; a
            parameter plus a number of days pushed as a value computed
            once per execution
Cadenza only (the plans are ours).
Usage: regress_fold.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check, plan as explain  # noqa: E402
import psycopg  # noqa: E402

P = "rfold_"
TABLES = ("t", "u", "z", "e")



def scan_line(plan, table):
    for line in plan.splitlines():
        if re.search(r"\bScan\s+%s\b" % re.escape(table), line):
            return line.strip()
    return None


def one(cur, sql, params=None):
    cur.execute(sql, params)
    return cur.fetchone()[0]


def setup(cur):
    cur.execute(f"CREATE TABLE {P}t (k integer PRIMARY KEY, d date, n numeric(15,2), "
                f"mode char(10), v integer)")
    cur.execute(f"INSERT INTO {P}t SELECT g, DATE '1992-01-01' + g % 2500, (g % 11) / 100.0, "
                f"CASE g % 4 WHEN 0 THEN 'MAIL' WHEN 1 THEN 'SHIP' ELSE 'AIR' END, g % 97 "
                f"FROM generate_series(1, 20000) g")
    cur.execute(f"CREATE INDEX {P}t_d ON {P}t (d)")
    cur.execute(f"CREATE TABLE {P}u (id integer PRIMARY KEY, name text)")
    cur.execute(f"INSERT INTO {P}u SELECT g, 'u' || g FROM generate_series(0, 96) g")
    cur.execute(f"CREATE TABLE {P}z (k integer PRIMARY KEY, ts timestamptz)")
    cur.execute(f"INSERT INTO {P}z SELECT g, TIMESTAMPTZ '2024-01-01 00:00+00' + g * INTERVAL '1 hour' "
                f"FROM generate_series(1, 100) g")
    cur.execute(f"CREATE TABLE {P}e (k integer PRIMARY KEY, v integer)")


def same_scan(cur, folded, literal, name, table=None):
    table = table or f"{P}t"
    pf, pl = explain(cur, folded), explain(cur, literal)
    sf, sl = scan_line(pf, table), scan_line(pl, table)
    check(f"pushed: {name}: pushed into the scan", sf is not None and "pushed:" in sf, pf)
    check(f"pushed: {name}: the scan of the literal form", sf == sl, f"{sf!r} vs {sl!r}")
    check(f"pushed: {name}: no filter left", "Filter" not in pf, pf)
    check(f"pushed: {name}: same answer", one(cur, folded) == one(cur, literal),
          f"{one(cur, folded)} vs {one(cur, literal)}")


def check_pushed(cur):
    t = f"{P}t"
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d < DATE '1994-01-01' + INTERVAL '1' YEAR",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d < DATE '1995-01-01'", "date + interval year")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d <= DATE '1998-12-01' - INTERVAL '90' DAY",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d <= DATE '1998-09-02'", "date - interval day (Q1)")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d >= DATE '1994-01-01' "
                   f"AND d < DATE '1994-01-01' + INTERVAL '3' MONTH",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d >= DATE '1994-01-01' AND d < DATE '1994-04-01'",
              "a range with a folded end (Q10)")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND n BETWEEN 0.06 - 0.01 AND 0.06 + 0.01",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND n BETWEEN 0.05 AND 0.07",
              "BETWEEN of literal arithmetic (Q6)")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d BETWEEN DATE '1994-01-01' + INTERVAL '1 day' "
                   f"AND DATE '1995-01-01' - INTERVAL '1' DAY",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d BETWEEN DATE '1994-01-02' AND DATE '1994-12-31'",
              "BETWEEN of folded dates")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d IN (DATE '1994-01-01' + INTERVAL '1 day', "
                   f"DATE '1994-03-01' - 1)",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d IN (DATE '1994-01-02', DATE '1994-02-28')",
              "IN list of folded dates")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v IN (2 + 3, 10 * 2, CAST('7' AS integer))",
              f"SELECT count(*) FROM {t} WHERE v IN (5, 20, 7)", "IN list of literal arithmetic")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND mode IN ('MA' || 'IL', upper('ship'))",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND mode IN ('MAIL', 'SHIP')", "IN list of string functions")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d < DATE '1994-01-05' + INTERVAL '12 hours'",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d < DATE '1994-01-06'",
              "a bound past midnight rounds up for <")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND d <= DATE '1994-01-05' + INTERVAL '12 hours'",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND d <= DATE '1994-01-05'",
              "a bound past midnight rounds down for <=")
    same_scan(cur, f"SELECT count(*) FROM {t} WHERE v < 50 AND v > 97 - 2 * 40",
              f"SELECT count(*) FROM {t} WHERE v < 50 AND v > 17", "integer arithmetic")


def check_keys(cur):
    t = f"{P}t"
    p = explain(cur, f"SELECT count(*) FROM {t} WHERE k < 2 + 3")
    s = scan_line(p, t)
    check("keys: a folded bound bounds the primary key range", s is not None and "range on key prefix" in s, p)
    p = explain(cur, f"SELECT count(*) FROM {t} WHERE d >= DATE '1995-01-01' AND "
                     f"d < DATE '1995-01-01' + INTERVAL '3 days'")
    s = scan_line(p, t)
    check("keys: folded date bounds read the date index's range",
          s is not None and f"{P}t_d" in s and "range on key prefix" in s, p)
    check("keys: answer", one(cur, f"SELECT count(*) FROM {t} WHERE d >= DATE '1995-01-01' AND "
                                   f"d < DATE '1995-01-01' + INTERVAL '3 days'") == 24)


def est(plan, table):
    s = scan_line(plan, table) or ""
    m = re.search(r"estimated rows=([0-9.e+]+)", s)
    return float(m.group(1)) if m else None


def check_estimate(cur):
    t, u = f"{P}t", f"{P}u"
    base = f"SELECT count(*) FROM {t}, {u} WHERE {t}.v = {u}.id AND "
    narrow_f = explain(cur, base + "d < DATE '1992-01-01' + INTERVAL '1 month'")
    narrow_l = explain(cur, base + "d < DATE '1992-02-01'")
    wide_f = explain(cur, base + "d < DATE '1992-01-01' + INTERVAL '5 years'")
    ef, el, ew = est(narrow_f, t), est(narrow_l, t), est(wide_f, t)
    check("estimate: a folded bound is estimated as its literal", ef is not None and ef == el,
          f"{ef} vs {el}\n{narrow_f}\n{narrow_l}")
    check("estimate: a narrow and a wide folded bound differ", ef is not None and ew is not None and ew > 4 * ef,
          f"{ef} vs {ew}")


def check_stable(cur):
    t, z = f"{P}t", f"{P}z"
    p = explain(cur, f"SELECT count(*) FROM {t} WHERE d < current_date - 30")
    s = scan_line(p, t)
    check("stable: current_date - 30 is pushed", s is not None and "pushed: d <" in s, p)
    check("stable: current_date - 30 answers", one(cur, f"SELECT count(*) FROM {t} WHERE d < current_date - 30")
          == 20000)
    q = f"SELECT count(*) FROM {z} WHERE ts < TIMESTAMPTZ '2024-01-01 00:00+00' + INTERVAL '1 day'"
    p = explain(cur, q)
    s = scan_line(p, z)
    check("stable: timestamptz + interval is pushed (per execution)", s is not None and "pushed: ts <" in s, p)
    check("stable: timestamptz + interval answers", one(cur, q) == 23)
    p = explain(cur, f"SELECT count(*) FROM {t} WHERE v < random() * 10")
    check("stable: random() stays in the filter", "Filter" in p and "pushed" not in (scan_line(p, t) or ""), p)


def check_errors(cur):
    e = f"{P}e"
    q = f"SELECT count(*) FROM {e} WHERE v < 1 / 0"
    p = explain(cur, q)
    check("errors: 1 / 0 is not folded nor pushed", "Filter" in p, p)
    check("errors: an empty table raises nothing", one(cur, q) == 0)
    cur.execute(f"INSERT INTO {e} VALUES (1, 1)")
    try:
        cur.execute(q)
        check("errors: a row reaching 1 / 0 raises 22012", False, "no error")
    except psycopg.Error as ex:
        check("errors: a row reaching 1 / 0 raises 22012", ex.sqlstate == "22012", ex.sqlstate)
    try:
        cur.execute(f"SELECT count(*) FROM {e} WHERE v < 2147483647 + 1")
        check("errors: overflow raises 22003", False, "no error")
    except psycopg.Error as ex:
        check("errors: overflow raises 22003", ex.sqlstate == "22003", ex.sqlstate)


def check_params(cur):
    t = f"{P}t"
    q = f"SELECT count(*) FROM {t} WHERE d < DATE '1994-01-01' + INTERVAL '1' YEAR AND v > %s"
    p = explain(cur, q, params=(90,))
    s = scan_line(p, t) or ""
    check("params: the folded bound and the parameter are both pushed",
          "d < '1995-01-01'" in s and "v > $1" in s, p)
    lit = f"SELECT count(*) FROM {t} WHERE d < DATE '1995-01-01' AND v > 90"
    check("params: answer", one(cur, q, (90,)) == one(cur, lit))
    q = f"SELECT count(*) FROM {t} WHERE d >= %s::date AND d < %s::date + 31 AND v < 50"
    p = explain(cur, q, params=("1994-01-01", "1994-01-01"))
    s = scan_line(p, t) or ""
    check("params: a parameter plus a number of days is pushed (once per execution)",
          "d < (expr)" in s and "Filter" not in p, p)
    lit = (f"SELECT count(*) FROM {t} WHERE d >= DATE '1994-01-01' AND d < DATE '1994-02-01' "
           f"AND v < 50")
    check("params: parameter plus days answer", one(cur, q, ("1994-01-01", "1994-01-01")) == one(cur, lit))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    if args.kind != "cadenza":
        return checks.skip("the plans checked are Cadenza's")
    with psycopg.connect(args.dsn, autocommit=True) as conn:
        cur = conn.cursor()
        for t in TABLES:
            cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
        setup(cur)
        try:
            check_pushed(cur)
            check_keys(cur)
            check_estimate(cur)
            check_stable(cur)
            check_errors(cur)
            check_params(cur)
        finally:
            for t in TABLES:
                cur.execute(f"DROP TABLE IF EXISTS {P}{t}")
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
