/* opt — the cost-based optimizer: a query block's logical join block
 * (sql/sql_logical.h) in, an immutable operator tree (exec/exec.h) out:
 * join order, join methods, access paths, estimates, parallel plans.
 *
 * Design notes (opt/README.md):
 * - The binder (sql) reaches the optimizer only through the table of
 *   entry points opt_entry() gives, which the statement runner puts in
 *   sp_env_t.pe_opt: sql ranks below opt and never includes it.
 * - Plans live in the statement's arena; nothing here keeps state between
 *   calls, so any number of statements plan at once.
 */
#ifndef CZ_OPT_H
#define CZ_OPT_H

#include "sql/sql_logical.h"

/* The optimizer's entry points (static; never NULL). */
const sql_opt_t *opt_entry(void);

#endif /* CZ_OPT_H */
