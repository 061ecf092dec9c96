"""The tests/sparql/*.test file format (tests/sparql/README.md): records
separated by blank lines, terms written in N-Triples form. This module
reads the files and turns every answer (the endpoint's JSON and
N-Triples, the SQL statement's N-Triples strings, Oxigraph's terms) into
one canonical form so they compare alike:

  an IRI          ("iri", "http://…")
  a blank node    ("bnode",)                labels are not compared
  a literal       ("lit", lexical, datatype, language)
                  datatype "" for xsd:string and language-tagged
                  literals, language lower-cased (RDF 1.1: tags compare
                  without case) and "" when there is none
  unbound         None
"""
import re

XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"

_ESC = {"t": "\t", "b": "\b", "n": "\n", "r": "\r", "f": "\f", '"': '"', "'": "'", "\\": "\\"}


class FormatError(Exception):
    pass


XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {XSD + "integer", XSD + "decimal", XSD + "double", XSD + "float"}


def number_value(lexical, datatype):
    """A number's value as text ("3" for "3.0"^^xsd:decimal and "03"^^xsd:integer,
    "10.0" for "1E1"^^xsd:double): engines may write any lexical form of a
    computed number (XML Schema 1.0 and 1.1 differ on the canonical ones),
    so numbers compare by value and datatype. None when the form is invalid."""
    import decimal
    try:
        if datatype in (XSD + "double", XSD + "float"):
            return repr(float(lexical.strip()))
        if "e" in lexical.lower() or lexical.strip().lower() in ("nan", "inf", "-inf", "+inf"):
            return None
        v = decimal.Decimal(lexical.strip())
        if datatype == XSD + "integer" and v != v.to_integral_value():
            return None
        return format(v.normalize(), "f") if v != 0 else "0"
    except (ValueError, decimal.InvalidOperation):
        return None


def lit(lexical, datatype="", lang=""):
    """The canonical literal; numbers by value (number_value)."""
    if datatype in (XSD_STRING, RDF_LANGSTRING):
        datatype = ""
    if datatype in NUMERIC:
        v = number_value(lexical, datatype)
        if v is not None:
            lexical = v
    return ("lit", lexical, datatype, (lang or "").lower())


