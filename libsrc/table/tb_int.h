/* tb_int.h — what the table layer's files share: key and row building for
 * a table and its indexes, batch/vector helpers, visibility-checked reads.
 */
#ifndef CZ_TB_INT_H
#define CZ_TB_INT_H

#include "table/table.h"

/* Bytes of the encoded key of n columns of types starting at p (without
 * decoding them); len when malformed. */
size_t tbl_key_skip(const ty_t *types, int n, const uint8_t *p, size_t len);

/* The primary key of a row: the pk columns of vals (or the row id). */
int tb_pk_encode(const cat_table_t *t, const datum_t *vals, int64_t rowid, uint8_t *out,
                 size_t cap, size_t *len, err_t *e);
/* The types of the primary key's columns (the row id: one INT8). */
const ty_t *tb_pk_types(const cat_table_t *t, int *n);
/* A secondary index entry for a row: key = index columns ‖ pk, val = the
 * INCLUDE columns (row codec); *prefix_len = bytes of the index columns;
 * *has_null: an index column is NULL (no uniqueness then). */
int tb_index_entry(const cat_index_t *ix, const datum_t *vals, const uint8_t *pk, size_t pk_len,
                   uint8_t *key, size_t *key_len, size_t *prefix_len, bool *has_null,
                   uint8_t *val, size_t *val_len, err_t *e);
/* Adds the entry of a row to a secondary index (unique check, value lock). */
int tb_index_add(txn_t *tx, const cat_index_t *ix, const datum_t *vals, const uint8_t *pk,
                 size_t pk_len, err_t *e);
/* The column types of a table, cached on the stack by callers. */
void tb_col_types(const cat_table_t *t, ty_t *out);
/* Hash of a stored row value: the version check of a locator. */
uint64_t tb_row_hash(const void *val, size_t len);

/* Writes d into row i of v (strings are not copied). */
void tb_vec_put(vec_t *v, int i, const datum_t *d);
/* Row i of v as a datum. */
void tb_vec_get(const vec_t *v, int i, datum_t *out);

/* Whether the index covers the columns (key, include or pk columns). */
bool tb_index_covers(const cat_index_t *ix, const cat_table_t *t, const int *cols, int ncols);

#endif /* CZ_TB_INT_H */
