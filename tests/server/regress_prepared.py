#!/usr/bin/env python3
"""Prepared statements and syntax errors in blocks, through the wire
(issue 7), as PostgreSQL 15 answers:

  tags        PREPARE, EXECUTE (the prepared statement's own tag),
              DEALLOCATE, DEALLOCATE ALL (also DEALLOCATE PREPARE ALL)
  sqlstates   42P05 a name in use, 26000 EXECUTE / DEALLOCATE of an unknown
              name, 42601 a wrong argument count, 0A000 a subquery argument
  shared      SQL PREPARE and the protocol's named statements (Parse with a
              name) are one namespace: EXECUTE runs a Parse'd statement,
              Bind runs a PREPAREd one (Describe too), PREPARE and Parse
              refuse each other's names, DEALLOCATE [ALL] drops both; the
              unnamed statement is not touched by DEALLOCATE ALL
  nesting     a protocol statement that is itself an EXECUTE runs; a cycle
              (x runs y, y re-prepared to run x) ends in 54001, the server
              and the session alive
  syntax      a syntax error in a simple Query inside a block fails the
              block: 25P02 until ROLLBACK (or ROLLBACK TO a savepoint),
              transaction status 'E'

Usage: regress_prepared.py --dsn DSN --kind cadenza|postgres
"""
import argparse
import os
import sys

import psycopg
from psycopg import pq

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import checks  # noqa: E402
from checks import check  # noqa: E402

SQLSTATE = pq.DiagnosticField.SQLSTATE


class Conn:
    def __init__(self, dsn):
        self.c = psycopg.connect(dsn, autocommit=True)
        self.pg = self.c.pgconn

    def q(self, sql):
        """Simple protocol: (tag, sqlstate, first value)."""
        r = self.pg.exec_(sql.encode())
        return self._res(r)

    @staticmethod
    def _res(r):
        tag = (r.command_status or b"").decode()
        st = r.error_field(SQLSTATE)
        v = r.get_value(0, 0) if r.status == pq.ExecStatus.TUPLES_OK and r.ntuples else None
        return tag, st.decode() if st else None, v.decode() if v is not None else None

    def parse(self, name, sql):
        return self._res(self.pg.prepare(name.encode(), sql.encode()))

    def bind_exec(self, name, params=()):
        return self._res(self.pg.exec_prepared(name.encode(),
                                               [p.encode() for p in params]))

    def status(self):
        return self.pg.transaction_status

    def close(self):
        self.c.close()


def expect(name, got, tag=None, state=None, value=None):
    g_tag, g_state, g_val = got
    ok = g_state == state and (tag is None or g_tag == tag) and (value is None or g_val == value)
    check(name, ok, "got tag %r sqlstate %r value %r; want tag %r sqlstate %r value %r"
          % (g_tag, g_state, g_val, tag, state, value))


def test_sql(c):
    expect("prepare_tag", c.q("PREPARE rp_a(int) AS SELECT $1 * 2"), tag="PREPARE")
    expect("execute_select", c.q("EXECUTE rp_a(21)"), tag="SELECT 1", value="42")
    expect("prepare_duplicate_42P05", c.q("PREPARE rp_a AS SELECT 1"), state="42P05")
    expect("execute_too_few_42601", c.q("EXECUTE rp_a"), state="42601")
    expect("execute_too_many_42601", c.q("EXECUTE rp_a(1, 2)"), state="42601")
    expect("execute_subquery_0A000", c.q("EXECUTE rp_a((SELECT 1))"), state="0A000")
    expect("execute_unknown_26000", c.q("EXECUTE rp_nosuch"), state="26000")
    expect("create_table", c.q("CREATE TABLE rp_t (id int PRIMARY KEY)"), tag="CREATE TABLE")
    expect("prepare_insert", c.q("PREPARE rp_ins(int) AS INSERT INTO rp_t VALUES ($1)"),
           tag="PREPARE")
    expect("execute_insert_tag", c.q("EXECUTE rp_ins(7)"), tag="INSERT 0 1")
    expect("execute_insert_23505", c.q("EXECUTE rp_ins(7)"), state="23505")
    expect("deallocate_tag", c.q("DEALLOCATE rp_a"), tag="DEALLOCATE")
    expect("deallocated_is_gone", c.q("EXECUTE rp_a(1)"), state="26000")
    expect("deallocate_unknown_26000", c.q("DEALLOCATE rp_a"), state="26000")
    expect("deallocate_prepare_tag", c.q("DEALLOCATE PREPARE rp_ins"), tag="DEALLOCATE")
    c.q("PREPARE rp_b AS SELECT 1")
    expect("deallocate_all_tag", c.q("DEALLOCATE ALL"), tag="DEALLOCATE ALL")
    expect("deallocate_all_dropped", c.q("EXECUTE rp_b"), state="26000")
    expect("deallocate_prepare_all_tag", c.q("DEALLOCATE PREPARE ALL"), tag="DEALLOCATE ALL")
    c.q("DROP TABLE rp_t")


