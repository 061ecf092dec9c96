"""The SQL types the differential fuzzer draws from: per type its column
spelling, the small value pool rows are filled from, the literals the query
generator writes, and the family that decides which expressions mix.

Design notes: pools are small on purpose, so that random rows collide —
joins find partners, GROUP BY makes groups, DISTINCT and INTERSECT have
duplicates to remove. Values stay far from every overflow and rounding
edge that would make the answer depend on evaluation order (a sum that
overflows in one join order and not another); the edges of single values
are regress_exprfuzz.py's job. Doubles are exact binary fractions or
integers so that sums and comparisons of them do not depend on the order
an engine adds them in (compare.py still compares doubles with a
tolerance, for avg and division).
"""
import datetime
from decimal import Decimal

# type tag -> family: expressions of one family mix (comparisons, CASE
# branches, UNION columns, COALESCE), as PostgreSQL resolves them
FAMILY = {
    "int": "num", "bigint": "num", "numeric": "num", "double": "num",
    "text": "text", "varchar": "text",
    "bool": "bool", "date": "date",
}

# the column type each tag is declared as
DECLARE = {
    "int": "integer", "bigint": "bigint", "numeric": "numeric(10,2)",
    "double": "double precision", "text": "text", "varchar": "varchar(8)",
    "bool": "boolean", "date": "date",
}

# the cast target a typed NULL or a cast is written with
CAST_NAME = {
    "int": "integer", "bigint": "bigint", "numeric": "numeric",
    "double": "double precision", "text": "text", "varchar": "varchar(8)",
    "bool": "boolean", "date": "date",
}

POOL = {
    "int": [0, 1, 2, 3, 3, 5, -1, 7, 10, -4],
    "bigint": [0, 1, 2, 10000000000, -10000000000, 3, 2, 123456789012, -7],
    # mixed scales: an unconstrained numeric column keeps each value's
    # scale (sums, averages and products show the display-scale rules);
    # numeric(10,2) rounds them on the way in
    "numeric": [Decimal("0.00"), Decimal("1.50"), Decimal("2.00"), Decimal("-2.25"),
                Decimal("3.00"), Decimal("0.01"), Decimal("1.50"), Decimal("100.75"),
                Decimal("0.5"), Decimal("-3"), Decimal("12.3456"), Decimal("0.001"),
                Decimal("1.000")],
    "double": [0.0, 1.5, 2.0, -2.25, 3.0, 0.5, 1e10, -0.125, 2.0, 2.0 ** -20],
    # multi-byte characters without case (known.DIALECT "case_mapping")
    "text": ["a", "ab", "abc", "B", "", " a", "b%c", "x_y", "ab", "€1", "日本"],
    "varchar": ["a", "ab", "bc", "B", "", "abc ", "zz", "a"],
    "bool": [True, False, True],
    "date": [datetime.date(2020, 1, 1), datetime.date(2020, 1, 2), datetime.date(2019, 12, 31),
             datetime.date(2024, 2, 29), datetime.date(1999, 6, 15), datetime.date(2020, 1, 1)],
}

# the ordered types (min/max, ORDER BY, <, BETWEEN); boolean orders too,
# but PostgreSQL has no min/max(boolean)
ORDERED = ("int", "bigint", "numeric", "double", "text", "varchar", "date", "bool")
NUMERIC_TAGS = ("int", "bigint", "numeric", "double")
TEXT_TAGS = ("text", "varchar")


def literal(tag, v):
    """A literal of type `tag` holding v (None: a typed NULL)."""
    if v is None:
        return "CAST(NULL AS %s)" % CAST_NAME[tag]
    if tag in ("int", "bigint"):
        s = str(v)
        if tag == "bigint" and abs(v) < 2 ** 31:
            return "CAST(%s AS bigint)" % s
        return "(%s)" % s if v < 0 else s
    if tag == "numeric":
        s = str(v)
        return "(%s)" % s if v < 0 else s
    if tag == "double":
        return "CAST(%r AS double precision)" % float(v)
    if tag in ("text", "varchar"):
        s = "'%s'" % v.replace("'", "''")
        return s if tag == "text" else "CAST(%s AS varchar(8))" % s
    if tag == "bool":
        return "true" if v else "false"
    if tag == "date":
        return "DATE '%s'" % v.isoformat()
    raise ValueError(tag)


def insert_literal(tag, v):
    """A value in an INSERT's VALUES list: the column's type converts it,
    so no casts (a dump a person reads)."""
    if v is None:
        return "NULL"
    if tag == "double":
        return repr(float(v))
    if tag in ("text", "varchar"):
        return "'%s'" % v.replace("'", "''")
    if tag == "date":
        return "'%s'" % v.isoformat()
    if tag == "bool":
        return "true" if v else "false"
    return str(v)


def result_tag(a, b):
    """The type of a + b (and of CASE/COALESCE/UNION over a and b) within
    the numeric family, as PostgreSQL resolves it."""
    order = ["int", "bigint", "numeric", "double"]
    if a in order and b in order:
        return order[max(order.index(a), order.index(b))]
    if FAMILY.get(a) == "text" and FAMILY.get(b) == "text":
        return "varchar" if a == b == "varchar" else "text"
    return a
