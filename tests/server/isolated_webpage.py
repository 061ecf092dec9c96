#!/usr/bin/env python3
"""The web query page at / (issue 10, item 7; libsrc/net/www/, hs_www.c,
hs_sql.c), in headless Chromium driven over the DevTools protocol
(tests/server/cdp.py, --remote-debugging-pipe: standard library only).

Starts a server with [HTTPServer] ServerPort, loads 120 triples and a
130-row SQL table, and checks:

- over plain HTTP: / and /sparql are index.html, each static file has its
  content type, an ETag and Cache-Control: no-cache, If-None-Match gives
  304, an unknown path 404, POST on a file 405; /sql wants HTTP Basic
  (401), application/sql (415), POST (405), one statement (400), answers
  JSON, cuts at max_rows and says so (a writing statement still runs
  whole), gives 42601 as 400 and a missing
  privilege as 403;
- in the browser: the editor is CodeMirror with SPARQL highlighting;
  Ctrl-Space completes a prefix and adds its PREFIX line; a SPARQL query's
  120 rows are paged 50 at a time (next, next, prev: the rows shown are
  the right ones); a SQL query as dba; the plan (EXPLAIN ANALYZE, through
  /sql) is drawn beside the results with rows and times, for SQL and for
  SPARQL; a SPARQL update runs with the user's credentials; a bad query shows the endpoint's error; the history in
  localStorage lists the queries run and reloads one; every request the
  page made went to this server.

Screenshots are kept in the test's folder (DIR/webpage/*.png). Skipped
with a message when chromium is not installed.

Usage: isolated_webpage.py --kind cadenza|postgres --binary PATH --dir DIR
"""
import base64
import json
import os
import sys

import psycopg

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cdp  # noqa: E402
import checks  # noqa: E402
import sparqlkit  # noqa: E402
from checks import check  # noqa: E402

NTRIPLES = 120
SQL_ROWS = 130


def req(port, method, path, body=None, headers=None):
    return sparqlkit.Http(port).req(method, path, body, headers, timeout=30)


