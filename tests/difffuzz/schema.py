"""Random small tables for the differential fuzzer: a few tables of a few
columns each, 0 to a dozen rows drawn from the type pools (so with
duplicates and NULLs), and the SQL that creates and fills them the same
way on both servers.

Design notes: the first table of a schema sometimes gets a primary key
and any table secondary indexes (one or two columns), so that the key
paths (point lookups, index ranges, index joins) run too; keys and
indexes never change an answer, only the plan. Table names carry the round number so
that a reproduction printed from one round never collides with another's.
"""
from . import sqltypes

COLUMN_TAGS = ("int", "int", "bigint", "numeric", "double", "text", "varchar", "bool", "date")


class Column:
    def __init__(self, name, tag, nullable=True, decl=None):
        self.name = name
        self.tag = tag
        self.nullable = nullable
        self.decl = decl or sqltypes.DECLARE[tag]   # the declared SQL type


class Table:
    def __init__(self, name, columns, rows, pk=None, indexes=()):
        self.name = name
        self.columns = columns
        self.rows = rows          # list of tuples of Python values (None = NULL)
        self.pk = pk              # index of the primary-key column, or None
        self.indexes = list(indexes)  # secondary indexes: tuples of column positions

    def create_sql(self):
        cols = []
        for i, c in enumerate(self.columns):
            s = "%s %s" % (c.name, c.decl)
            if self.pk == i:
                s += " PRIMARY KEY"
            elif not c.nullable:
                s += " NOT NULL"
            cols.append(s)
        return "CREATE TABLE %s (%s)" % (self.name, ", ".join(cols))

    def insert_sql(self, rows=None):
        rows = self.rows if rows is None else rows
        if not rows:
            return None
        vals = []
        for r in rows:
            vals.append("(%s)" % ", ".join(sqltypes.insert_literal(c.tag, v)
                                           for c, v in zip(self.columns, r)))
        return "INSERT INTO %s VALUES %s" % (self.name, ", ".join(vals))

    def with_rows(self, rows):
        return Table(self.name, self.columns, rows, self.pk, self.indexes)

    def script(self):
        """The statements that recreate this table with its rows."""
        out = ["DROP TABLE IF EXISTS %s" % self.name, self.create_sql()]
        for i, cols in enumerate(self.indexes):
            out.append("CREATE INDEX %s_i%d ON %s (%s)" % (
                self.name, i, self.name, ", ".join(self.columns[c].name for c in cols)))
        ins = self.insert_sql()
        if ins:
            out.append(ins)
        return out


def random_table(rng, name, want_pk=False):
    ncols = rng.randint(2, 5)
    cols = []
    # an integer first column most of the time: join keys to find partners
    for i in range(ncols):
        tag = "int" if (i == 0 and rng.random() < 0.7) else rng.choice(COLUMN_TAGS)
        decl = "numeric" if tag == "numeric" and rng.random() < 0.5 else None
        cols.append(Column("c%d" % i, tag, nullable=rng.random() < 0.85, decl=decl))
    nrows = rng.choice([0, 1, 2, 3, 4, 5, 6, 6, 7, 8, 8, 10, 10, 12])
    pk = 0 if (want_pk and cols[0].tag == "int") else None
    null_p = rng.choice([0.0, 0.1, 0.2, 0.35])
    rows = []
    used_pk = set()
    for _ in range(nrows):
        r = []
        for i, c in enumerate(cols):
            if pk == i:
                v = rng.randint(-3, 30)
                while v in used_pk:
                    v = rng.randint(-3, 30)
                used_pk.add(v)
            elif c.nullable and rng.random() < null_p:
                v = None
            else:
                v = rng.choice(sqltypes.POOL[c.tag])
            r.append(v)
        rows.append(tuple(r))
    # duplicated rows now and then
    if rows and pk is None and rng.random() < 0.3:
        rows.append(rng.choice(rows))
    for i, c in enumerate(cols):
        if i == pk:
            c.nullable = False
    # secondary indexes, so that WHERE and join keys also go through index
    # ranges and lookups (bounds of mixed types, NULLs, IN lists)
    indexes = []
    for _ in range(rng.choice([0, 0, 1, 1, 2])):
        first = rng.randrange(ncols)
        key = (first,) if rng.random() < 0.7 or ncols < 2 else \
            (first, rng.choice([i for i in range(ncols) if i != first]))
        if key not in indexes and key != (pk,):
            indexes.append(key)
    return Table(name, cols, rows, pk, indexes)


def random_schema(rng, round_no):
    n = rng.randint(2, 4)
    return [random_table(rng, "df%d_t%d" % (round_no, i), want_pk=(rng.random() < 0.3))
            for i in range(n)]
