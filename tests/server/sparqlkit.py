"""What the RDF, SPARQL and HTTP test scripts share (isolated_sparql*.py,
isolated_http*.py, isolated_webpage.py, sparql_regress.py, the W3C
tools): a server with the HTTP endpoint on a free port, files loaded with
the bulk loader, an HTTP client that hides nothing (the standard
library's http.client, raw sockets for bytes no client would send), the
W3C harness and the W3C manifests' test entries."""
import base64
import http.client
import os
import socket
import sys
import urllib.parse

import checks
import srvctl

SHARED = os.environ.get("CZ_SHARED") or os.path.normpath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../shared"))
W3C_DATA = os.path.join(SHARED, "data", "w3c-sparql")


def rdf_server(args, name, params=None, buffers=4000, files=None, extra_ini=None):
    """An isolated server (checks.isolated_server, Cadenza at args.binary)
    whose DirsAllowed is a folder the loader may read, srv.rdfdata, with
    files ({name: text}) written into it; params go to [Parameters],
    extra_ini's other sections as they are. Not started."""
    if args.binary:
        args.binary = os.path.abspath(args.binary)
    srv = checks.isolated_server(args, name, buffers=buffers)
    srv.rdfdata = os.path.join(srv.folder, "rdfdata")
    os.makedirs(srv.rdfdata)
    for fname, text in (files or {}).items():
        with open(os.path.join(srv.rdfdata, fname), "w") as f:
            f.write(text)
    srv.extra_ini = dict(extra_ini or {})
    srv.extra_ini["Parameters"] = dict({"DirsAllowed": srv.rdfdata},
                                       **{k: str(v) for k, v in (params or {}).items()})
    return srv


def http_server(args, name, http=None, sparql=None, params=None, buffers=4000, files=None):
    """rdf_server with [HTTPServer] ServerPort on a free 127.0.0.1 port and
    http and sparql added to its [HTTPServer] and [SPARQL] sections. Not
    started. Returns (srv, port)."""
    port = srvctl.free_port()
    srv = rdf_server(args, name, params, buffers, files, extra_ini={
        "HTTPServer": dict({"ServerPort": "127.0.0.1:%d" % port}, **(http or {})),
        "SPARQL": dict(sparql or {})})
    return srv, port


def run_isql(args, srv, script):
    """isql-cz (beside args.binary in the build) running script against srv
    in batch mode: the CompletedProcess, or None when isql-cz is not built."""
    import subprocess
    isql = os.path.join(os.path.dirname(os.path.abspath(args.binary)), "..", "isql", "isql-cz")
    if not os.path.exists(isql):
        return None
    return subprocess.run([isql, "-w", "-q", "-b", "-f", "-"], input=script, capture_output=True,
                          text=True, timeout=60, env=dict(os.environ, **srv.env()))


def load_files(conn, folder, files, mask="*"):
    """Writes files ({name: text}) into folder and loads those matching mask
    with ld_dir and rdf_loader_run."""
    for fname, text in files.items():
        with open(os.path.join(folder, fname), "w") as f:
            f.write(text)
    conn.execute("SELECT ld_dir(%s, %s)", (folder, mask))
    conn.execute("SELECT rdf_loader_run()")


class Http:
    """Requests to one server's HTTP port, one connection each unless conn
    is given; with user, HTTP Basic credentials on every request."""

    def __init__(self, port, user=None, password=None):
        self.port = port
        self.auth = None
        if user is not None:
            self.auth = "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode()).decode()

    def req(self, method, path, body=None, headers=None, conn=None, timeout=60):
        c = conn or http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        headers = dict(headers or {})
        if self.auth and "Authorization" not in headers:
            headers["Authorization"] = self.auth
        try:
            c.request(method, path, body=body, headers=headers)
            r = c.getresponse()
            data = r.read()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, data.decode("utf-8", "replace")
        finally:
            if conn is None:
                c.close()

    def get(self, query, accept=None, extra=""):
        h = {"Accept": accept} if accept else {}
        return self.req("GET", "/sparql?query=" + urllib.parse.quote(query) + extra, headers=h)

    def post_form(self, fields, accept=None):
        h = {"Content-Type": "application/x-www-form-urlencoded"}
        if accept:
            h["Accept"] = accept
        return self.req("POST", "/sparql", urllib.parse.urlencode(fields), h)

    def post_direct(self, query, accept=None, ctype="application/sparql-query"):
        h = {"Content-Type": ctype}
        if accept:
            h["Accept"] = accept
        return self.req("POST", "/sparql", query.encode() if isinstance(query, str) else query, h)


def raw(port, data, wait=10.0):
    """Sends bytes on a fresh socket; what came back before the server
    closed it or wait seconds passed."""
    s = socket.create_connection(("127.0.0.1", port), timeout=wait)
    try:
        s.sendall(data)
        got = b""
        while True:
            try:
                b = s.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                break
            if not b:
                break
            got += b
        return got
    finally:
        s.close()


def no_crash_logged(srv):
    """The check every server-owning script ends with: no fatal signal or
    backtrace in the server's log."""
    log = srv.log_tail(400)
    return checks.check("no crash in the server log",
                        "fatal signal" not in log.lower() and "backtrace" not in log.lower(), log[-2000:])


# ---- the W3C test suites ---------------------------------------------------

def w3c_harness():
    """The run_w3c module of ../shared/tools/sparql-w3c (ImportError
    without rdflib or requests)."""
    sys.path.insert(0, os.path.join(SHARED, "tools", "sparql-w3c"))
    import run_w3c
    return run_w3c


def w3c_local(iri, fdir):
    """A manifest's file IRI as a path in the local copy of the suite."""
    s = str(iri)
    if s.startswith("file://"):
        s = s[len("file://"):]
    return s if os.path.exists(s) else os.path.join(fdir, os.path.basename(s))


def w3c_manifests(suites=("sparql10", "sparql11"), only=None):
    """(suite, folder, folder path, parsed manifest graph) for every folder
    with a manifest.ttl, in name order; only: a folder name to keep."""
    import rdflib
    for suite in suites:
        sdir = os.path.join(W3C_DATA, suite)
        for folder in sorted(os.listdir(sdir)):
            fdir = os.path.join(sdir, folder)
            mpath = os.path.join(fdir, "manifest.ttl")
            if not os.path.isfile(mpath) or (only and folder != only):
                continue
            g = rdflib.Graph()
            g.parse(mpath, format="turtle")
            yield suite, folder, fdir, g