def _unescape(s):
    out = []
    i = 0
    while i < len(s):
        c = s[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = s[i + 1:i + 2]
        if e in _ESC:
            out.append(_ESC[e])
            i += 2
        elif e == "u":
            out.append(chr(int(s[i + 2:i + 6], 16)))
            i += 6
        elif e == "U":
            out.append(chr(int(s[i + 2:i + 10], 16)))
            i += 10
        else:
            raise FormatError("bad escape in %r" % s)
    return "".join(out)


_TERM = re.compile(r'\s*(?:<([^>]*)>|(_:\S+)|"((?:[^"\\]|\\.)*)"(?:@([A-Za-z0-9-]+)|\^\^<([^>]*)>)?'
                   r'|(UNDEF)(?=\s|$)|(\.)(?=\s*$))')


def parse_terms(line):
    """The terms of one line in N-Triples form (UNDEF for unbound; a
    closing " ." is dropped) as canonical terms."""
    out = []
    pos = 0
    line = line.rstrip()
    while pos < len(line):
        m = _TERM.match(line, pos)
        if not m or m.end() == pos:
            raise FormatError("cannot read a term at %r" % line[pos:])
        pos = m.end()
        iri, bnode, lex, lang, dt, undef, dot = m.groups()
        if dot:
            continue
        if iri is not None:
            out.append(("iri", iri))
        elif bnode is not None:
            out.append(("bnode",))
        elif lex is not None:
            out.append(lit(_unescape(lex), dt or "", lang or ""))
        else:
            out.append(None)
    return out


def term_from_nt(s):
    """One term in N-Triples form (the SQL statement's values); None stays."""
    if s is None:
        return None
    t = parse_terms(s)
    if len(t) != 1:
        raise FormatError("not one term: %r" % s)
    return t[0]


def term_from_json(b):
    """A SPARQL JSON results binding."""
    if b is None:
        return None
    if b["type"] == "uri":
        return ("iri", b["value"])
    if b["type"] == "bnode":
        return ("bnode",)
    return lit(b["value"], b.get("datatype", ""), b.get("xml:lang", ""))


def term_from_oxigraph(t):
    """A pyoxigraph term."""
    import pyoxigraph as ox
    if t is None:
        return None
    if isinstance(t, ox.NamedNode):
        return ("iri", t.value)
    if isinstance(t, ox.BlankNode):
        return ("bnode",)
    return lit(t.value, t.datatype.value if t.datatype else "", t.language or "")


def show(t):
    """A canonical term back in N-Triples form, for messages."""
    if t is None:
        return "UNDEF"
    if t[0] == "iri":
        return "<%s>" % t[1]
    if t[0] == "bnode":
        return "_:b"
    s = '"%s"' % t[1].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return s + ("@" + t[3] if t[3] else "^^<%s>" % t[2] if t[2] else "")


class Record:
    """One record: kind "data" (text: TriG), "query" (text, expect,
    ordered, oxigraph, xfail) or "error" (text, http status, SQLSTATE)."""

    def __init__(self, kind, line, text, **kw):
        self.kind = kind
        self.line = line
        self.text = text
        self.ordered = False
        self.oxigraph = True
        self.xfail = False
        self.__dict__.update(kw)

    def form(self):
        """SELECT, ASK, CONSTRUCT or DESCRIBE: the first of those words
        after the prologue."""
        body = re.sub(r"<[^>]*>", "<>", self.text)
        m = re.search(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE)\b", body, re.I)
        return m.group(1).upper() if m else "SELECT"


def parse_expect(form, lines, where):
    """The expected answer under ----: for SELECT a header of variables
    (?a ?b, or an empty line for none) and a row per line; for ASK true
    or false; for CONSTRUCT and DESCRIBE a triple per line."""
    if form == "ASK":
        if len(lines) != 1 or lines[0] not in ("true", "false"):
            raise FormatError("%s: an ASK answer is true or false" % where)
        return lines[0] == "true"
    if form in ("CONSTRUCT", "DESCRIBE"):
        triples = [tuple(parse_terms(x)) for x in lines]
        if any(len(t) != 3 for t in triples):
            raise FormatError("%s: a triple per line" % where)
        return triples
    if not lines:
        raise FormatError("%s: a SELECT answer starts with its variables" % where)
    names = lines[0].split()
    if any(not n.startswith("?") for n in names):
        raise FormatError("%s: the header names variables (?x ?y)" % where)
    rows = []
    for x in lines[1:]:
        r = parse_terms(x)
        if len(r) != len(names):
            raise FormatError("%s: %d terms in a row of %d variables: %r" % (where, len(r), len(names), x))
        rows.append(tuple(r))
    return [n[1:] for n in names], rows


def read_file(path):
    """The records of a .test file, in order."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    records = []
    prologue = ""
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
            continue
        start = i + 1
        head = line.split()
        where = "%s:%d" % (path, start)
        body = []
        i += 1
        while i < len(lines) and lines[i].strip():
            body.append(lines[i])
            i += 1
        if head[0] == "prologue":
            prologue = "\n".join(body) + "\n"
            continue
        if head[0] == "data":
            records.append(Record("data", start, "\n".join(body) + "\n"))
        elif head[0] == "error":
            if len(head) != 3:
                raise FormatError("%s: error HTTP-STATUS SQLSTATE" % where)
            records.append(Record("error", start, prologue + "\n".join(body), http=int(head[1]),
                                  sqlstate=head[2]))
        elif head[0] == "query":
            flags = set(head[1:])
            unknown = flags - {"ordered", "no-oxigraph", "xfail"}
            if unknown:
                raise FormatError("%s: unknown flag %s" % (where, " ".join(sorted(unknown))))
            if "----" not in [b.strip() for b in body]:
                raise FormatError("%s: a query needs ---- and its answer" % where)
            k = [b.strip() for b in body].index("----")
            r = Record("query", start, prologue + "\n".join(body[:k]), ordered="ordered" in flags,
                       oxigraph="no-oxigraph" not in flags, xfail="xfail" in flags)
            r.expect = parse_expect(r.form(), [b.strip() for b in body[k + 1:]], where)
            records.append(r)
        else:
            raise FormatError("%s: a record is prologue, data, query or error, not %r" % (where, head[0]))
    return records
