"""TPC-H plumbing shared by the TPC-H test (tpch_test.py) and the TPC-H
benchmark (bench/tpch/): data generation, loading, running the 22
queries and comparing answers, each done by the shared tools in
../shared/tools/sql/tpch/ (load.py, run_tpch.py, compare_results.py),
which are called where they are, never copied.

Data: `tpchgen-cli csv -s SF -o DIR` (the venv's command, installed by
scripts/install-deps.sh), generated once per folder and kept (a folder
outside git, e.g. build/tpch-sf1); a file `.complete` marks a finished
generation, so an interrupted one is redone.

Cadenza loads with `load.py pg --no-indexes` and then the statements of
pg_indexes.sql one by one (timed), primary keys included (ALTER TABLE …
ADD PRIMARY KEY rebuilds the table in key order). A server that cannot add
a primary key to a filled table (one built before ALTER TABLE) gets a
unique index on the same columns instead, and the substitution is
reported.
"""
import json
import os
import re
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import srvctl  # noqa: E402

SHARED = os.environ.get("CZ_SHARED") or os.path.join(os.path.dirname(TOP), "shared")
TOOLS = os.path.join(SHARED, "tools", "sql", "tpch")
TABLES = ["region", "nation", "part", "supplier", "partsupp", "customer", "orders", "lineitem"]
PY = sys.executable


def tool(name):
    path = os.path.join(TOOLS, name)
    if not os.path.exists(path):
        raise RuntimeError("no %s (the shared TPC-H tools; set CZ_SHARED)" % path)
    return path


def venv_bin(cmd):
    """A command of the Python environment this runs in (tpchgen-cli)."""
    p = os.path.join(os.path.dirname(PY), cmd)
    return p if os.access(p, os.X_OK) else cmd


def sf_name(sf):
    """0.1 -> '0.1', 1.0 -> '1'."""
    return ("%g" % float(sf))


