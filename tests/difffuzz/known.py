"""What the differential fuzzer knowingly leaves out, and why.

EXCLUDED: constructs the default grammar does not generate (gen.Features
flags, off by default), each because Cadenza does not have it yet —
issue 8 item 6 — so that every query using it would be a difference that
says nothing new. `--enable FLAG` turns one on to see how far it got.

KNOWN: differences recognised by the outcome (a Cadenza error that says
a feature is missing, while PostgreSQL answers): counted and listed at the
end, never a failure. Each names why it is not a bug of the executor. A
difference that matches nothing here is a failure.

NOT_IN_GRAMMAR: what the grammar has no production for at all, and why
(missing in Cadenza, or an answer PostgreSQL does not fix by the data).

DIALECT: differences found that are by design or where Cadenza accepts
what PostgreSQL rejects; the grammar does not write such queries, but a
shrink step can reach them, so they are named here.

Not excluded: everything else in gen.py's grammar; no construct is left
out because Cadenza answers it wrongly.
"""
import re

EXCLUDED = {
    "any_all": "x op ANY/ALL (subquery) for operators other than = ANY and <> ALL is not "
               "implemented (0A000 'this form of ANY/ALL is not supported yet')",
    "join_subqueries": "subqueries inside JOIN ... ON are not implemented (0A000 'subqueries "
                       "in JOIN conditions are not supported yet')",
    "agg_order": "ORDER BY inside an aggregate call (string_agg(x, ',' ORDER BY x)) is not "
                 "parsed (42601); string_agg without it depends on the row order, so the "
                 "grammar writes none",
}

NOT_IN_GRAMMAR = {
    "lateral": "LATERAL (issue 8 item 6; a syntax error, 42601, today)",
    "with_recursive": "WITH RECURSIVE (issue 8 item 6; 0A000 today)",
    "distinct_on": "DISTINCT ON (issue 8 item 6; 42601 today)",
    "grouping_sets": "GROUPING SETS / ROLLUP / CUBE (issue 8 item 6; rollup(a) is taken for "
                     "an unknown function today, 42883)",
    "interval": "an interval type (issue 8 item 6; only date/timestamp +/- INTERVAL literal "
                "today): only date +/- integer is generated",
    "char_n": "char(n) columns: the IN-list comparison over char(n) is the TPC-H Q12 bug being "
              "fixed elsewhere (issue 8 item 6); to be added here after it",
    "timestamptz": "date_trunc and other functions PostgreSQL answers as timestamptz: Cadenza "
                   "has no time zones (docs/sql-reference.md)",
    "order_dependent": "string_agg/array_agg without ORDER BY, row_number over a partial "
                       "order, LIMIT without a total ORDER BY, random(), now(): answers the "
                       "data does not fix",
    "error_order": "division or modulo by a column (only by a constant or nullif(x, 0)), casts "
                   "that can fail, values near overflow: which error, if any, depends on the "
                   "order rows are evaluated in",
    "float_text": "text of a computed double (CAST(x / 3 AS text)): its last digits depend on "
                  "the order of additions; doubles compare with a tolerance instead",
}

DIALECT = {
    "full_join_cond": "FULL JOIN on a condition that is not hash- or merge-joinable (a "
                      "non-equality, an OR, a constant): PostgreSQL refuses it (0A000), Cadenza "
                      "answers it by a nested loop (kept on purpose: docs/sql-reference.md, "
                      "\"FULL JOIN on any condition\"); gen.py writes FULL JOIN ON one column "
                      "equality only, but shrinking can reach others",
    "case_mapping": "lower/upper/initcap and ILIKE map non-ASCII letters in Cadenza "
                    "(lower('É') = 'é'), as PostgreSQL does under a UTF-8 locale; the reference "
                    "cluster runs under the C locale, where they map ASCII only. The value pools "
                    "hold multi-byte characters without case only",
}

# (name, SQLSTATE of Cadenza's error, regular expression on its message, why)
KNOWN = [
    ("any_all", "0A000", r"this form of ANY/ALL is not supported", EXCLUDED["any_all"]),
    ("join_subqueries", "0A000", r"subqueries in JOIN conditions are not supported",
     EXCLUDED["join_subqueries"]),
    # syntax errors: known only when the query has the construct
    ("agg_order", "42601", r"syntax error at or near \"order\"", EXCLUDED["agg_order"]),
]
NEEDS_TEXT = {"agg_order": r"string_agg\(.* ORDER BY"}


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
