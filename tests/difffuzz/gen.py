"""The random query grammar of the differential fuzzer: from a schema and
a seeded random generator, one query tree (qtree) whose answer in
PostgreSQL depends on nothing but the data.

Design notes — what keeps answers deterministic:
- LIMIT/OFFSET only under an ORDER BY that names every output column
  (Query.total); a partial ORDER BY is compared as a multiset plus the
  sequence of its keys (compare.py).
- row_number() orders by its keys and then by every column in scope, so
  that only identical rows tie (and identical rows give identical
  output rows whichever number each gets).
- A scalar subquery is an aggregate without GROUP BY: exactly one row.
- No division or modulo by anything but a non-zero constant, no casts that
  can fail, no values near an overflow: an error that depends on which
  row an engine evaluates first would be a difference of evaluation order,
  not of answers.
- Aggregates in a subquery take only the subquery's own columns (an
  aggregate over outer columns only belongs to the outer query, a
  PostgreSQL rule this grammar does not try to follow).
Constructs Cadenza does not have yet are behind Features flags, each
listed with its reason in known.py.
"""
from . import qtree as Q
from . import sqltypes
from .sqltypes import FAMILY, POOL

LIKE_PATTERNS = ["a%", "%b%", "_", "%", "a_", "", "%c", "A%", "b\\%c", "%_y", "__%"]
SETOPS = ["UNION", "UNION ALL", "INTERSECT", "INTERSECT ALL", "EXCEPT", "EXCEPT ALL"]


class Features:
    """What the grammar may use. The defaults are what Cadenza answers
    today; known.py says why each other one is off."""
    def __init__(self, **kw):
        self.full_join = True        # FULL [OUTER] JOIN (ON one column equality)
        self.window_aggs = True      # sum/count/avg/min/max(...) OVER (...)
        self.window_frames = True    # ROWS/RANGE/GROUPS frames, EXCLUDE, lag/lead/ntile/…
        self.any_all = False         # x < ANY (subquery), x = ALL (subquery), ...
        self.join_subqueries = False  # subqueries inside JOIN ... ON
        self.grouped_windows = True  # window functions in a grouped SELECT
        self.agg_order = False       # string_agg(x, ',' ORDER BY x)
        self.agg_filter = True       # agg(...) FILTER (WHERE ...)
        self.right_join = True
        self.setops = True
        self.windows = True
        self.ctes = True
        self.subqueries = True
        for k, v in kw.items():
            if not hasattr(self, k):
                raise ValueError("unknown feature %s" % k)
            setattr(self, k, v)


class Scope:
    """What an expression may name: `cols` as they are, `outer` from the
    queries around (correlation), and for aggregate arguments `agg_cols`
    (None: no aggregates here). `atoms` are grouping expressions a grouped
    select list may use whole."""
    def __init__(self, cols, outer=(), agg_cols=None, atoms=(), windows=False):
        self.cols = list(cols)
        self.outer = list(outer)
        self.agg_cols = None if agg_cols is None else list(agg_cols)
        self.atoms = list(atoms)
        self.windows = windows

    def of_family(self, fam, outer_p=0.0, rng=None):
        own = [c for c in self.cols + self.atoms if FAMILY[c.tag] == fam]
        out = [c for c in self.outer if FAMILY[c.tag] == fam]
        if out and rng and (not own or rng.random() < outer_p):
            return out
        return own


