/* spill — temporary files that materialising operators (sort, hash
 * aggregation, hash join) write rows to when their state would pass the
 * memory they may hold, and read back later.
 *
 * Design notes (exec/README.md, "Spilling"):
 * - One folder for the whole server (spill_configure, from [Parameters]
 *   TempDirectory); files are named cz-<pid>-<n>.spill so that the
 *   cleanup at start removes only ours.
 * - A file belongs to one execution: it is registered with the root
 *   context of the query (q_spill), and spill_end, which the engine calls
 *   when the execution ends however it ends (result, error, cancel),
 *   closes and deletes every file still open. Operators close their files
 *   as soon as they are done with them (ov_close at the latest) and never
 *   touch a file pointer of an earlier execution (ov_open forgets them).
 *   Workers of one execution (qctx_worker_init) share the registry: its
 *   list and byte count are under a mutex; a file itself is used by one
 *   thread at a time.
 * - The bytes a query has in its files count against MaxTempSpace (53400
 *   past it); a full disk is 53100. The write and read buffers are charged
 *   to the query's memory budget.
 * - Rows are written column by column in a compact form (a NULL flag,
 *   then the value: fixed-size kinds as they are, strings as length and
 *   bytes) and read back into batches whose strings live in a caller's
 *   arena.
 */
#ifndef CZ_EXEC_SPILL_H
#define CZ_EXEC_SPILL_H

#include "exec/exec.h"


/* The server's temporary folder (created when missing; our files left
 * there by an earlier server removed) and the per-query limit of bytes in
 * temporary files (0 = none). Called once at start. */
int spill_configure(const char *dir, int64_t max_temp, err_t *e);
const char *spill_dir(void);

typedef struct spill_s spill_t;

/* A new empty file for rows of ncols columns of types (kept by pointer:
 * they must outlive the file), open for writing. */
spill_t *spill_open(qctx_t *q, int ncols, const ty_t *types, err_t *e);
/* Appends row `row` of b (its first ncols columns). */
int spill_put(spill_t *f, const batch_t *b, int row, err_t *e);
/* Ends writing; the next spill_get reads from the first row. */
int spill_rewind(spill_t *f, err_t *e);
/* Reads up to out's capacity (its first column's v_cap) of rows into out
 * (b_n = 0 at the end of the file); strings are copied into a. */
int spill_get(spill_t *f, batch_t *out, arena_t *a, err_t *e);
int64_t spill_rows(const spill_t *f);
/* Closes and deletes the file; NULL is fine. */
void spill_close(spill_t *f);

/* Makes the registry of q's execution (on its root context) if it has
 * none: before parallel workers start, so that they only share it. */
int spill_reg_ensure(qctx_t *q, err_t *e);
/* Closes and deletes every file of q's execution (the engine, at its
 * end). */
void spill_end(qctx_t *q);

/* Whether an operator that can spill should do so now: the execution's
 * memory (or the server's, for all queries) is within a reserve of its
 * limit. False without a budget with a limit (nothing to spill for). */
bool spill_pressure(const qctx_t *q);
/* The memory limit an operator may plan its spilling with (the query's
 * limit, or the server's when lower or the query has none); 0 = none. */
int64_t spill_mem_limit(const qctx_t *q);
/* Bytes the files of q's execution hold now (EXPLAIN, tests). */
int64_t spill_bytes(const qctx_t *q);

#endif /* CZ_EXEC_SPILL_H */
