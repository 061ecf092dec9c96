"""Outcomes of one query on one server, and whether two of them agree.

An outcome is either an error (SQLSTATE and message), a lost connection
or a timeout, or a result: column type OIDs and rows of values as the
server's text output (engines.py loads every column as text, so '1.50'
and '1.5' differ as a client sees them). Two results agree when their column
types agree and their rows are equal as multisets — or as lists when the
query's ORDER BY names every output column; under a partial ORDER BY the
sequence of the ordering keys must agree as well. Doubles compare with a
relative tolerance (an engine may add in another order); NUMERIC compares
by value: PostgreSQL itself shows either of two equal values of different
display scales (0 and 0.00 out of COALESCE(int, 0.00)) where DISTINCT,
GROUP BY, min/max or a tie under ORDER BY ... LIMIT picks one, so the
scale is not determined by the data (tests/sql checks display scales);
every other type compares by its exact text. Two errors agree whatever their SQLSTATEs; an error
against a result is a difference.

Design notes: rows are sorted on a key in which a double is rounded to 9
significant digits, then compared pairwise with the tolerance; rows whose
rounding falls on different sides of a digit are matched again one by one
before a difference is declared.
"""
import math
from decimal import Decimal, InvalidOperation

REL_TOL = 1e-9
ABS_TOL = 1e-12

# type OIDs that are one type to a client: the text family (a varchar
# column through an expression comes back as text or varchar depending on
# how the engine folds it; PostgreSQL itself is not consistent here)
OID_CLASS = {25: "text", 1043: "text", 1042: "text", 19: "text"}


class Outcome:
    def __init__(self, kind, rows=None, types=None, sqlstate=None, message=None):
        self.kind = kind          # "rows", "error", "lost" (connection), "timeout"
        self.rows = rows
        self.types = types
        self.sqlstate = sqlstate
        self.message = message

    def signature(self):
        """What a shrink step must keep: the kind of outcome."""
        if self.kind == "error":
            return "error"
        return self.kind

    def brief(self, limit=12):
        if self.kind == "rows":
            head = ", ".join(fmt_row(r) for r in self.rows[:limit])
            more = " … (%d rows)" % len(self.rows) if len(self.rows) > limit else ""
            return "%d rows, types %s: %s%s" % (len(self.rows), self.types, head, more)
        if self.kind == "error":
            return "ERROR %s: %s" % (self.sqlstate, (self.message or "").strip())
        return self.kind.upper() + (": " + self.message if self.message else "")


def fmt_row(r):
    return "(" + ", ".join("NULL" if v is None else "'%s'" % v for v in r) + ")"


FLOAT_OIDS = (700, 701)
NUMERIC_OIDS = (1700,)


def _dec(v):
    try:
        return Decimal(v)
    except InvalidOperation:
        return None


def norm_key(v, oid):
    """A sort key for a value as text: a double by its value rounded to 9
    digits, everything else by its text (the same on both sides)."""
    if v is None:
        return (0, 0.0, "")
    if oid in FLOAT_OIDS:
        try:
            f = float(v)
        except ValueError:
            return (1, 0.0, v)
        if math.isnan(f):
            return (2, 0.0, "")
        return (1, float("%.9g" % f), "")
    if oid in NUMERIC_OIDS:
        d = _dec(v)
        if d is not None:
            return (1, 0.0, str(d.normalize()))
    return (1, 0.0, v)


def same_value(a, b, oid):
    if a is None or b is None:
        return a is None and b is None
    if oid in FLOAT_OIDS:
        try:
            fa, fb = float(a), float(b)
        except ValueError:
            return a == b
        if math.isnan(fa) or math.isnan(fb):
            return math.isnan(fa) and math.isnan(fb)
        return math.isclose(fa, fb, rel_tol=REL_TOL, abs_tol=ABS_TOL)
    if oid in NUMERIC_OIDS:
        da, db = _dec(a), _dec(b)
        if da is not None and db is not None:
            return da == db
    return a == b


def same_row(a, b, oids):
    return len(a) == len(b) and all(same_value(x, y, o) for x, y, o in zip(a, b, oids))


def same_multiset(ra, rb, oids):
    if len(ra) != len(rb):
        return False

    def key(r):
        return tuple(norm_key(v, o) for v, o in zip(r, oids))
    sa = sorted(ra, key=key)
    sb = sorted(rb, key=key)
    if all(same_row(x, y, oids) for x, y in zip(sa, sb)):
        return True
    left = list(sb)
    for x in sa:
        for i, y in enumerate(left):
            if same_row(x, y, oids):
                del left[i]
                break
        else:
            return False
    return True


def type_class(oid):
    return OID_CLASS.get(oid, oid)


def agree(cz, pg, ordering):
    """None when the outcomes agree, else a sentence saying how they do not.
    ordering: (key positions, total) of the query's top ORDER BY."""
    if cz.kind == "error" and pg.kind == "error":
        return None
    if cz.kind != "rows" or pg.kind != "rows":
        return "outcomes differ"
    if len(cz.types) != len(pg.types):
        return "column counts differ"
    if [type_class(t) for t in cz.types] != [type_class(t) for t in pg.types]:
        return "column types differ"
    oids = pg.types
    if not same_multiset(cz.rows, pg.rows, oids):
        return "rows differ"
    keys, total = ordering
    if total:
        if not all(same_row(x, y, oids) for x, y in zip(cz.rows, pg.rows)):
            return "row order differs"
    elif keys:
        ka = [tuple(r[k] for k in keys) for r in cz.rows]
        kb = [tuple(r[k] for k in keys) for r in pg.rows]
        ko = [oids[k] for k in keys]
        if not all(same_row(x, y, ko) for x, y in zip(ka, kb)):
            return "ORDER BY key sequence differs"
    return None
