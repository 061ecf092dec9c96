"""The two servers the differential fuzzer asks: each started with
tests/server/srvctl.py in a folder of its own (or reached through a DSN
given on the command line), one autocommit connection each, every value
read back as the text the server sent.

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
        t0 = time.time()
        try:
            cur = self.conn.execute(sql)
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
