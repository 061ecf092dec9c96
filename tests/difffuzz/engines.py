"""The two servers the differential fuzzer asks: each started with
tests/server/srvctl.py in a folder of its own (or reached through a DSN
given on the command line), one autocommit connection each, every value
read back as the text the server sent, through the extended or the simple
query protocol.

Design notes: a statement runs under statement_timeout; a timeout is an
outcome of its own ("timeout"), as is a lost connection ("lost"). After a
lost connection the engine finds out whether the server died; a dead
server the fuzzer started is started again (its tables are gone with the
rest of the round: the driver makes the schema again), and the death is
reported as a difference (a crash).
"""
import os
import sys
import time

import psycopg
from psycopg import pq
from psycopg.adapt import Loader

from .compare import Outcome

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))
import srvctl  # noqa: E402

# every type the fuzzer can meet, read as text (0: types without a loader)
TEXT_OIDS = (0, 16, 18, 19, 20, 21, 23, 25, 26, 700, 701, 705, 1042, 1043, 1082, 1083,
             1114, 1184, 1186, 1700, 17, 114, 3802, 2205, 2206, 24, 1005, 1007, 1016,
             1009, 1015, 1021, 1022, 1231, 1182, 1000, 1115)


class RawText(Loader):
    def load(self, data):
        return bytes(data).decode("utf-8", errors="replace")


class Engine:
    def __init__(self, name, kind, dsn=None, binary=None, folder=None, timeout_ms=10000,
                 ini=None):
        self.name = name
        self.kind = kind
        self.timeout_ms = timeout_ms
        self.server = None
        self.dsn = dsn
        self.conn = None
        self.crashes = 0
        self.simple = False       # simple query protocol (else the extended one)
        if dsn is None:
            self.server = srvctl.Server(kind, folder, binary=binary,
                                        extra_ini={"Parameters": dict(ini or {})})
            self.server.start()
            self.dsn = self.server.dsn()
        self.connect()

    def connect(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
        self.conn = psycopg.connect(self.dsn, autocommit=True, connect_timeout=20)
        for oid in TEXT_OIDS:
            self.conn.adapters.register_loader(oid, RawText)
        self.conn.execute("SET statement_timeout = %d" % self.timeout_ms)

    def alive(self):
        if self.server is not None:
            return self.server.alive()
        try:
            with psycopg.connect(self.dsn, connect_timeout=10) as c:
                c.execute("select 1")
            return True
        except Exception:
            return False

    def recover(self):
        """After a lost connection: reconnect, restarting the server first
        when it is gone. Returns True when the server had died."""
        died = not self.alive()
        if died:
            self.crashes += 1
            if self.server is None:
                raise RuntimeError("%s at %s is gone and was not started here" % (self.name, self.dsn))
            self.server.stop()
            self.server.start()
        for i in range(5):
            try:
                self.connect()
                break
            except Exception:
                time.sleep(1 + i)
        return died

    def run(self, sql):
        if not self.simple:
            return self.run_extended(sql)
        t0 = time.time()
        try:
            # psycopg sends a statement without parameters as a simple Query
            cur = self.conn.cursor()
            cur.execute(sql)
            if cur.description is None:
                out = Outcome("rows", rows=[], types=[])
            else:
                rows = cur.fetchall()
                out = Outcome("rows", rows=[tuple(r) for r in rows],
                              types=[d.type_code for d in cur.description])
        except psycopg.errors.QueryCanceled as e:
            out = Outcome("timeout", message=str(e).strip())
        except psycopg.Error as e:
            if e.sqlstate and not self.conn.broken:
                out = Outcome("error", sqlstate=e.sqlstate, message=str(e).split("\n")[0])
            else:
                died = self.recover()
                out = Outcome("lost", message=("server died: " if died else "") + str(e).strip()[:200])
        out.seconds = time.time() - t0
        return out

    def run_extended(self, sql):
        """The statement through the extended protocol (Parse, Bind,
        Execute, as libpq's PQexecParams sends it), read as text."""
        t0 = time.time()
        pgc = self.conn.pgconn
        try:
            res = pgc.exec_params(sql.encode(), [])
        except psycopg.Error as e:
            res = None
            err = str(e)
        if res is not None and res.status == pq.ExecStatus.TUPLES_OK:
            rows = [tuple(None if v is None else bytes(v).decode("utf-8", errors="replace")
                          for v in (res.get_value(r, c) for c in range(res.nfields)))
                    for r in range(res.ntuples)]
            out = Outcome("rows", rows=rows, types=[res.ftype(c) for c in range(res.nfields)])
        elif res is not None and res.status == pq.ExecStatus.COMMAND_OK:
            out = Outcome("rows", rows=[], types=[])
        else:
            state = res.error_field(pq.DiagnosticField.SQLSTATE) if res is not None else None
            msg = res.error_field(pq.DiagnosticField.MESSAGE_PRIMARY) if res is not None else None
            state = state.decode() if state else None
            msg = msg.decode(errors="replace") if msg else (err if res is None else "")
            if state == "57014":
                out = Outcome("timeout", message=msg)
            elif state and pgc.status == pq.ConnStatus.OK:
                out = Outcome("error", sqlstate=state, message=msg)
            else:
                died = self.recover()
                out = Outcome("lost", message=("server died: " if died else "") + (msg or "")[:200])
        out.seconds = time.time() - t0
        return out

    def script(self, stmts):
        """Statements that must work (making the schema)."""
        for s in stmts:
            self.conn.execute(s)

    def close(self):
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:
            pass
        if self.server is not None:
            self.server.stop()