def ensure_data(sf, folder, log=print):
    """Generates the CSV files of scale factor sf into folder unless a
    finished generation is there; returns the seconds spent (0 if cached)."""
    mark = os.path.join(folder, ".complete")
    if os.path.exists(mark) and all(os.path.exists(os.path.join(folder, t + ".csv")) for t in TABLES):
        return 0.0
    os.makedirs(folder, exist_ok=True)
    log("generating TPC-H SF %s into %s" % (sf_name(sf), folder))
    t0 = time.perf_counter()
    r = subprocess.run([venv_bin("tpchgen-cli"), "csv", "-s", sf_name(sf), "-o", folder],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode != 0:
        raise RuntimeError("tpchgen-cli failed:\n" + r.stdout.decode(errors="replace")[-2000:])
    with open(mark, "w") as f:
        f.write("sf %s\n" % sf_name(sf))
    return time.perf_counter() - t0


def run_tool(args, logfile, timeout=None):
    """Runs a shared tool with this Python, output appended to logfile;
    returns (exit status, output)."""
    r = subprocess.run([PY] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       timeout=timeout)
    out = r.stdout.decode(errors="replace")
    with open(logfile, "a") as f:
        f.write("$ %s\n%s\n" % (" ".join(args), out))
    return r.returncode, out


def load_duckdb(data, db, threads, work):
    """Re-creates the DuckDB file from the CSV files; returns load.py's JSON."""
    out = os.path.join(work, "load_duckdb.json")
    rc, txt = run_tool([tool("load.py"), "duckdb", "--data", data, "--db", db,
                        "--threads", str(threads), "--out", out], os.path.join(work, "tools.log"))
    if rc != 0:
        raise RuntimeError("load.py duckdb failed:\n" + txt[-2000:])
    return json.load(open(out))


def duckdb_cached(data, db):
    """True when db was loaded after the CSV files were written."""
    mark = os.path.join(data, ".complete")
    return os.path.exists(db) and os.path.exists(mark) and os.path.getmtime(db) > os.path.getmtime(mark)


def load_pg(dsn, data, work, label, indexes=True, client_copy=False):
    """load.py pg into the server at dsn; returns load.py's JSON."""
    out = os.path.join(work, "load_%s.json" % label)
    args = [tool("load.py"), "pg", "--data", data, "--dsn", dsn, "--out", out]
    if not indexes:
        args.append("--no-indexes")
    if client_copy:
        args.append("--client-copy")
    rc, txt = run_tool(args, os.path.join(work, "tools.log"))
    if rc != 0:
        raise RuntimeError("load.py pg (%s) failed:\n%s" % (label, txt[-2000:]))
    return json.load(open(out))


def others_can_read(folder):
    """Whether a server running as another user (PostgreSQL runs as
    `postgres` when we are root) can read the CSV files in folder."""
    import stat
    p = os.path.abspath(folder)
    while True:
        if not os.stat(p).st_mode & stat.S_IXOTH:
            return False
        if p == "/":
            break
        p = os.path.dirname(p)
    return all(os.stat(os.path.join(folder, t + ".csv")).st_mode & stat.S_IROTH for t in TABLES)


def index_statements():
    text = "\n".join(l for l in open(tool("pg_indexes.sql")).read().splitlines()
                     if not l.strip().startswith("--"))
    return [s.strip() for s in text.split(";") if s.strip()]


def add_indexes(dsn, log=print):
    """The keys and indexes of pg_indexes.sql, each timed; a primary key
    an older server cannot add (no ALTER TABLE: 42601 / 0A000) becomes a
    unique index. Returns ({step: s}, notes)."""
    import psycopg
    steps, notes = {}, []
    with psycopg.connect(dsn, autocommit=True) as con:
        for s in index_statements():
            m = re.match(r"alter\s+table\s+(\w+)\s+add\s+primary\s+key\s*\(([^)]*)\)", s, re.I)
            name = ("index: pk " + m.group(1)) if m else ("index: " + s.split()[2])
            t0 = time.perf_counter()
            try:
                con.execute(s)
            except psycopg.Error as e:
                # only a server without ALTER TABLE falls back; any other
                # failure (a duplicate key, a NULL) is the load's error
                if not m or e.sqlstate not in ("42601", "0A000"):
                    raise
                alt = "create unique index %s_pk on %s (%s)" % (m.group(1), m.group(1), m.group(2))
                if not notes:
                    notes.append("ALTER TABLE ... ADD PRIMARY KEY failed (%s): each primary key "
                                 "of pg_indexes.sql was made a unique index on its columns"
                                 % str(e).splitlines()[0])
                t0 = time.perf_counter()
                con.execute(alt)
            steps[name] = round(time.perf_counter() - t0, 3)
            log("%-28s %9.3f s" % (name, steps[name]))
        t0 = time.perf_counter()
        con.execute("checkpoint")
        steps["checkpoint (after indexes)"] = round(time.perf_counter() - t0, 3)
    return steps, notes


def run_queries(system, label, results_dir, work, dsn=None, db=None, threads=None,
                timeout=300, runs=3, warmup=1, only=None, wall=None):
    """run_tpch.py; returns its JSON ({queries: {qNN: {median_s, error, …}}})."""
    out = os.path.join(work, "run_%s.json" % label)
    args = [tool("run_tpch.py"), system, "--label", label, "--results-dir", results_dir,
            "--runs", str(runs), "--warmup", str(warmup), "--out", out]
    if system == "pg":
        args += ["--dsn", dsn, "--timeout", str(timeout)]
    else:
        args += ["--db", db, "--threads", str(threads)]
    if only:
        args += ["--only", only]
    # the client gives up too (a server that ignores statement_timeout must
    # not hang the run): every run of every query, plus slack
    nq = len(only.split(",")) if only else 22
    rc, txt = run_tool(args, os.path.join(work, "tools.log"),
                       timeout=wall or (nq * (runs + warmup) * (timeout + 30) + 300))
    if rc != 0 or not os.path.exists(out):
        raise RuntimeError("run_tpch.py %s failed:\n%s" % (label, txt[-2000:]))
    return json.load(open(out))


def compare(dir_a, dir_b, work):
    """compare_results.py A B, read back per query: {qNN: (ok, line,
    detail)} where ok means same or close (float rounding)."""
    rc, txt = run_tool([tool("compare_results.py"), dir_a, dir_b], os.path.join(work, "tools.log"))
    res, last = {}, None
    for line in txt.splitlines():
        m = re.match(r"(q\d\d)\.txt: (.*)", line)
        if m:
            last = m.group(1)
            st = m.group(2)
            res[last] = [st.startswith("same") or st.startswith("close"), st, ""]
        elif last and line.startswith("   "):
            res[last][2] += line.strip() + " "
    return {q: tuple(v) for q, v in res.items()}


def cadenza_server(folder, binary, data, buffers, params):
    """A Cadenza server (not started) whose server-side COPY may read data;
    params: extra [Parameters] keys (ThreadsPerQuery, VectorSize, …)."""
    p = {"DirsAllowed": "io," + os.path.abspath(data)}
    p.update({k: str(v) for k, v in params.items()})
    return srvctl.Server("cadenza", folder, binary=binary, buffers=buffers,
                         extra_ini={"Parameters": p})


def restart_with(srv, params):
    """Stops srv, rewrites its ini with other [Parameters], starts it on
    the same database."""
    srv.stop()
    srv.extra_ini["Parameters"].update({k: str(v) for k, v in params.items()})
    srv._write_ini()
    srv.start()


def source_has(key):
    """Whether the server's C source names the ini key (a grep of libsrc/
    for "KEY", so a key only written about does not count)."""
    r = subprocess.run(["grep", "-rlF", "--include=*.c", '"%s"' % key, os.path.join(TOP, "libsrc")],
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    return r.returncode == 0
