"""Minimizing a difference: the query first (drop clauses, conjuncts,
columns, joins, set operation sides; replace expressions by their parts),
then the rows of the tables it reads, as long as the difference stays the
same difference (same kinds of outcome, same SQLSTATE, same way of
disagreeing).

Design notes: greedy and top-down — each step walks the tree from the
root, takes the first variant that keeps the difference and starts again,
so the big cuts (a whole subquery, a join side) come before the small
ones. Each try costs a query on both servers, so both phases stop after a
budget of tries. Row shrinking recreates a table with a subset of its
rows on both servers (halves, then quarters, … then single rows: ddmin
without the complement step).
"""
from . import qtree as Q


def paths(node, prefix=()):
    yield prefix, node
    for f, i, k in node.kids():
        yield from paths(k, prefix + ((f, i),))


def replace_at(root, path, new):
    if not path:
        return new
    f, i = path[0]
    child = getattr(root, f) if i is None else getattr(root, f)[i]
    return root.replace(f, i, replace_at(child, path[1:], new))


def shrink_query(q, keeps, budget=300):
    """keeps(query) -> True when the query still shows the difference.
    Returns (smaller query, tries used)."""
    tries = 0
    progress = True
    while progress and tries < budget:
        progress = False
        for path, node in paths(q):
            for v in node.variants():
                if tries >= budget:
                    return q, tries
                cand = replace_at(q, path, v)
                if not isinstance(cand, Q.Query):
                    continue
                tries += 1
                if keeps(cand):
                    q = cand
                    progress = True
                    break
            if progress:
                break
    return q, tries


def shrink_rows(tables, keeps, budget=200):
    """tables: the Table objects the query reads; keeps(tables) -> True when
    the difference stays with these tables (it recreates them). Returns the
    smaller tables."""
    tries = 0
    tables = list(tables)
    for ti in range(len(tables)):
        chunk = max(1, len(tables[ti].rows) // 2)
        while chunk >= 1 and tries < budget:
            rows = tables[ti].rows
            i = 0
            cut = False
            while i < len(rows) and tries < budget:
                cand_rows = rows[:i] + rows[i + chunk:]
                cand = tables[:ti] + [tables[ti].with_rows(cand_rows)] + tables[ti + 1:]
                tries += 1
                if keeps(cand):
                    tables = cand
                    rows = cand_rows
                    cut = True
                else:
                    i += chunk
            if not cut:
                chunk //= 2
    return tables
