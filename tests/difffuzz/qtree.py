"""The query tree the differential fuzzer generates, prints and shrinks.

Design notes: a node prints itself (sql()), lists the nodes below it
(kids()), copies itself with one of them replaced (replace()), and offers
simpler versions of itself (variants()); the shrinker walks the tree with
nothing else, so a new kind of node only has to say how it gets simpler.
Nodes are never changed after they are built — a variant is a copy — so a
shrink step that fails leaves the tree it started from intact.

A variant may be invalid SQL (a dropped table some expression still
names): both servers then fail, the difference is gone and the shrinker
drops the variant. A variant must never make the answer depend on
anything but the data: so ORDER BY keys go only together with LIMIT, and
the keys that make row_number() total are fixed (Window).
"""
import copy

from . import sqltypes


class Node:
    FIELDS = ()       # attributes holding a Node, a list of Nodes, or None

    def kids(self):
        for f in self.FIELDS:
            v = getattr(self, f)
            if isinstance(v, Node):
                yield f, None, v
            elif isinstance(v, list):
                for i, x in enumerate(v):
                    if isinstance(x, Node):
                        yield f, i, x

    def replace(self, field, idx, new):
        c = copy.copy(self)
        if idx is None:
            setattr(c, field, new)
        else:
            lst = list(getattr(c, field))
            lst[idx] = new
            setattr(c, field, lst)
        return c

    def variants(self):
        return []

    def sql(self):
        raise NotImplementedError

    def walk(self):
        yield self
        for _, _, k in self.kids():
            yield from k.walk()


# ---- expressions ------------------------------------------------------------

class Expr(Node):
    tag = None        # the sqltypes tag of the value
    is_agg = False    # an aggregate call (the root of one)
    is_window = False


class Col(Expr):
    def __init__(self, qual, name, tag):
        self.qual, self.name, self.tag = qual, name, tag

    def sql(self):
        return "%s.%s" % (self.qual, self.name)


class Lit(Expr):
    def __init__(self, tag, value):
        self.tag, self.value = tag, value

    def sql(self):
        return sqltypes.literal(self.tag, self.value)


class Raw(Expr):
    """Fixed text with no parts to shrink (an IN list of literals, a LIKE
    pattern)."""
    def __init__(self, text, tag):
        self.text, self.tag = text, tag

    def sql(self):
        return self.text


class Tmpl(Expr):
    """An expression written as a format over its arguments:
    "({0} + {1})", "coalesce({0}, {1})", "EXISTS ({0})". It shrinks to any
    argument of its own family (a conjunct of an AND, a branch of a CASE)
    unless `keep` (an aggregate must not turn into its argument)."""
    FIELDS = ("args",)

    def __init__(self, fmt, args, tag, keep=False, is_agg=False):
        self.fmt, self.args, self.tag = fmt, list(args), tag
        self.keep = keep
        self.is_agg = is_agg

    def sql(self):
        return self.fmt.format(*[a.sql() for a in self.args])

    def variants(self):
        if self.keep:
            return []
        fam = sqltypes.FAMILY.get(self.tag)
        out = [a for a in self.args if isinstance(a, Expr) and a.tag is not None
               and sqltypes.FAMILY.get(a.tag) == fam and not a.is_agg]
        if fam == "bool" and not isinstance(self, Lit):
            out.append(Lit("bool", True))
        return out