def test_shared(c):
    expect("parse_named", c.parse("rp_proto", "SELECT 7"))
    expect("execute_runs_parsed", c.q("EXECUTE rp_proto"), tag="SELECT 1", value="7")
    expect("prepare_refuses_parsed_name", c.q("PREPARE rp_proto AS SELECT 1"), state="42P05")
    expect("deallocate_parsed", c.q("DEALLOCATE rp_proto"), tag="DEALLOCATE")
    expect("bind_after_deallocate_26000", c.bind_exec("rp_proto"), state="26000")

    expect("prepare_for_bind", c.q("PREPARE rp_sql(int) AS SELECT $1 + 100"), tag="PREPARE")
    expect("bind_runs_prepared", c.bind_exec("rp_sql", ["5"]), value="105")
    d = c.pg.describe_prepared(b"rp_sql")
    check("describe_prepared", d.status == pq.ExecStatus.COMMAND_OK and d.nparams == 1
          and d.param_type(0) == 23 and d.nfields == 1,
          "status %s nparams %s nfields %s" % (d.status, d.nparams, d.nfields))
    expect("parse_refuses_prepared_name", c.parse("rp_sql", "SELECT 1"), state="42P05")

    expect("parse_unnamed", c.parse("", "SELECT 5"))
    expect("parse_named_2", c.parse("rp_proto2", "SELECT 8"))
    expect("deallocate_all_shared", c.q("DEALLOCATE ALL"), tag="DEALLOCATE ALL")
    expect("deallocate_all_dropped_sql", c.bind_exec("rp_sql", ["1"]), state="26000")
    expect("deallocate_all_dropped_parsed", c.bind_exec("rp_proto2"), state="26000")
    # a name is free again after DEALLOCATE
    expect("parse_after_deallocate", c.parse("rp_proto2", "SELECT 9"))
    expect("bind_after_reparse", c.bind_exec("rp_proto2"), value="9")
    c.q("DEALLOCATE ALL")


def test_nesting(c):
    expect("prepare_inner", c.q("PREPARE rp_x AS SELECT 1"), tag="PREPARE")
    expect("parse_execute", c.parse("rp_y", "EXECUTE rp_x"))
    expect("bind_nested_execute", c.bind_exec("rp_y"), value="1")
    expect("deallocate_inner", c.q("DEALLOCATE rp_x"), tag="DEALLOCATE")
    expect("parse_cycle", c.parse("rp_x", "EXECUTE rp_y"))
    expect("execute_cycle_54001", c.q("EXECUTE rp_x"), state="54001")
    expect("alive_after_cycle", c.q("SELECT 1"), value="1")
    c.q("DEALLOCATE ALL")


def test_syntax_in_block(c):
    expect("begin", c.q("BEGIN"), tag="BEGIN")
    expect("syntax_error_42601", c.q("SELEC 1"), state="42601")
    check("syntax_error_fails_block", c.status() == pq.TransactionStatus.INERROR,
          "transaction status %s" % c.status())
    expect("after_syntax_error_25P02", c.q("SELECT 1"), state="25P02")
    expect("rollback", c.q("ROLLBACK"), tag="ROLLBACK")
    expect("after_rollback_works", c.q("SELECT 1"), value="1")
    # a savepoint recovers it, as any failed statement
    c.q("BEGIN")
    c.q("SAVEPOINT rp_s")
    expect("syntax_error_in_savepoint", c.q("SELECT FROM FROM"), state="42601")
    expect("rollback_to_savepoint", c.q("ROLLBACK TO SAVEPOINT rp_s"), tag="ROLLBACK")
    expect("after_rollback_to_works", c.q("SELECT 2"), value="2")
    expect("commit", c.q("COMMIT"), tag="COMMIT")
    # several statements in one text: the text is refused as a whole
    c.q("BEGIN")
    expect("multi_statement_syntax_error", c.q("SELECT 1; SELEC 2"), state="42601")
    expect("multi_after_25P02", c.q("SELECT 3"), state="25P02")
    c.q("ROLLBACK")
    # outside a block nothing is left failed
    expect("syntax_error_outside_block", c.q("SELEC 1"), state="42601")
    check("outside_block_idle", c.status() == pq.TransactionStatus.IDLE,
          "transaction status %s" % c.status())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dsn", required=True)
    ap.add_argument("--kind", default="cadenza")
    args = ap.parse_args()
    for name, fn in (("sql", test_sql), ("shared", test_shared), ("nesting", test_nesting),
                     ("syntax", test_syntax_in_block)):
        c = Conn(args.dsn)
        try:
            fn(c)
        except Exception as e:  # a step that cannot go on is one failure
            check(name, False, "%s: %s" % (type(e).__name__, e))
        finally:
            c.close()
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