def http_checks(port, password):
    st, hd, body = req(port, "GET", "/")
    check("GET / is the page", st == 200 and hd.get("content-type") == "text/html; charset=utf-8"
          and 'id="query"' in body, "%d %s" % (st, hd))
    check("the page names no other site", "http://" not in body.replace("&lt;http://", "")
          and "https://" not in body, body[:300])
    etag = hd.get("etag", "")
    check("the page has an ETag and no-cache", etag.startswith('"') and hd.get("cache-control") == "no-cache",
          repr(hd))
    st2, hd2, body2 = req(port, "GET", "/", headers={"If-None-Match": etag})
    check("If-None-Match with its ETag: 304 without a body", st2 == 304 and body2 == "", "%d" % st2)
    st2, _, body2 = req(port, "GET", "/", headers={"If-None-Match": '"other"'})
    check("another ETag: 200", st2 == 200 and body2 == body, "%d" % st2)
    st2, _, body2 = req(port, "GET", "/sparql")
    check("GET /sparql without a query is the page", st2 == 200 and body2 == body, "%d" % st2)
    for path, ct, must in (("/app.js", "text/javascript; charset=utf-8", "localStorage"),
                           ("/app.css", "text/css; charset=utf-8", "#plan"),
                           ("/codemirror.min.js", "text/javascript; charset=utf-8", "CodeMirror"),
                           ("/codemirror.min.css", "text/css; charset=utf-8", ".CodeMirror"),
                           ("/codemirror-LICENSE.txt", "text/plain; charset=utf-8", "MIT License")):
        st, hd, b = req(port, "GET", path)
        check("%s served as %s" % (path, ct), st == 200 and hd.get("content-type") == ct and must in b
              and hd.get("etag") and hd.get("etag") != etag, "%d %s" % (st, hd))
    st, _, _ = req(port, "GET", "/nothing.js")
    check("an unknown file: 404", st == 404, "%d" % st)
    st, hd, _ = req(port, "POST", "/app.js", body="x", headers={"Content-Type": "text/plain"})
    check("POST on a file: 405", st == 405, "%d" % st)

    auth = {"Authorization": "Basic " + base64.b64encode(("dba:" + password).encode()).decode()}
    sqlh = dict(auth, **{"Content-Type": "application/sql"})
    st, hd, b = req(port, "POST", "/sql", "SELECT 1", {"Content-Type": "application/sql"})
    check("/sql without credentials: 401 with WWW-Authenticate Basic",
          st == 401 and hd.get("www-authenticate", "").startswith("Basic"), "%d %s" % (st, b))
    bad = {"Authorization": "Basic " + base64.b64encode(b"dba:wrong").decode(),
           "Content-Type": "application/sql"}
    st, _, b = req(port, "POST", "/sql", "SELECT 1", bad)
    check("/sql with a wrong password: 401", st == 401, "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "query=SELECT+1",
                   dict(auth, **{"Content-Type": "application/x-www-form-urlencoded"}))
    check("/sql with a form body (what a cross-site form sends): 415", st == 415, "%d %s" % (st, b))
    st, _, b = req(port, "GET", "/sql", headers=auth)
    check("GET /sql: 405", st == 405, "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "SELECT 1; SELECT 2", sqlh)
    check("/sql with two statements: 400", st == 400 and "exactly one statement" in b, "%d %s" % (st, b))
    st, hd, b = req(port, "POST", "/sql", "SELECT i, s, NULL::int AS n FROM t WHERE i <= 3 ORDER BY i", sqlh)
    j = json.loads(b) if st == 200 else {}
    check("/sql answers JSON", st == 200 and hd.get("content-type", "").startswith("application/json")
          and [c["name"] for c in j["columns"]] == ["i", "s", "n"]
          and j["columns"][0]["type"] == "integer"
          and j["rows"] == [["1", "v1", None], ["2", "v2", None], ["3", "v3", None]]
          and j["truncated"] is False and j["tag"] == "SELECT 3", "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql?max_rows=7", "SELECT i FROM t ORDER BY i", sqlh)
    j = json.loads(b) if st == 200 else {}
    check("/sql cuts at max_rows and says so", st == 200 and len(j["rows"]) == 7 and j["truncated"] is True,
          "%d %s" % (st, b[:200]))
    st, _, b = req(port, "POST", "/sql?max_rows=2",
                   "INSERT INTO u SELECT g FROM generate_series(1, 10) g RETURNING g", sqlh)
    j = json.loads(b) if st == 200 else {}
    st2, _, b2 = req(port, "POST", "/sql", "SELECT count(*) FROM u", sqlh)
    check("/sql: a writing statement cut at max_rows still runs to its end",
          st == 200 and j["rows"] == [["1"], ["2"]] and j["truncated"] is True and j["tag"] == "INSERT 0 10"
          and st2 == 200 and json.loads(b2)["rows"] == [["10"]], "%d %s / %d %s" % (st, b, st2, b2))
    st, _, b = req(port, "POST", "/sql?max_rows=0", "SELECT 1", sqlh)
    check("/sql max_rows out of range: 400", st == 400, "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "SELEC 1", sqlh)
    check("/sql syntax error: 400 42601", st == 400 and b.startswith("42601:"), "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "SELECT i FROM t\0", sqlh)
    check("/sql with a NUL byte: 400", st == 400, "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "COPY t TO STDOUT", sqlh)
    check("/sql refuses COPY", st == 501 and "COPY" in b, "%d %s" % (st, b))
    lowh = {"Authorization": "Basic " + base64.b64encode(b"low:lowpw").decode(),
            "Content-Type": "application/sql"}
    st, _, b = req(port, "POST", "/sql", "SELECT count(*) FROM t", lowh)
    check("/sql runs as the user: no privilege is 403 42501", st == 403 and "42501" in b, "%d %s" % (st, b))
    st, _, b = req(port, "POST", "/sql", "SELECT 40 + 2", lowh)
    check("/sql as a user with few privileges still runs what it may", st == 200 and '"42"' in b,
          "%d %s" % (st, b))


def browser_checks(port, password, folder):
    shots = []
    b = cdp.Browser(os.path.join(folder, "chromium-profile"))
    try:
        p = b.page()
        origin = "http://127.0.0.1:%d" % port
        p.navigate(origin + "/")
        p.wait("document.querySelector('.CodeMirror') !== null && window.cadenzaEditor !== undefined")
        check("the editor is CodeMirror", True)
        check("SPARQL is highlighted",
              p.wait("document.querySelectorAll('.CodeMirror .cm-keyword').length >= 2"))

        # prefix completion: Ctrl-Space after "fo" offers foaf: and picking it
        # adds the PREFIX line
        p.eval("cadenzaEditor.setValue('SELECT ?n WHERE { ?s fo'); cadenzaEditor.focus();"
               "cadenzaEditor.setCursor(cadenzaEditor.lineCount(), 0); true")
        p.key(" ", "Space", 32, modifiers=2)
        hints = p.wait("Array.from(document.querySelectorAll('.CodeMirror-hints li'))"
                       ".map(function(li){return li.textContent})", timeout=10)
        check("Ctrl-Space offers the prefix", any(h.startswith("foaf:") for h in hints), repr(hints))
        shots.append(p.screenshot(os.path.join(folder, "01-completion.png")))
        p.key("Enter", "Enter", 13)
        text = p.wait("document.querySelector('.CodeMirror-hints') === null && cadenzaEditor.getValue()")
        check("picking it completes the name and declares the prefix",
              text.startswith("PREFIX foaf: <http://xmlns.com/foaf/0.1/>\n") and text.endswith("?s foaf:"),
              repr(text))

        # a SPARQL query, paged on the client
        q = ("PREFIX ex: <http://example.org/>\n"
             "SELECT ?s ?n WHERE { ?s ex:n ?n } ORDER BY ?n")
        p.eval("cadenzaEditor.setValue(%s); document.getElementById('run').click(); true" % json.dumps(q))
        p.wait("document.querySelectorAll('#results tbody tr').length > 0")
        first = p.eval("Array.from(document.querySelectorAll('#results tbody tr'))"
                       ".map(function(r){return r.cells[1].textContent})")
        info = p.eval("document.getElementById('pageinfo').textContent")
        want = ['"%d"^^<http://www.w3.org/2001/XMLSchema#integer>' % i for i in range(NTRIPLES)]
        check("a SPARQL query: the first page is rows 1-50 of 120",
              first == want[:50] and info.startswith("rows 1–50 of 120"), "%r %r" % (info, first[:3]))
        check("the header names the variables",
              p.eval("Array.from(document.querySelectorAll('#results th')).map(function(t){return t.textContent})")
              == ["?s", "?n"])
        shots.append(p.screenshot(os.path.join(folder, "02-sparql-page1.png")))
        p.eval("document.getElementById('next').click(); document.getElementById('next').click(); true")
        last = p.eval("Array.from(document.querySelectorAll('#results tbody tr'))"
                      ".map(function(r){return r.cells[1].textContent})")
        check("next, next: the last page is rows 101-120", last == want[100:]
              and p.eval("document.getElementById('next').disabled")
              and p.eval("document.getElementById('pageinfo').textContent").startswith("rows 101–120 of 120"),
              repr(last[:2]))
        shots.append(p.screenshot(os.path.join(folder, "03-sparql-page3.png")))
        p.eval("document.getElementById('prev').click(); true")
        mid = p.eval("Array.from(document.querySelectorAll('#results tbody tr'))"
                     ".map(function(r){return r.cells[1].textContent})")
        check("prev: rows 51-100", mid == want[50:100], repr(mid[:2]))

        # the plan of the SPARQL query (needs a user)
        p.eval("document.getElementById('user').value = 'dba';"
               "document.getElementById('password').value = %s; true" % json.dumps(password))
        p.eval("document.getElementById('explain').click(); true")
        plan = p.wait("document.querySelectorAll('#plan .op').length > 0 && "
                      "Array.from(document.querySelectorAll('#plan .op')).map(function(d){return d.textContent})")
        check("the SPARQL plan is drawn beside the results, with rows and times",
              any("Scan" in l and "rows=%d" % NTRIPLES in l for l in plan)
              and p.eval("document.querySelectorAll('#plan .rows').length") >= 1
              and p.eval("document.querySelectorAll('#plan .time').length") >= 1
              and p.eval("(function(){var a=document.getElementById('results-pane').getBoundingClientRect(),"
                         "b=document.getElementById('plan-pane').getBoundingClientRect();"
                         "return b.left >= a.right && b.top < a.bottom;})()"), repr(plan))
        shots.append(p.screenshot(os.path.join(folder, "04-sparql-plan.png")))

        # a SPARQL update from the page (with the user filled in)
        p.eval("cadenzaEditor.setValue('PREFIX ex: <http://example.org/>\\nINSERT DATA { ex:new ex:m 1 }');"
               "document.getElementById('run').click(); true")
        done = p.wait("document.getElementById('text-result') && "
                      "document.getElementById('text-result').textContent")
        check("a SPARQL update runs as the user", done.startswith("update done: 1 quads inserted"), repr(done))

        # SQL, and its plan
        p.eval("document.getElementById('lang-sql').click(); true")
        check("SQL mode switches the highlighting",
              p.eval("cadenzaEditor.getOption('mode')") == "text/x-pgsql")
        sql = "SELECT i, s FROM t WHERE i > 5 ORDER BY i DESC"
        p.eval("cadenzaEditor.setValue(%s); document.getElementById('run').click(); true" % json.dumps(sql))
        p.wait("document.getElementById('status').textContent.indexOf('125 rows') === 0")
        rows = p.eval("Array.from(document.querySelectorAll('#results tbody tr'))"
                      ".map(function(r){return [r.cells[0].textContent, r.cells[1].textContent]})")
        check("a SQL query through /sql: 125 rows, the first page right",
              rows == [[str(i), "v%d" % i] for i in range(130, 80, -1)], repr(rows[:3]))
        p.eval("document.getElementById('explain').click(); true")
        plan = p.wait("document.querySelectorAll('#plan .op').length > 0 && "
                      "document.getElementById('plan').textContent.indexOf('Sort') >= 0 && "
                      "Array.from(document.querySelectorAll('#plan .op')).map(function(d){return d.textContent})")
        check("the SQL plan: Sort over a Scan of t with 125 rows",
              plan[0].startswith("Sort") and any("Scan" in l and " t " in l and "rows=125" in l for l in plan),
              repr(plan))
        shots.append(p.screenshot(os.path.join(folder, "05-sql-plan.png")))

        # errors
        p.eval("cadenzaEditor.setValue('SELECT i FROM no_such_table'); "
               "document.getElementById('run').click(); true")
        err = p.wait("document.getElementById('error') && document.getElementById('error').textContent")
        check("a bad SQL query shows the error", err.startswith("42P01:") and "no_such_table" in err, repr(err))
        p.eval("document.getElementById('lang-sparql').click();"
               "cadenzaEditor.setValue('SELECT ?s WHERE { ?s ?p }'); "
               "document.getElementById('run').click(); true")
        err = p.wait("document.getElementById('error') && document.getElementById('error').textContent")
        st = p.eval("document.getElementById('status').textContent")
        check("a bad SPARQL query shows the endpoint's error and status",
              err.startswith("42601:") and "line 1" in err and st.startswith("HTTP 400"), "%r %r" % (err, st))
        shots.append(p.screenshot(os.path.join(folder, "06-sparql-error.png")))

        # history
        hist = p.eval("JSON.parse(localStorage.getItem('cadenza.history'))")
        check("the history keeps the queries run, newest first",
              [h["lang"] for h in hist[:3]] == ["sparql", "sql", "sql"]
              and hist[0]["text"] == "SELECT ?s WHERE { ?s ?p }" and hist[2]["text"] == sql
              and any(h["text"] == q for h in hist), repr(hist))
        p.navigate(origin + "/")
        n = p.wait("document.querySelectorAll('#history li').length")
        p.eval("document.getElementById('history-box').open = true;"
               "document.querySelectorAll('#history li')[2].click(); true")
        check("after a reload the history is listed and a click loads a query",
              n == len(hist) and p.eval("cadenzaEditor.getValue()") == sql
              and p.eval("document.getElementById('lang-sql').checked"), "%d %d" % (n, len(hist)))
        shots.append(p.screenshot(os.path.join(folder, "07-history.png")))

        b.pump(0.3)
        urls = [e["params"]["request"]["url"] for e in p.events if e["method"] == "Network.requestWillBeSent"]
        check("every request the page made went to this server",
              urls and all(u.startswith(origin + "/") for u in urls), repr(urls))
        fails = [e for e in p.events if e["method"] == "Runtime.exceptionThrown"]
        check("no script error on the page", not fails, repr(fails[:1]))
    finally:
        b.close()
    check("screenshots kept", all(os.path.getsize(s) > 1000 for s in shots), repr(shots))


def main():
    args = checks.isolated_args()
    if args.kind != "cadenza":
        return checks.skip("the web page is Cadenza's own")
    if not cdp.find_chromium():
        return checks.skip("chromium is not installed (scripts/install-deps.sh installs Debian's chromium)")
    srv, port = sparqlkit.http_server(args, "webpage", sparql={"AllowUpdate": "authenticated"}, buffers=2000)
    srv.start()
    try:
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            c.execute("CREATE TABLE t (i int, s text)")
            c.execute("INSERT INTO t SELECT g, 'v' || g FROM generate_series(1, %d) g" % SQL_ROWS)
            c.execute("SPARQL INSERT DATA { %s }" % " ".join(
                "<http://example.org/s%d> <http://example.org/n> %d ." % (i, i) for i in range(NTRIPLES)))
            c.execute("CREATE TABLE u (g int)")
            c.execute("CREATE ROLE low LOGIN PASSWORD 'lowpw'")
        http_checks(port, srv.password)
        browser_checks(port, srv.password, srv.folder)
        with psycopg.connect(srv.dsn(), autocommit=True) as c:
            check("SQL still answers", checks.answers(c))
        check("the server is alive", srv.alive())
    finally:
        srv.stop()
    sparqlkit.no_crash_logged(srv)
    return checks.summary()


if __name__ == "__main__":
    sys.exit(main())