class Window(Expr):
    """func(args) OVER (PARTITION BY … ORDER BY …). `fixed` are the keys
    appended so that row_number() numbers a total order: never shrunk."""
    FIELDS = ("args", "partition", "order")
    is_window = True

    def __init__(self, func, args, partition, order, fixed, tag, frame=""):
        self.func, self.args, self.partition, self.order = func, list(args), list(partition), list(order)
        self.fixed = list(fixed)
        self.tag = tag
        self.frame = frame  # "ROWS BETWEEN … AND … [EXCLUDE …]" or ""

    def sql(self):
        parts = []
        if self.partition:
            parts.append("PARTITION BY " + ", ".join(p.sql() for p in self.partition))
        keys = [k.sql() for k in self.order] + [k.sql() for k in self.fixed]
        if keys:
            parts.append("ORDER BY " + ", ".join(keys))
        if self.frame:
            parts.append(self.frame)
        return "%s(%s) OVER (%s)" % (self.func, ", ".join(a.sql() for a in self.args),
                                   " ".join(parts))

    def variants(self):
        out = []
        for i in range(len(self.partition)):
            w = copy.copy(self)
            w.partition = self.partition[:i] + self.partition[i + 1:]
            out.append(w)
        for i in range(len(self.order)):
            w = copy.copy(self)
            w.order = self.order[:i] + self.order[i + 1:]
            out.append(w)
        return out


class SortKey(Node):
    """An expression with a direction, inside a window's ORDER BY."""
    FIELDS = ("expr",)

    def __init__(self, expr, desc=False, nulls=None):
        self.expr, self.desc, self.nulls = expr, desc, nulls

    def sql(self):
        s = self.expr.sql()
        if self.desc:
            s += " DESC"
        if self.nulls:
            s += " NULLS " + self.nulls
        return s


# ---- queries ------------------------------------------------------------------

class Item(Node):
    FIELDS = ("expr",)

    def __init__(self, expr, alias):
        self.expr, self.alias = expr, alias

    def sql(self):
        return "%s AS %s" % (self.expr.sql(), self.alias)


class OrderKey:
    """An ORDER BY entry: an output position (0-based here), a direction."""
    def __init__(self, pos, desc=False, nulls=None):
        self.pos, self.desc, self.nulls = pos, desc, nulls

    def sql(self):
        s = str(self.pos + 1)
        if self.desc:
            s += " DESC"
        if self.nulls:
            s += " NULLS " + self.nulls
        return s


class Query(Node):
    """What Select and SetOp share: the ORDER BY (output positions), its
    totality, LIMIT and OFFSET."""
    order = ()
    total = False     # the ORDER BY names every output column
    limit = None
    offset = None

    def tail_sql(self):
        s = ""
        if self.order:
            s += " ORDER BY " + ", ".join(k.sql() for k in self.order)
        if self.limit is not None:
            s += " LIMIT %d" % self.limit
        if self.offset is not None:
            s += " OFFSET %d" % self.offset
        return s

    def ncols(self):
        raise NotImplementedError

    def tail_variants(self):
        out = []
        if self.limit is not None:
            c = copy.copy(self)
            c.limit = None
            out.append(c)
        if self.offset is not None:
            c = copy.copy(self)
            c.offset = None
            out.append(c)
        if self.order and self.limit is None and self.offset is None:
            c = copy.copy(self)
            c.order, c.total = [], False
            out.append(c)
        return out

    def ordering(self):
        """(key positions, directions, total) of the top ORDER BY."""
        return [k.pos for k in self.order], self.total


class Cte(Node):
    FIELDS = ("query",)

    def __init__(self, name, query):
        self.name, self.query = name, query

    def sql(self):
        return "%s AS (%s)" % (self.name, self.query.sql())


