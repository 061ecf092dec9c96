"""What the differential fuzzer knowingly leaves out, and why.

EXCLUDED: constructs the default grammar does not generate (gen.Features
flags, off by default), each because Cadenza does not have it yet —
issue 8 item 6 — so that every query using it would be a difference that
says nothing new. `--enable FLAG` turns one on to see how far it got.

KNOWN: differences recognised by the outcome (a Cadenza error that says
a feature is missing, while PostgreSQL answers): counted and listed at the
end, never a failure. Each names why it is not a bug of the executor. A
difference that matches nothing here is a failure.

DIALECT: differences found where Cadenza accepts what PostgreSQL rejects;
the grammar does not write such queries (they are invalid SQL), but a
shrink step can reach them, so they are named here.

Not excluded: everything else in gen.py's grammar; no construct is left
out because Cadenza answers it wrongly.
"""
import re

EXCLUDED = {
    "full_join": "FULL [OUTER] JOIN is not implemented (0A000 'FULL JOIN is not supported yet'; "
                 "issue 8 item 6)",
    "window_aggs": "aggregates as window functions (sum/count/avg/min/max OVER) are not "
                   "implemented, only row_number/rank/dense_rank (0A000; issue 8 item 6, "
                   "'every standard window function')",
    "any_all": "x op ANY/ALL (subquery) for operators other than = ANY and <> ALL is not "
               "implemented (0A000 'this form of ANY/ALL is not supported yet')",
    "join_subqueries": "subqueries inside JOIN ... ON are not implemented (0A000 'subqueries "
                       "in JOIN conditions are not supported yet')",
    "grouped_windows": "window functions in a SELECT with GROUP BY or aggregates are not "
                       "implemented (0A000 'window functions together with aggregates or GROUP "
                       "BY are not supported')",
    "agg_order": "ORDER BY inside an aggregate call (string_agg(x, ',' ORDER BY x)) is not "
                 "parsed (42601); string_agg without it depends on the row order, so the "
                 "grammar writes none",
    "agg_filter": "aggregate FILTER (WHERE ...) is not parsed (42601)",
}

DIALECT = {
    "on_scope": "FROM a, b JOIN c ON a.x = c.x: PostgreSQL rejects it (42P01, the comma binds "
                "looser than JOIN, so a is not visible in that ON); Cadenza binds the FROM list "
                "left to right and accepts it (the answer is what the query means where it is "
                "valid). gen.py follows a comma join only with comma or CROSS joins",
    "case_mapping": "lower/upper/initcap and ILIKE map non-ASCII letters in Cadenza "
                    "(lower('É') = 'é'), as PostgreSQL does under a UTF-8 locale; the reference "
                    "cluster runs under the C locale, where they map ASCII only. The value pools "
                    "hold multi-byte characters without case only",
    "unused_cte": "a WITH query the statement never references is not bound by Cadenza, so an "
                  "error in it (an unknown table or column) goes unreported; PostgreSQL binds "
                  "every WITH query. gen.py writes only valid WITH queries",
}

# (name, SQLSTATE of Cadenza's error, regular expression on its message, why)
KNOWN = [
    ("full_join", "0A000", r"FULL JOIN is not supported", EXCLUDED["full_join"]),
    ("window_aggs", "0A000", r"window function \w+ is not supported", EXCLUDED["window_aggs"]),
    ("any_all", "0A000", r"this form of ANY/ALL is not supported", EXCLUDED["any_all"]),
    ("join_subqueries", "0A000", r"subqueries in JOIN conditions are not supported",
     EXCLUDED["join_subqueries"]),
    ("grouped_windows", "0A000", r"window functions together with aggregates or GROUP BY",
     EXCLUDED["grouped_windows"]),
    ("grouped_windows", "42803", r"aggregate functions are not allowed in window definitions",
     EXCLUDED["grouped_windows"]),
    # syntax errors: known only when the query has the construct
    ("agg_order", "42601", r"syntax error at or near \"order\"", EXCLUDED["agg_order"]),
    ("agg_filter", "42601", r"syntax error at or near \"(filter|\()\"", EXCLUDED["agg_filter"]),
]
NEEDS_TEXT = {"agg_order": r"string_agg\(.* ORDER BY", "agg_filter": r"\) FILTER \(WHERE "}


def classify(cz, pg, sql=""):
    """The KNOWN entry a difference is, or None. (A DIALECT difference is
    never counted as known: the grammar must not write one, so one seen
    in a run is a failure of gen.py or a new difference.)"""
    if cz.kind == "error" and pg.kind == "rows":
        for name, state, pat, why in KNOWN:
            if cz.sqlstate == state and re.search(pat, cz.message or "", re.I):
                if name in NEEDS_TEXT and not re.search(NEEDS_TEXT[name], sql):
                    continue
                return name
    return None