class Gen:
    def __init__(self, rng, tables, features=None):
        self.rng = rng
        self.tables = tables
        self.f = features or Features()
        self.nalias = 0
        # a size budget per query: past it every expression is a leaf and
        # no more subqueries start (a mix of small and larger queries)
        self.nodes = 0
        self.max_nodes = rng.choice([6, 10, 16, 24, 36])
        self.ctes = []            # (name, [(col, tag)]) visible to the query being built
        self.row_numbered = False  # the SELECT being built has a row_number()

    def alias(self, p="a"):
        self.nalias += 1
        return "%s%d" % (p, self.nalias)

    def chance(self, p):
        return self.rng.random() < p

    def grow(self, budget):
        """Counts a node; the budget left for its arguments."""
        self.nodes += 1
        return budget if self.nodes < self.max_nodes else 0

    def sub_p(self, depth):
        """How likely an expression at this nesting depth is a subquery."""
        if not self.f.subqueries or depth >= 2 or self.nodes >= self.max_nodes:
            return 0.0
        return (0.25, 0.08)[depth]

    # ---- top level ---------------------------------------------------------

    def query(self):
        """A top-level query: SELECT or a set operation, perhaps WITH CTEs,
        perhaps ordered (totally, with LIMIT/OFFSET, or partially)."""
        ctes = []
        if self.f.ctes and self.chance(0.2):
            for _ in range(self.rng.randint(1, 2)):
                name = self.alias("w")
                q = self.select(depth=1, scope_outer=[], ncols=self.rng.randint(1, 3))
                ctes.append(Q.Cte(name, q))
                self.ctes.append((name, [(it.alias, it.expr.tag) for it in q.items]))
        if self.f.setops and self.chance(0.18):
            q = self.setop(depth=1)
        else:
            q = self.select(depth=0, scope_outer=[], top=True)
        self.order(q)
        if ctes:
            if isinstance(q, Q.SetOp):
                # WITH belongs to the first SELECT of a set operation only in
                # the grammar's eyes; a wrapper keeps it at the top
                w = Q.Select()
                w.items = [Q.Item(Q.Col("s", "x%d" % i, t), "x%d" % i) for i, t in enumerate(q.tags())]
                inner = Q.Derived(q, "s")
                w.from_ = inner
                w.order, w.total, w.limit, w.offset = q.order, q.total, q.limit, q.offset
                q.order, q.total, q.limit, q.offset = [], False, None, None
                q = w
            q.ctes = ctes
        return q

    def order(self, q, limited=False):
        """An ORDER BY for q: none, total (perhaps with LIMIT/OFFSET) or
        partial; `limited`: total with a LIMIT (a derived table's top-k)."""
        n = q.ncols()
        r = self.rng.random() * (0.75 if limited else 1.0)
        if r < 0.35 and not limited:
            return
        pos = list(range(n))
        self.rng.shuffle(pos)
        if r < 0.75:
            q.total = True
        else:
            pos = pos[:self.rng.randint(1, n)]
            q.total = len(pos) == n
        q.order = [Q.OrderKey(p, self.chance(0.3), self.rng.choice([None, None, "FIRST", "LAST"]))
                   for p in pos]
        if q.total and (limited or self.chance(0.6)):
            q.limit = self.rng.choice([0, 1, 2, 3, 5, 10])
            if self.chance(0.4):
                q.offset = self.rng.choice([0, 1, 2, 4])
        elif q.total and self.chance(0.1):
            q.offset = self.rng.choice([1, 3])

    def setop(self, depth):
        n = self.rng.randint(1, 3)
        fams = [self.rng.choice(["num", "num", "text", "date", "bool"]) for _ in range(n)]
        left = self.select(depth=depth, scope_outer=[], fams=fams)
        right = self.select(depth=depth, scope_outer=[], fams=fams)
        q = Q.SetOp(self.rng.choice(SETOPS), left, right)
        if self.chance(0.25):
            third = self.select(depth=depth, scope_outer=[], fams=fams)
            q = Q.SetOp(self.rng.choice(SETOPS), q, third)
        return q

    # ---- SELECT ---------------------------------------------------------------

    def select(self, depth, scope_outer, ncols=None, fams=None, top=False,
               grouped=None, scalar=False):
        """One SELECT. `fams`: the families of its columns (set operation
        sides, IN subqueries); `top`: window functions allowed; `scalar`:
        one aggregate and no GROUP BY (exactly one row)."""
        s = Q.Select()
        from_, cols = self.from_clause(depth, scope_outer)
        s.from_ = from_
        if fams is None:
            n = ncols or self.rng.randint(1, 4)
            fams = [None] * n
        if grouped is None:
            grouped = self.chance(0.3)
        scope = Scope(cols, outer=scope_outer)
        if self.chance(0.5):
            s.where = self.pred(scope, depth, 2)
        if grouped:
            keys = []
            if cols and not scalar and self.chance(0.8):
                for _ in range(self.rng.randint(1, 2)):
                    c = self.rng.choice(cols)
                    if self.chance(0.15) and FAMILY[c.tag] == "num":
                        k = Q.Tmpl("({0} + {1})", [c, Q.Lit("int", 1)], c.tag)
                    else:
                        k = c
                    if all(k.sql() != o.sql() for o in keys):
                        keys.append(k)
            s.group = keys
            s.grouped = True
            gcols = [k for k in keys if isinstance(k, Q.Col)]
            atoms = [k for k in keys if not isinstance(k, Q.Col)]
            gscope = Scope(gcols, outer=scope_outer, agg_cols=cols, atoms=atoms)
            s.items = [Q.Item(self.value(gscope, fam, depth, 2, want_agg=(not keys or self.chance(0.6))),
                              "x%d" % i) for i, fam in enumerate(fams)]
            if top and self.f.grouped_windows and self.chance(0.3):
                s.items.append(Q.Item(self.grouped_window(gscope, keys, depth), "x%d" % len(s.items)))
            if not scalar and self.chance(0.35):
                s.having = self.pred(gscope, depth, 2, want_agg=True)
            if scalar:
                s.items = [Q.Item(self.aggregate(gscope, fams[0], depth), "x0")]
        else:
            win = (top and self.f.windows and self.chance(0.25))
            iscope = Scope(cols, outer=scope_outer)
            items = []
            self.row_numbered = False
            for i, fam in enumerate(fams):
                if win and fam in (None, "num") and self.chance(0.5):
                    e = self.window(cols)
                else:
                    e = self.value(iscope, fam, depth, 2)
                items.append(Q.Item(e, "x%d" % i))
            s.items = items
            if self.chance(0.15):
                s.distinct = True
        return s

    def from_clause(self, depth, scope_outer):
        """A left-deep join of 1 to 3 relations; returns (node, columns)."""
        n = self.rng.choice([1, 1, 2, 2, 2, 3]) if depth < 2 else 1
        node, cols = self.relation(depth)
        comma = False
        for _ in range(n - 1):
            right, rcols = self.relation(depth)
            kinds = ["INNER", "INNER", "LEFT", "LEFT", "CROSS", ","]
            if self.f.right_join:
                kinds.append("RIGHT")
            if self.f.full_join:
                kinds.append("FULL")
            kind = self.rng.choice(kinds)
            if comma and kind != ",":
                # `a, b JOIN c ON …` is `a, (b JOIN c ON …)`: an ON naming
                # a is an error on both servers, a query wasted
                kind = "CROSS"
            comma = comma or kind == ","
            on = None
            if kind == "FULL":
                # PostgreSQL runs FULL JOIN only on hash- or merge-joinable
                # conditions (known.py DIALECT full_join_cond)
                on = self.full_join_cond(cols, rcols)
                if on is None:
                    kind = "LEFT"
            if kind not in ("CROSS", ",") and on is None:
                on = self.join_cond(cols, rcols, scope_outer, depth)
            node = Q.Join(kind, node, right, on)
            cols = cols + rcols
        return node, cols

    def relation(self, depth):
        r = self.rng.random()
        if self.ctes and r < 0.25:
            name, cols = self.rng.choice(self.ctes)
            a = self.alias()
            return Q.TableRef(name, a), [Q.Col(a, c, t) for c, t in cols]
        if depth < 2 and self.f.subqueries and r < 0.4:
            if self.f.setops and self.chance(0.15):
                q = self.setop(depth=depth + 1)
                a = self.alias("d")
                return Q.Derived(q, a), [Q.Col(a, "x%d" % i, t) for i, t in enumerate(q.tags())]
            q = self.select(depth=depth + 1, scope_outer=[], ncols=self.rng.randint(1, 3),
                            top=self.chance(0.3))
            if self.chance(0.2):
                self.order(q, limited=True)
            a = self.alias("d")
            return Q.Derived(q, a), [Q.Col(a, it.alias, it.expr.tag) for it in q.items]
        if r < 0.47:
            return self.values()
        if depth < 2 and r < 0.55:
            # a parenthesized join as one relation: a LEFT JOIN (b JOIN c ON …) ON …
            left, lcols = self.relation(depth + 1)
            right, rcols = self.relation(depth + 1)
            kind = self.rng.choice(["INNER", "LEFT"] + (["RIGHT"] if self.f.right_join else []))
            return Q.Join(kind, left, right, self.join_cond(lcols, rcols, [], depth + 1)), \
                lcols + rcols
        t = self.rng.choice(self.tables)
        a = self.alias()
        return Q.TableRef(t.name, a), [Q.Col(a, c.name, c.tag) for c in t.columns]

    def values(self):
        """VALUES as a relation: the first row's literals typed by casts,
        the others bare (PostgreSQL resolves each column's type from all
        rows: integer and numeric literals make numeric)."""
        ncols = self.rng.randint(1, 3)
        tags = [self.rng.choice(list(sqltypes.DECLARE)) for _ in range(ncols)]
        rows = []
        for i in range(self.rng.randint(1, 4)):
            vals = []
            for t in tags:
                v = None if self.chance(0.2) else self.rng.choice(POOL[t])
                if i == 0:
                    vals.append(sqltypes.literal(t, v))
                elif v is None:
                    vals.append("NULL")
                elif t in ("int", "bigint", "numeric"):
                    vals.append(str(v))
                else:
                    vals.append(sqltypes.literal(t, v))
            rows.append("(" + ", ".join(vals) + ")")
        a = self.alias("v")
        names = ["x%d" % i for i in range(ncols)]
        text = "(VALUES %s) AS %s(%s)" % (", ".join(rows), a, ", ".join(names))
        # bigint literals under 2^31 are integers: the column is numeric
        # when a numeric literal joins them, else bigint (from the cast)
        out = []
        for n, t in zip(names, tags):
            out.append(Q.Col(a, n, t))
        return Q.RawFrom(text), out

    def full_join_cond(self, lcols, rcols):
        pairs = [(l, r) for l in lcols for r in rcols if FAMILY[l.tag] == FAMILY[r.tag]]
        if not pairs:
            return None
        l, r = self.rng.choice(pairs)
        return Q.Tmpl("({0} = {1})", [l, r], "bool")

    def join_cond(self, lcols, rcols, scope_outer, depth):
        pairs = [(l, r) for l in lcols for r in rcols if FAMILY[l.tag] == FAMILY[r.tag]]
        conj = []
        if pairs and self.chance(0.9):
            l, r = self.rng.choice(pairs)
            conj.append(Q.Tmpl("({0} = {1})", [l, r], "bool"))
        if not conj or self.chance(0.3):
            saved = self.f.subqueries
            self.f.subqueries = self.f.subqueries and self.f.join_subqueries
            conj.append(self.pred(Scope(lcols + rcols, outer=scope_outer), depth + 1, 1))
            self.f.subqueries = saved
        e = conj[0]
        for c in conj[1:]:
            e = Q.Tmpl("({0} AND {1})", [e, c], "bool")
        return e

    # ---- window functions -----------------------------------------------------

    def grouped_window(self, gscope, keys, depth):
        """A window over the groups: ordered by an aggregate, then by every
        grouping key (one row per group, so that order is total)."""
        agg = self.aggregate(gscope, "num", depth)
        fn = self.rng.choice(["row_number", "rank", "dense_rank"])
        order = [Q.SortKey(agg, self.chance(0.5))]
        fixed = [Q.SortKey(k) for k in keys] if fn == "row_number" else []
        return Q.Window(fn, [], [], order, fixed, "bigint")

    def window(self, cols):
        part = [c for c in self.rng.sample(cols, min(len(cols), self.rng.randint(0, 2)))]
        keys = [Q.SortKey(c, self.chance(0.3), self.rng.choice([None, "FIRST", "LAST"]))
                for c in self.rng.sample(cols, min(len(cols), self.rng.randint(0, 2)))]
        funcs = ["row_number", "rank", "dense_rank"]
        if self.f.window_aggs:
            funcs += ["sum", "count", "avg", "min", "max", "count*"]
        if self.f.window_frames:
            funcs += ["lag", "lead", "first_value", "last_value", "nth_value", "ntile",
                      "percent_rank", "cume_dist"]
        fn = self.rng.choice(funcs)
        if fn in ("percent_rank", "cume_dist"):
            return Q.Window(fn, [], part, keys, [], "double")
        if fn in ("lag", "lead", "first_value", "last_value", "nth_value", "ntile"):
            # over a total order (the chosen keys, then every column): rows
            # that tie in all of them are identical, so the answer is fixed
            fixed = [Q.SortKey(c) for c in cols]
            if fn == "ntile":
                return Q.Window(fn, [Q.Lit("int", self.rng.randint(1, 4))], part, keys, fixed,
                                "int")
            arg = self.rng.choice(cols)
            args = [arg]
            if fn in ("lag", "lead") and self.chance(0.6):
                args.append(Q.Lit("int", self.rng.randint(0, 3)))
                if self.chance(0.5):
                    same = [c for c in cols if c.tag == arg.tag and c is not arg]
                    if same:
                        args.append(self.rng.choice(same))
            if fn == "nth_value":
                args.append(Q.Lit("int", self.rng.randint(1, 3)))
            frame = self.frame(True, keys) if fn not in ("lag", "lead") else ""
            return Q.Window(fn, args, part, keys, fixed, arg.tag, frame)
        if fn == "row_number" and self.row_numbered:
            # two row_number()s may pair the numbers of identical rows
            # differently: one per SELECT
            fn = "rank"
        if fn == "row_number":
            self.row_numbered = True
            # total: the chosen keys, then every column in scope
            fixed = [Q.SortKey(c) for c in cols]
            return Q.Window("row_number", [], part, keys, fixed, "bigint")
        if fn in ("rank", "dense_rank"):
            return Q.Window(fn, [], part, keys, [], "bigint")
        # an aggregate: over a frame sometimes; ROWS frames need a total order
        frame, fixed = "", []
        if self.f.window_frames and self.chance(0.5):
            rows = not keys or self.chance(0.5)
            if rows:
                fixed = [Q.SortKey(c) for c in cols]
            frame = self.frame(rows, keys)
        if fn == "count*":
            return Q.Window("count", [Q.Raw("*", None)], part, keys, fixed, "bigint", frame)
        nums = [c for c in cols if FAMILY[c.tag] == "num"] or [Q.Lit("int", 1)]
        arg = self.rng.choice(nums)
        tag = self.agg_tag(fn, arg.tag)
        return Q.Window(fn, [arg], part, keys, fixed, tag, frame)

    BOUNDS = ["UNBOUNDED PRECEDING", "%d PRECEDING", "CURRENT ROW", "%d FOLLOWING",
              "UNBOUNDED FOLLOWING"]

    def frame(self, rows, keys):
        """A frame clause: ROWS (the caller fixed a total order), else
        GROUPS or RANGE over the window's keys (RANGE offsets only over
        one integer key); bounds in an order PostgreSQL accepts."""
        if rows:
            unit = "ROWS"
        elif not keys:
            return ""
        else:
            unit = self.rng.choice(["GROUPS", "RANGE"])
        offsets = unit != "RANGE" or (len(keys) == 1 and keys[0].expr.tag in ("int", "bigint"))
        kinds = [k for k in range(5) if offsets or k in (0, 2, 4)]
        start = self.rng.choice([k for k in kinds if k < 4])
        end = self.rng.choice([k for k in kinds if k >= start and k > 0])
        b = [self.BOUNDS[k] % self.rng.randint(0, 3) if "%" in self.BOUNDS[k] else self.BOUNDS[k]
             for k in (start, end)]
        sql = "%s BETWEEN %s AND %s" % (unit, b[0], b[1])
        if self.chance(0.3):
            sql += " EXCLUDE " + self.rng.choice(["CURRENT ROW", "GROUP", "TIES", "NO OTHERS"])
        return sql

    # ---- expressions -------------------------------------------------------------

    @staticmethod
    def agg_tag(fn, t):
        if fn == "count":
            return "bigint"
        if fn == "sum":
            return {"int": "bigint", "bigint": "numeric"}.get(t, t)
        if fn == "avg":
            return "double" if t == "double" else "numeric"
        return t

    def family(self, scope, choices, agg=False):
        """A family to build an expression of: mostly one that a column in
        scope has (an expression of literals only tests the constant
        folder, not the executor)."""
        cols = scope.agg_cols if (agg and scope.agg_cols) else scope.cols + scope.atoms + scope.outer
        fams = [FAMILY[c.tag] for c in cols if FAMILY[c.tag] in choices]
        if fams and self.chance(0.85):
            return self.rng.choice(fams)
        return self.rng.choice(choices)

    def literal(self, fam, tag=None):
        if tag is None:
            tag = self.rng.choice([t for t, f in FAMILY.items() if f == fam])
        if self.chance(0.08):
            return Q.Lit(tag, None)
        return Q.Lit(tag, self.rng.choice(POOL[tag]))

    def column(self, scope, fam):
        cands = scope.of_family(fam, outer_p=0.3, rng=self.rng)
        if not cands:
            return None
        return self.rng.choice(cands)

    def value(self, scope, fam, depth, budget, want_agg=False):
        """An expression of family `fam` (None: any)."""
        if fam is None:
            fam = self.family(scope, ["num", "num", "text", "date", "bool"])
        budget = self.grow(budget)
        if want_agg and scope.agg_cols is not None:
            return self.aggregate(scope, fam, depth)
        if fam == "bool":
            return self.pred(scope, depth, budget)
        r = self.rng.random()
        if budget <= 0 or r < 0.35:
            c = self.column(scope, fam)
            if c is not None and self.chance(0.85):
                return c
            if scope.agg_cols is not None and self.chance(0.7):
                return self.aggregate(scope, fam, depth)
            return self.literal(fam)
        if scope.agg_cols is not None and r < 0.55:
            return self.aggregate(scope, fam, depth)
        if self.chance(self.sub_p(depth) / 2):
            return self.scalar_subquery(scope, fam, depth)
        if r < 0.72:
            return self.case(scope, fam, depth, budget)
        if r < 0.8:
            a = self.value(scope, fam, depth, budget - 1)
            b = self.value(scope, fam, depth, budget - 1)
            fn = self.rng.choice(["coalesce", "nullif", "greatest", "least"]) \
                if fam != "bool" else "coalesce"
            tag = sqltypes.result_tag(a.tag, b.tag)
            if fn == "nullif":
                tag = a.tag
            return Q.Tmpl(fn + "({0}, {1})", [a, b], tag)
        return getattr(self, "fn_" + fam)(scope, depth, budget)

    def fn_num(self, scope, depth, budget):
        a = self.value(scope, "num", depth, budget - 1)
        r = self.rng.random()
        if r < 0.35:
            b = self.value(scope, "num", depth, budget - 1)
            op = self.rng.choice(["+", "-", "*"])
            if op == "*" and not isinstance(b, Q.Lit):
                b = self.literal("num", self.rng.choice(["int", "numeric"]))
            return Q.Tmpl("({0} %s {1})" % op, [a, b], sqltypes.result_tag(a.tag, b.tag))
        if r < 0.45:
            d = self.rng.choice([2, 3, -4, 7])
            op = "%" if a.tag in ("int", "bigint", "numeric") and self.chance(0.4) else "/"
            return Q.Tmpl("({0} %s %d)" % (op, d), [a], a.tag)
        if r < 0.52:
            return Q.Tmpl("(- {0})", [a], a.tag)
        if r < 0.6:
            return Q.Tmpl("abs({0})", [a], a.tag)
        if r < 0.66:
            t = self.rng.choice(sqltypes.NUMERIC_TAGS + ("numeric(20,1)",))
            if a.tag == "double" and t == "int":
                t = "bigint"   # 1e10 does not fit an integer
            if a.tag == "double" and t.startswith("numeric") and not isinstance(a, Q.Col):
                t = "double"   # a computed double's last digits are not the data's
            if a.tag in ("numeric", "bigint") and t == "int":
                t = "bigint"
            name = sqltypes.CAST_NAME.get(t, t)
            return Q.Tmpl("CAST({0} AS %s)" % name, [a], "numeric" if t.startswith("numeric") else t)
        if r < 0.72:
            # division by a column made safe: nullif turns 0 into NULL
            b = self.value(scope, "num", depth, budget - 1)
            op = "%" if a.tag != "double" and b.tag != "double" and self.chance(0.3) else "/"
            return Q.Tmpl("({0} %s nullif({1}, 0))" % op, [a, b], sqltypes.result_tag(a.tag, b.tag))
        if r < 0.8:
            s = self.value(scope, "text", depth, budget - 1)
            return Q.Tmpl("length({0})", [s], "int")
        if r < 0.86:
            d = self.value(scope, "date", depth, budget - 1)
            e = self.value(scope, "date", depth, budget - 1)
            return Q.Tmpl("({0} - {1})", [d, e], "int")
        if r < 0.92:
            d = self.value(scope, "date", depth, budget - 1)
            part = self.rng.choice(["year", "month", "day", "dow", "doy"])
            return Q.Tmpl("EXTRACT(%s FROM {0})" % part, [d], "numeric")
        if r < 0.95:
            if a.tag == "numeric" and self.chance(0.4):
                return Q.Tmpl("round({0}, %d)" % self.rng.choice([0, 1, 3]), [a], "numeric")
            if self.chance(0.3):
                s = self.value(scope, "text", depth, budget - 1)
                fn = self.rng.choice(["position('b' in {0})", "strpos({0}, 'a')"])
                return Q.Tmpl(fn, [s], "int")
            if a.tag in ("int", "bigint", "numeric") and self.chance(0.3):
                b = self.value(scope, "num", depth, budget - 1)
                if b.tag == "double":
                    b = self.literal("num", "int")
                return Q.Tmpl("mod({0}, nullif({1}, 0))", [a, b], sqltypes.result_tag(a.tag, b.tag))
            fn = self.rng.choice(["floor", "ceil", "trunc", "round", "sign"])
            return Q.Tmpl(fn + "({0})", [a], "double" if a.tag == "double" else "numeric")
        return Q.Tmpl("sqrt(abs({0}))", [a], "double" if a.tag == "double" else "numeric")

    def fn_text(self, scope, depth, budget):
        a = self.value(scope, "text", depth, budget - 1)
        r = self.rng.random()
        if r < 0.3:
            b = self.value(scope, "text", depth, budget - 1)
            return Q.Tmpl("({0} || {1})", [a, b], "text")
        if r < 0.45:
            return Q.Tmpl(self.rng.choice(["lower", "upper"]) + "({0})", [a], "text")
        if r < 0.6:
            return Q.Tmpl("substr({0}, %d, %d)" % (self.rng.randint(1, 3), self.rng.randint(0, 3)),
                          [a], "text")
        if r < 0.7:
            return Q.Tmpl(self.rng.choice(["trim", "ltrim", "rtrim"]) + "({0})", [a], "text")
        if r < 0.76:
            return Q.Tmpl("replace({0}, 'a', 'Z')", [a], "text")
        if r < 0.82:
            b = self.value(scope, "text", depth, budget - 1)
            return Q.Tmpl("concat({0}, {1})", [a, b], "text")
        if r < 0.88:
            # an explicit cast truncates
            return Q.Tmpl("CAST({0} AS varchar(2))", [a], "varchar")
        if r < 0.96:
            fn = self.rng.choice(["left({0}, 2)", "right({0}, 2)", "left({0}, -1)", "lpad({0}, 4, '*')",
                                  "rpad({0}, 2, '.')", "repeat({0}, 2)", "reverse({0})",
                                  "btrim({0}, 'a')", "split_part({0}, 'b', 1)", "initcap({0})"])
            return Q.Tmpl(fn, [a], "text")
        n = self.value(scope, "num", depth, budget - 1)
        if n.tag == "double" and not isinstance(n, Q.Col):
            # a computed double's last digit may depend on the order of
            # additions; its text would not compare with a tolerance
            n = self.literal("num", "int")
        return Q.Tmpl("CAST({0} AS text)", [n], "text")

    def fn_date(self, scope, depth, budget):
        a = self.value(scope, "date", depth, budget - 1)
        n = self.rng.choice([0, 1, 2, 30, 365, -1, -400])
        return Q.Tmpl("({0} + %d)" % n if n >= 0 else "({0} - %d)" % -n, [a], "date")

    def fn_bool(self, scope, depth, budget):
        return self.pred(scope, depth, budget)

    def case(self, scope, fam, depth, budget):
        n = self.rng.randint(1, 2)
        args, parts, tag = [], [], None
        for i in range(n):
            args.append(self.pred(scope, depth, budget - 1))
            v = self.value(scope, fam, depth, budget - 1)
            args.append(v)
            parts.append("WHEN {%d} THEN {%d}" % (2 * i, 2 * i + 1))
            tag = v.tag if tag is None else sqltypes.result_tag(tag, v.tag)
        if self.chance(0.7):
            v = self.value(scope, fam, depth, budget - 1)
            args.append(v)
            parts.append("ELSE {%d}" % (2 * n))
            tag = sqltypes.result_tag(tag, v.tag)
        return Q.Tmpl("CASE " + " ".join(parts) + " END", args, tag)

    def aggregate(self, scope, fam, depth):
        inner = Scope(scope.agg_cols)
        if fam == "bool":
            p = self.pred(inner, depth, 1)
            fn = self.rng.choice(["bool_and", "bool_or"])
            return Q.Tmpl(fn + "({0})", [p], "bool", keep=True, is_agg=True)
        if fam == "num":
            r = self.rng.random()
            if r < 0.25:
                return self.filtered(Q.Tmpl("count(*)", [], "bigint", keep=True, is_agg=True),
                                     scope, depth)
            if r < 0.4:
                f2 = self.rng.choice(["num", "text", "date", "bool"])
                a = self.value(inner, f2, depth, 1)
                d = "DISTINCT " if self.chance(0.4) else ""
                return self.filtered(Q.Tmpl("count(%s{0})" % d, [a], "bigint", keep=True,
                                            is_agg=True), scope, depth)
            a = self.value(inner, "num", depth, 1)
            fn = self.rng.choice(["sum", "avg", "min", "max", "sum"])
            d = "DISTINCT " if self.chance(0.2) else ""
            return self.filtered(Q.Tmpl(fn + "(%s{0})" % d, [a], self.agg_tag(fn, a.tag),
                                        keep=True, is_agg=True), scope, depth)
        a = self.value(inner, fam, depth, 1)
        if fam == "text" and self.f.agg_order and self.chance(0.3):
            # ordered by its own argument: equal texts tie, and ties give
            # the same string whichever comes first
            d = " DESC" if self.chance(0.5) else ""
            return Q.Tmpl("string_agg({0}, ',' ORDER BY {1}%s)" % d, [a, a], "text",
                          keep=True, is_agg=True)
        fn = self.rng.choice(["min", "max"])
        return Q.Tmpl(fn + "({0})", [a], a.tag, keep=True, is_agg=True)

    def filtered(self, agg, scope, depth):
        """agg FILTER (WHERE …), when the feature is on."""
        if not self.f.agg_filter or not self.chance(0.2):
            return agg
        p = self.pred(Scope(scope.agg_cols), depth, 1)
        return Q.Tmpl(agg.fmt + " FILTER (WHERE {%d})" % len(agg.args), agg.args + [p],
                      agg.tag, keep=True, is_agg=True)

    def sub_scope(self, scope):
        """The outer columns a subquery of `scope` may correlate with (not
        a grouping expression's atoms: PostgreSQL matches only whole
        grouped columns inside a subquery)."""
        return scope.cols + scope.outer

    def scalar_subquery(self, scope, fam, depth):
        # an aggregate with no GROUP BY: one row, whatever the data
        q = self.select(depth=depth + 1, scope_outer=self.sub_scope(scope), fams=[fam],
                        grouped=True, scalar=True)
        return Q.Tmpl("({0})", [q], q.items[0].expr.tag)

    # ---- predicates -------------------------------------------------------------

    def pred(self, scope, depth, budget, want_agg=False):
        budget = self.grow(budget)
        r = self.rng.random()
        if budget > 0 and r < 0.22:
            a = self.pred(scope, depth, budget - 1, want_agg)
            b = self.pred(scope, depth, budget - 1)
            return Q.Tmpl("({0} %s {1})" % self.rng.choice(["AND", "OR"]), [a, b], "bool")
        if budget > 0 and r < 0.28:
            return Q.Tmpl("(NOT {0})", [self.pred(scope, depth, budget - 1, want_agg)], "bool")
        if not want_agg and self.chance(self.sub_p(depth)):
            return self.subquery_pred(scope, depth)
        fam = self.family(scope, ["num", "num", "num", "text", "text", "date", "bool"],
                          agg=want_agg)
        a = self.value(scope, fam, depth, budget - 1, want_agg=want_agg)
        r = self.rng.random()
        if fam == "bool":
            if r < 0.5:
                return a if a.tag == "bool" else Q.Tmpl("({0} IS NULL)", [a], "bool")
            op = self.rng.choice(["IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE",
                                  "IS NULL", "IS NOT NULL", "IS UNKNOWN"])
            return Q.Tmpl("({0} %s)" % op, [a], "bool")
        if r < 0.45:
            b = self.literal(fam) if self.chance(0.4) else self.value(scope, fam, depth, budget - 1)
            op = self.rng.choice(["=", "<>", "<", "<=", ">", ">=", "=", "IS DISTINCT FROM",
                                  "IS NOT DISTINCT FROM"])
            return Q.Tmpl("({0} %s {1})" % op, [a, b], "bool")
        if r < 0.55:
            return Q.Tmpl("({0} %s)" % self.rng.choice(["IS NULL", "IS NOT NULL"]), [a], "bool")
        if r < 0.67:
            lo = self.value(scope, fam, depth, 0)
            hi = self.value(scope, fam, depth, 0)
            nb = self.rng.choice(["BETWEEN", "NOT BETWEEN", "BETWEEN SYMMETRIC"]) \
                if self.chance(0.1) else self.rng.choice(["BETWEEN", "NOT BETWEEN"])
            return Q.Tmpl("({0} %s {1} AND {2})" % nb, [a, lo, hi], "bool")
        if r < 0.82:
            tag = a.tag if a.tag in POOL else self.rng.choice(
                [t for t, f in FAMILY.items() if f == fam])
            # the list's literals of the operand's type, or of any type of
            # its family (integer IN (1.50, 2), varchar IN (text, …))
            mixed = self.chance(0.4)
            vals = [self.literal(fam, None if mixed else tag).sql()
                    for _ in range(self.rng.randint(1, 4))]
            neg = "NOT IN" if self.chance(0.35) else "IN"
            return Q.Tmpl("({0} %s (%s))" % (neg, ", ".join(vals).replace("{", "{{")
                                              .replace("}", "}}")), [a], "bool")
        if fam == "text":
            pat = self.rng.choice(LIKE_PATTERNS)
            op = self.rng.choice(["LIKE", "NOT LIKE", "ILIKE", "LIKE"])
            return Q.Tmpl("({0} %s '%s')" % (op, pat), [a], "bool")
        b = self.value(scope, fam, depth, budget - 1)
        return Q.Tmpl("({0} %s {1})" % self.rng.choice(["=", "<", ">="]), [a, b], "bool")

    def subquery_pred(self, scope, depth):
        outer = self.sub_scope(scope)
        r = self.rng.random()
        if r < 0.35:
            q = self.select(depth=depth + 1, scope_outer=outer, ncols=1,
                            grouped=self.chance(0.15))
            return Q.Tmpl("(%sEXISTS ({0}))" % ("NOT " if self.chance(0.4) else ""), [q], "bool")
        fam = self.family(scope, ["num", "num", "text", "date"])
        a = self.value(scope, fam, depth, 1)
        q = self.select(depth=depth + 1, scope_outer=outer, fams=[fam],
                        grouped=self.chance(0.15))
        if r < 0.8:
            op = self.rng.choice(["IN", "NOT IN", "= ANY", "<> ALL"])
        elif self.f.any_all:
            op = self.rng.choice(["< ANY", ">= ANY", "> ALL", "<= ALL", "= ALL", "<> ANY"])
        else:
            op = self.rng.choice(["IN", "NOT IN"])
        return Q.Tmpl("({0} %s ({1}))" % op, [a, q], "bool")