class Select(Query):
    FIELDS = ("ctes", "items", "from_", "where", "group", "having")

    def __init__(self):
        self.ctes = []
        self.distinct = False
        self.items = []
        self.from_ = None
        self.where = None
        self.group = []
        self.grouped = False  # GROUP BY or aggregates without it
        self.having = None
        self.order = []
        self.total = False
        self.limit = None
        self.offset = None

    def ncols(self):
        return len(self.items)

    def tags(self):
        return [it.expr.tag for it in self.items]

    def sql(self):
        s = ""
        if self.ctes:
            s += "WITH " + ", ".join(c.sql() for c in self.ctes) + " "
        s += "SELECT "
        if self.distinct:
            s += "DISTINCT "
        s += ", ".join(it.sql() for it in self.items)
        if self.from_ is not None:
            s += " FROM " + self.from_.sql()
        if self.where is not None:
            s += " WHERE " + self.where.sql()
        if self.group:
            s += " GROUP BY " + ", ".join(g.sql() for g in self.group)
        if self.having is not None:
            s += " HAVING " + self.having.sql()
        return s + self.tail_sql()

    def variants(self):
        out = []

        def v(**kw):
            c = copy.copy(self)
            for k, val in kw.items():
                setattr(c, k, val)
            out.append(c)
        for i in range(len(self.ctes)):
            v(ctes=self.ctes[:i] + self.ctes[i + 1:])
        if self.distinct:
            v(distinct=False)
        if self.where is not None:
            v(where=None)
        if self.having is not None:
            v(having=None)
        for i in range(len(self.group)):
            v(group=self.group[:i] + self.group[i + 1:])
        if len(self.items) > 1:
            for i in range(len(self.items)):
                order = [OrderKey(k.pos - (k.pos > i), k.desc, k.nulls)
                         for k in self.order if k.pos != i]
                if not order and (self.limit is not None or self.offset is not None):
                    continue
                v(items=self.items[:i] + self.items[i + 1:], order=order)
        out.extend(self.tail_variants())
        return out


class SetOp(Query):
    FIELDS = ("left", "right")

    def __init__(self, op, left, right):
        self.op, self.left, self.right = op, left, right
        self.order = []
        self.total = False
        self.limit = None
        self.offset = None

    def ncols(self):
        return self.left.ncols()

    def tags(self):
        return [sqltypes.result_tag(a, b) for a, b in zip(self.left.tags(), self.right.tags())]

    def sql(self):
        left = self.left.sql()
        if isinstance(self.left, SetOp):
            left = "(" + left + ")"
        right = self.right.sql()
        if isinstance(self.right, SetOp):
            right = "(" + right + ")"
        return "%s %s %s%s" % (left, self.op, right, self.tail_sql())

    def variants(self):
        out = []
        for side in (self.left, self.right):
            c = copy.copy(side)
            c.order, c.total, c.limit, c.offset = self.order, self.total, self.limit, self.offset
            out.append(c)
        if self.op.endswith(" ALL"):
            c = copy.copy(self)
            c.op = self.op[:-4]
            out.append(c)
        out.extend(self.tail_variants())
        return out


# ---- FROM ------------------------------------------------------------------

class TableRef(Node):
    def __init__(self, name, alias):
        self.name, self.alias = name, alias

    def sql(self):
        return "%s AS %s" % (self.name, self.alias)


class RawFrom(Node):
    """A FROM item written out whole (a VALUES list)."""
    def __init__(self, text):
        self.text = text

    def sql(self):
        return self.text


class Derived(Node):
    FIELDS = ("query",)

    def __init__(self, query, alias):
        self.query, self.alias = query, alias

    def sql(self):
        return "(%s) AS %s" % (self.query.sql(), self.alias)


class Join(Node):
    FIELDS = ("left", "right", "on")

    def __init__(self, kind, left, right, on):
        self.kind, self.left, self.right, self.on = kind, left, right, on

    def sql(self):
        right = self.right.sql()
        if isinstance(self.right, Join):
            right = "(" + right + ")"
        if self.kind == ",":
            return "%s, %s" % (self.left.sql(), right)
        if self.kind == "CROSS":
            return "%s CROSS JOIN %s" % (self.left.sql(), right)
        return "%s %s JOIN %s ON %s" % (self.left.sql(), self.kind, right, self.on.sql())

    def variants(self):
        out = [self.left, self.right]
        if self.kind not in ("INNER", ",", "CROSS"):
            c = copy.copy(self)
            c.kind = "INNER"
            out.append(c)
        return out
