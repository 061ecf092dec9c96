/* en_copy — COPY FROM STDIN and COPY TO STDOUT in PostgreSQL's text and
 * CSV formats.
 *
 * Design notes:
 * - TO: the table (or query) is planned as a SELECT and run batch by
 *   batch; rows are formatted into a buffer handed to the caller in
 *   chunks of whole lines (COPY_CHUNK bytes or more).
 * - FROM: data arrives in chunks cut anywhere; bytes after the last
 *   complete record wait in ci_pending. Each record is split into fields
 *   (text: delimiter and backslash escapes, \N is NULL; CSV: quotes,
 *   doubled quotes, empty unquoted is NULL), converted with the column's
 *   input function, and collected into a batch of all the table's
 *   columns (columns not listed get their DEFAULT, evaluated once per
 *   COPY, or once per record when volatile: a serial's nextval); full batches go to tbl_insert_batch. An error names the line.
 *   What the copy holds (the defaults, the pending input, a batch's
 *   values) is charged to a budget of MaxQueryMem (ci_budget): the input
 *   buffer grows fallibly, and the budget is checked after each record,
 *   so one long record or a huge default fails with 53200.
 * - The rows are written in the session's transaction (an implicit one
 *   outside a block), committed when the copy is done, rolled back when
 *   it fails.
 * - Server-side files (COPY … FROM/TO '/abs/path') run as a plain command
 *   (no copy sub-protocol): the file's contents are fed to the FROM STDIN
 *   path in chunks, and the TO STDOUT producer writes into the file. Only
 *   a superuser may use them, and only inside [Parameters] DirsAllowed
 *   (en_file.c opens the file: superuser, DirsAllowed, never one of the
 *   server's own files, regular files only).
 * - The binary format (FORMAT binary) is PostgreSQL's: the 11-byte
 *   signature, flags, a header extension (skipped), then per tuple an
 *   int16 field count and per field an int32 length (-1 NULL) and the
 *   type's send/recv bytes (ty_format_binary / ty_parse_binary, the wire
 *   protocol's binary forms), then the int16 -1 trailer. Input is parsed
 *   as whole tuples arrive (a tuple cut between messages waits in
 *   ci_pending); bad input fails with PostgreSQL's 22P04 / 22P03 / 22021
 *   words and the copy is rolled back. Array columns (kept as text here)
 *   have no binary form yet: 0A000.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/runner/runner_int.h"

#define COPY_CHUNK 65536

typedef struct copy_in_s {
  const cat_table_t *ci_table;
  int ci_ncols;                 /* columns in the data */
  int *ci_cols;                 /* their table column numbers */
  datum_t *ci_defaults;         /* per table column: value when not in the data */
  xnode_t **ci_default_x;       /* per table column: a volatile DEFAULT (nextval, random())
                                   evaluated for each record; NULL: ci_defaults holds it */
  esession_t *ci_sess;          /* for those evaluations (nextval's session state) */
  int *ci_unlisted;             /* the table columns not in the data */
  int ci_nunlisted;
  bool ci_csv;
  bool ci_binary;               /* FORMAT binary */
  bool ci_bin_header;           /* binary: the file header was read */
  bool ci_bin_trailer;          /* binary: the -1 trailer was read (nothing may follow) */
  char ci_delim, ci_quote, ci_escape;
  const char *ci_null;
  size_t ci_null_len;
  bool ci_header;               /* a header line is still to be skipped */
  bool ci_implicit;             /* ends the transaction it began */
  bool ci_ended;                /* saw \. */
  char *ci_pending;             /* an incomplete record (in ci_mem) */
  size_t ci_plen, ci_pcap;
  mem_budget_t ci_budget;       /* MaxQueryMem for what the copy holds */
  arena_t *ci_mem;              /* defaults, pending input; charged to ci_budget */
  arena_t *ci_batch_arena;      /* a child of ci_mem: one batch's values */
  batch_t *ci_batch;
  int64_t ci_rows;
  int64_t ci_line;
} copy_in_t;

/* ---- shared ----------------------------------------------------------------- */

static char opt_char(const char *s, char dflt)
{
  return s && s[0] ? s[0] : dflt;
}

/* The statement's table and the table column numbers COPY moves. */
static int copy_target(esession_t *s, const sql_copy_t *co, arena_t *a, const cat_table_t **tp,
                       int **cols, int *ncols, err_t *e)
{
  const cat_table_t *t;
  if (en_lookup_table(s, co->co_table.nm_schema, co->co_table.nm_name, &t, e) !=
      CZ_OK) {
    e->er_pos = co->co_table.nm_pos;
    return CZ_ERR;
  }
  int n = co->co_columns ? sql_list_len(co->co_columns) : t->ct_ncols;
  int *c = arena_alloc(a, sizeof(int) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    if (!co->co_columns)
      c[i] = i;
    else if (cat_lookup_column(t, sql_list_at(co->co_columns, i), &c[i], e) != CZ_OK)
      return CZ_ERR;
  }
  *tp = t;
  *cols = c;
  *ncols = n;
  return CZ_OK;
}

static int copy_check(const sql_copy_t *co, err_t *e)
{
  (void)co, (void)e;
  return CZ_OK;
}

/* Array columns are held as text: their binary form (array_send's) is
 * not written or read yet. */
static int copy_bin_type(ty_t t, const char *col, err_t *e)
{
  if (t.t_elem != TY_UNKNOWN)
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                   "COPY (FORMAT binary) of array column \"%s\" is not supported yet", col);
  return CZ_OK;
}

bool estmt_copy_binary(const estmt_t *st)
{
  return st->st_ast && st->st_ast->st_kind == SQL_STMT_COPY &&
         st->st_ast->st_copy->co_format == SQL_COPY_BINARY;
}

static int copy_describe(estmt_t *st, err_t *e)
{
  esession_t *s = st->st_sess;
  const sql_copy_t *co = st->st_ast->st_copy;
  if (copy_check(co, e) != CZ_OK)
    return CZ_ERR;
  es_refresh_snapshot(s);
  if (co->co_query) {
    sql_stmt_t q = {.st_kind = SQL_STMT_SELECT, .st_query = co->co_query};
    sql_stmt_t *saved = st->st_ast;
    st->st_ast = &q;
    splan_t *p;
    int rc = en_plan(st, st->st_arena, &p, e);
    st->st_ast = saved;
    if (rc != CZ_OK)
      return CZ_ERR;
    st->st_ncols = p->sp_ncols;
    return CZ_OK;
  }
  const cat_table_t *t;
  int *cols;
  if (copy_target(s, co, st->st_arena, &t, &cols, &st->st_ncols, e) != CZ_OK)
    return CZ_ERR;
  return cat_check_priv(es_snapshot(s), es_role_oid(s), t,
                        co->co_from ? CAT_PRIV_INSERT : CAT_PRIV_SELECT, e);
}

int en_copy_describe(estmt_t *st, err_t *e)
{
  const sql_copy_t *co = st->st_ast->st_copy;
  if (copy_describe(st, e) != CZ_OK)
    return CZ_ERR;
  if (co->co_file) {
    /* A server file is a plain command: no copy sub-protocol, no rows. */
    st->st_kind = ESTMT_COMMAND;
    st->st_ncols = -1;
  }
  return CZ_OK;
}

static int copy_out(erun_t *p, ecopy_out_fn_t fn, void *ctx, err_t *e);
static int copy_in_begin(erun_t *p, int *ncols, int *format, err_t *e);
static int copy_file_run(erun_t *p, err_t *e);

int en_copy_run(erun_t *p, err_t *e)
{
  const sql_copy_t *co = p->ru_stmt->st_ast->st_copy;
  if (copy_check(co, e) != CZ_OK)
    return CZ_ERR;
  if (!co->co_file)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "COPY must run through the copy protocol");
  return copy_file_run(p, e);
}

/* ---- TO STDOUT -------------------------------------------------------------- */

typedef struct outbuf_s {
  char *ob_p;
  size_t ob_len, ob_cap;
  bool ob_failed;               /* a realloc failed: the COPY fails with 53200 */
} outbuf_t;

static void ob_put(outbuf_t *o, const char *p, size_t n)
{
  if (!n)
    return;  /* an empty piece: ob_p may still be NULL, and memcpy(NULL, …, 0) is UB */
  if (o->ob_len + n > o->ob_cap) {
    size_t cap = (o->ob_len + n) * 2 + 1024;
    char *np = o->ob_failed ? NULL : realloc(o->ob_p, cap);
    if (!np) {
      o->ob_failed = true;  /* checked once per batch; never the server's end */
      return;
    }
    o->ob_p = np;
    o->ob_cap = cap;
  }
  memcpy(o->ob_p + o->ob_len, p, n);
  o->ob_len += n;
}

static void ob_putc(outbuf_t *o, char c)
{
  ob_put(o, &c, 1);
}

static void put_text_value(outbuf_t *o, const char *v, size_t n, char delim)
{
  for (size_t i = 0; i < n; i++) {
    char c = v[i];
    const char *esc = c == '\\' ? "\\\\" : c == '\n' ? "\\n" : c == '\r' ? "\\r" : c == '\t' ? "\\t"
                      : c == '\b' ? "\\b" : c == '\f' ? "\\f" : c == '\v' ? "\\v" : NULL;
    if (esc)
      ob_put(o, esc, 2);
    else if (c == delim) {
      ob_putc(o, '\\');
      ob_putc(o, c);
    } else
      ob_putc(o, c);
  }
}

static void put_csv_value(outbuf_t *o, const char *v, size_t n, char delim, char quote, char escape,
                          const char *null, bool force)
{
  bool q = force || (n == 0 && null[0] == '\0') || (strlen(null) == n && memcmp(v, null, n) == 0);
  for (size_t i = 0; i < n && !q; i++)
    q = v[i] == delim || v[i] == quote || v[i] == '\n' || v[i] == '\r' || v[i] == escape;
  if (!q) {
    ob_put(o, v, n);
    return;
  }
  ob_putc(o, quote);
  for (size_t i = 0; i < n; i++) {
    if (v[i] == quote || v[i] == escape)
      ob_putc(o, escape);
    ob_putc(o, v[i]);
  }
  ob_putc(o, quote);
}

/* ---- the binary format -------------------------------------------------------- */

static const char copy_bin_sig[11] = {'P', 'G', 'C', 'O', 'P', 'Y', '\n', '\377', '\r', '\n', '\0'};

static void ob_put_be(outbuf_t *o, uint32_t v, int n)
{
  char b[4];
  for (int i = 0; i < n; i++)
    b[i] = (char)(v >> (8 * (n - 1 - i)));
  ob_put(o, b, (size_t)n);
}

/* Signature, flags 0 (no OIDs), header extension length 0. */
static void copy_bin_header(outbuf_t *o)
{
  ob_put(o, copy_bin_sig, sizeof copy_bin_sig);
  ob_put_be(o, 0, 4);
  ob_put_be(o, 0, 4);
}

/* One tuple: the field count, then each field's length and send bytes. */
static int copy_bin_row(outbuf_t *o, const batch_t *b, int r, int ncols, err_t *e)
{
  ob_put_be(o, (uint32_t)ncols, 2);
  for (int c = 0; c < ncols; c++) {
    const vec_t *v = &b->b_cols[c];
    datum_t d;
    vec_get(v, r, &d);
    if (d.d_null) {
      ob_put_be(o, 0xffffffffu, 4);
      continue;
    }
    size_t cap = ty_binary_max(v->v_type, &d);
    uint8_t stack[64];
    uint8_t *buf = cap <= sizeof stack ? stack : malloc(cap);
    if (!buf)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: COPY could not buffer a row");
    int n = ty_format_binary(v->v_type, &d, buf, cap);
    if (n >= 0) {
      ob_put_be(o, (uint32_t)n, 4);
      ob_put(o, (const char *)buf, (size_t)n);
    }
    if (buf != stack)
      free(buf);
    if (n < 0)
      return err_set(e, SQLSTATE_INTERNAL, "value of column %d could not be formatted", c + 1);
  }
  return CZ_OK;
}

int er_copy_out(erun_t *p, ecopy_out_fn_t fn, void *ctx, err_t *e)
{
  if (p->ru_stmt->st_ast->st_copy->co_file)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "COPY to a file does not use the copy protocol");
  return copy_out(p, fn, ctx, e);
}

static int copy_out(erun_t *p, ecopy_out_fn_t fn, void *ctx, err_t *e)
{
  estmt_t *st = p->ru_stmt;
  esession_t *s = st->st_sess;
  const sql_copy_t *co = st->st_ast->st_copy;
  if (copy_check(co, e) != CZ_OK || es_check_not_failed(s, st->st_ast, e) != CZ_OK)
    return CZ_ERR;
  arena_t *a = arena_create(p->ru_arena, "copy out");
  /* The rows as a SELECT of the columns, or the query itself. */
  sql_stmt_t sel = {.st_kind = SQL_STMT_SELECT};
  if (co->co_query)
    sel.st_query = co->co_query;
  else {
    es_refresh_snapshot(s);
    const cat_table_t *t;
    int *cols, n;
    if (copy_target(s, co, a, &t, &cols, &n, e) != CZ_OK)
      goto fail;
    sql_query_t *q = arena_zalloc(a, sizeof(*q));
    sql_select_t *b = arena_zalloc(a, sizeof(*b));
    q->qu_kind = SQL_Q_SELECT;
    q->qu_select = b;
    b->se_targets = arena_zalloc(a, sizeof(sql_list_t));
    b->se_targets->ls_n = b->se_targets->ls_cap = n;
    b->se_targets->ls_items = arena_alloc(a, sizeof(void *) * (size_t)(n + 1));
    for (int i = 0; i < n; i++) {
      sql_target_t *tg = arena_zalloc(a, sizeof(*tg));
      sql_expr_t *x = arena_zalloc(a, sizeof(*x));
      x->ex_kind = SQL_E_COLUMN;
      x->ex_name = t->ct_cols[cols[i]].cc_name;
      tg->tg_expr = x;
      b->se_targets->ls_items[i] = tg;
    }
    sql_from_t *fr = arena_zalloc(a, sizeof(*fr));
    fr->fr_kind = SQL_FROM_TABLE;
    fr->fr_table = co->co_table;
    b->se_from = arena_zalloc(a, sizeof(sql_list_t));
    b->se_from->ls_n = b->se_from->ls_cap = 1;
    b->se_from->ls_items = arena_alloc(a, sizeof(void *));
    b->se_from->ls_items[0] = fr;
    sel.st_query = q;
  }
  {
    sql_stmt_t *saved = st->st_ast;
    st->st_ast = &sel;
    splan_t *pl;
    es_refresh_snapshot(s);
    int rc = en_plan(st, a, &pl, e);
    st->st_ast = saved;
    if (rc != CZ_OK)
      goto fail;
    bool csv = co->co_format == SQL_COPY_CSV;
    bool binary = co->co_format == SQL_COPY_BINARY;
    for (int c = 0; binary && c < pl->sp_ncols; c++)
      if (copy_bin_type(pl->sp_cols[c].pc_type, pl->sp_cols[c].pc_name, e) != CZ_OK)
        goto fail;
    char delim = opt_char(co->co_delimiter, csv ? ',' : '\t');
    char quote = opt_char(co->co_quote, '"');
    char escape = opt_char(co->co_escape, quote);
    const char *null = co->co_null ? co->co_null : csv ? "" : "\\N";
    bool *force = arena_zalloc(a, (size_t)(pl->sp_ncols + 1));
    for (int c = 0; c < pl->sp_ncols; c++) {
      force[c] = co->co_force_quote_all;
      for (int i = 0; i < sql_list_len(co->co_force_quote); i++)
        force[c] |= strcmp(sql_list_at(co->co_force_quote, i), pl->sp_cols[c].pc_name) == 0;
    }
    erexec_t x;  /* a holds the plan: charged while it runs (en_exec.c) */
    er_exec_begin(&x, s, pl, NULL, 0, a, a, NULL);
    qctx_t *q = &x.x_q;
    *es_cancel_flag(s) = false;
    outbuf_t o = {0};
    int64_t rows = 0;
    char *vbuf = NULL;
    size_t vcap = 0;
    if (binary)
      copy_bin_header(&o);
    if (co->co_header && !binary) {
      for (int c = 0; c < pl->sp_ncols; c++) {
        if (c)
          ob_putc(&o, delim);
        const char *nm = pl->sp_cols[c].pc_name;
        if (csv)
          put_csv_value(&o, nm, strlen(nm), delim, quote, escape, null, false);
        else
          put_text_value(&o, nm, strlen(nm), delim);
      }
      ob_putc(&o, '\n');
    }
    rc = op_open(pl->sp_root, q, e);
    while (rc == CZ_OK) {
      obatch_t ob;
      if ((rc = op_next(pl->sp_root, q, &ob, e)) != CZ_OK || !ob.ob_b)
        break;
      /* binary: one CopyData per row, as PostgreSQL sends them (psycopg
       * reads a binary row per message); the header rides with the first */
      for (int i = 0; i < ob.ob_n && binary && rc == CZ_OK; i++) {
        if ((rc = copy_bin_row(&o, ob.ob_b, ob.ob_sel ? ob.ob_sel[i] : i, pl->sp_ncols, e)) != CZ_OK)
          break;
        rows++;
        if (o.ob_failed)
          break;
        rc = fn(ctx, o.ob_p, o.ob_len, e);
        o.ob_len = 0;
      }
      if (rc != CZ_OK)
        break;
      for (int i = 0; i < ob.ob_n && !binary; i++) {
        int r = ob.ob_sel ? ob.ob_sel[i] : i;
        for (int c = 0; c < pl->sp_ncols; c++) {
          if (c)
            ob_putc(&o, delim);
          const vec_t *v = &ob.ob_b->b_cols[c];
          datum_t d;
          vec_get(v, r, &d);
          if (d.d_null) {
            ob_put(&o, null, strlen(null));
            continue;
          }
          size_t need = ty_text_max(v->v_type, &d) + 1;
          if (need > vcap) {
            char *nb = realloc(vbuf, need * 2);
            if (!nb) {
              o.ob_failed = true;
              break;
            }
            vbuf = nb;
            vcap = need * 2;
          }
          int n = ty_format_text(v->v_type, &d, vbuf, vcap);
          if (csv)
            put_csv_value(&o, vbuf, (size_t)n, delim, quote, escape, null, force[c]);
          else
            put_text_value(&o, vbuf, (size_t)n, delim);
        }
        ob_putc(&o, '\n');
        rows++;
      }
      if (o.ob_failed) {
        rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: COPY could not buffer a row");
        break;
      }
      if (o.ob_len >= COPY_CHUNK) {
        rc = fn(ctx, o.ob_p, o.ob_len, e);
        o.ob_len = 0;
      }
    }
    op_close(pl->sp_root, q);
    er_exec_end(&x);
    if (rc == CZ_OK && binary)
      ob_put(&o, "\377\377", 2);  /* the trailer: field count -1 */
    if (rc == CZ_OK && o.ob_failed)
      rc = err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: COPY could not buffer a row");
    if (rc == CZ_OK && o.ob_len)
      rc = fn(ctx, o.ob_p, o.ob_len, e);
    free(o.ob_p);
    free(vbuf);
    if (rc != CZ_OK)
      goto fail;
    snprintf(p->ru_tag, sizeof(p->ru_tag), "COPY %lld", (long long)rows);
  }
  arena_destroy(a);
  return CZ_OK;
fail:
  arena_destroy(a);
  es_tx_fail(s);
  return CZ_ERR;
}

/* ---- FROM STDIN --------------------------------------------------------------- */

int er_copy_in_begin(erun_t *p, int *ncols, int *format, err_t *e)
{
  if (p->ru_stmt->st_ast->st_copy->co_file)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION,
                   "COPY from a file does not use the copy protocol");
  return copy_in_begin(p, ncols, format, e);
}

static int copy_in_begin(erun_t *p, int *ncols, int *format, err_t *e)
{
  estmt_t *st = p->ru_stmt;
  esession_t *s = st->st_sess;
  const sql_copy_t *co = st->st_ast->st_copy;
  if (copy_check(co, e) != CZ_OK || es_check_not_failed(s, st->st_ast, e) != CZ_OK)
    return CZ_ERR;
  copy_in_t *ci = arena_zalloc(p->ru_arena, sizeof(*ci));
  bool implicit;
  if (es_tx_ensure(s, &implicit, e) != CZ_OK)
    return CZ_ERR;
  ci->ci_implicit = implicit;
  p->ru_copy = ci;
  es_refresh_snapshot(s);
  const cat_table_t *t;
  if (copy_target(s, co, p->ru_arena, &t, &ci->ci_cols, &ci->ci_ncols, e) != CZ_OK ||
      cat_check_priv(es_snapshot(s), es_role_oid(s), t, CAT_PRIV_INSERT, e) != CZ_OK)
    goto fail;
  ci->ci_table = t;
  ci->ci_csv = co->co_format == SQL_COPY_CSV;
  ci->ci_binary = co->co_format == SQL_COPY_BINARY;
  for (int i = 0; ci->ci_binary && i < ci->ci_ncols; i++)
    if (copy_bin_type(t->ct_cols[ci->ci_cols[i]].cc_type, t->ct_cols[ci->ci_cols[i]].cc_name, e) !=
        CZ_OK)
      goto fail;
  ci->ci_delim = opt_char(co->co_delimiter, ci->ci_csv ? ',' : '\t');
  ci->ci_quote = opt_char(co->co_quote, '"');
  ci->ci_escape = opt_char(co->co_escape, ci->ci_quote);
  ci->ci_null = co->co_null ? co->co_null : ci->ci_csv ? "" : "\\N";
  ci->ci_null_len = strlen(ci->ci_null);
  ci->ci_header = co->co_header;
  mem_budget_init(&ci->ci_budget, es_engine(s)->en_max_mem);
  ci->ci_mem = arena_create(p->ru_arena, "copy");
  arena_set_budget(ci->ci_mem, &ci->ci_budget);
  ci->ci_batch_arena = arena_create(ci->ci_mem, "copy batch");
  ci->ci_defaults = arena_zalloc(p->ru_arena, sizeof(datum_t) * (size_t)(t->ct_ncols + 1));
  ci->ci_default_x = arena_zalloc(p->ru_arena, sizeof(xnode_t *) * (size_t)(t->ct_ncols + 1));
  ci->ci_sess = s;
  for (int c = 0; c < t->ct_ncols; c++) {
    ci->ci_defaults[c].d_null = true;
    if (!t->ct_cols[c].cc_default)
      continue;
    bool vol;
    xnode_t *x;
    if (sql_bind_default(ci->ci_mem, t->ct_cols[c].cc_default, t->ct_cols[c].cc_type, &x, &vol,
                         e) != CZ_OK)
      goto fail;
    if (vol)
      ci->ci_default_x[c] = x;
    else if (sql_eval_default(ci->ci_mem, t->ct_cols[c].cc_default, t->ct_cols[c].cc_type, s,
                              &ci->ci_defaults[c], e) != CZ_OK)
      goto fail;
  }
  /* Only the columns the data leaves out get their default per row. */
  bool *listed = arena_zalloc(p->ru_arena, (size_t)t->ct_ncols + 1);
  for (int i = 0; i < ci->ci_ncols; i++)
    listed[ci->ci_cols[i]] = true;
  ci->ci_unlisted = arena_alloc(p->ru_arena, sizeof(int) * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    if (!listed[c])
      ci->ci_unlisted[ci->ci_nunlisted++] = c;
  ty_t *types = arena_alloc(p->ru_arena, sizeof(ty_t) * (size_t)(t->ct_ncols + 1));
  for (int c = 0; c < t->ct_ncols; c++)
    types[c] = t->ct_cols[c].cc_type;
  ci->ci_batch = batch_create(p->ru_arena, t->ct_ncols, types, es_engine(s)->en_vector_size, e);
  if (!ci->ci_batch)
    goto fail;
  *ncols = ci->ci_ncols;
  *format = ci->ci_binary ? 1 : 0;
  return CZ_OK;
fail:
  p->ru_copy = NULL;
  if (implicit)
    es_tx_end_implicit(s, false, NULL);
  else
    es_tx_fail(s);
  return CZ_ERR;
}

/* The copy is over: what it held goes back now, not when the portal goes
 * (as en_qmem_detach does for a query). */
static void copy_in_release(copy_in_t *ci)
{
  bool big = atomic_load(&ci->ci_budget.mb_peak) >= (int64_t)16 * 1024 * 1024 ||
             mem_budget_exceeded(&ci->ci_budget);
  arena_release(ci->ci_mem);
  ci->ci_pending = NULL;
  ci->ci_plen = ci->ci_pcap = 0;
  mem_reserve_restore();
  if (big)
    mem_return_to_os();
}

static int copy_flush(erun_t *p, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  if (ci->ci_batch->b_n == 0)
    return CZ_OK;
  esession_t *s = p->ru_stmt->st_sess;
  int rc = en_cons_needed(ci->ci_table)
               ? en_cons_insert(s, es_txn(s), ci->ci_table, ci->ci_batch, NULL, ci->ci_batch->b_n,
                                true, ci->ci_batch_arena, e)
               : tbl_insert_batch(es_txn(s), ci->ci_table, ci->ci_batch, ci->ci_batch->b_n, e);
  ci->ci_rows += ci->ci_batch->b_n;
  ci->ci_batch->b_n = 0;
  arena_reset(ci->ci_batch_arena);
  return rc;
}

/* Decodes a text-format field in place: backslash escapes. */
static size_t text_unescape(char *f, size_t n)
{
  size_t k = 0;
  for (size_t i = 0; i < n; i++) {
    char c = f[i];
    if (c != '\\' || i + 1 == n) {
      f[k++] = c;
      continue;
    }
    c = f[++i];
    switch (c) {
    case 'b': f[k++] = '\b'; break;
    case 'f': f[k++] = '\f'; break;
    case 'n': f[k++] = '\n'; break;
    case 'r': f[k++] = '\r'; break;
    case 't': f[k++] = '\t'; break;
    case 'v': f[k++] = '\v'; break;
    case 'x': {
      int v = 0, d = 0;
      while (d < 2 && i + 1 < n && strchr("0123456789abcdefABCDEF", f[i + 1]) && f[i + 1]) {
        char h = f[++i];
        v = v * 16 + (h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
        d++;
      }
      f[k++] = d ? (char)v : 'x';
      break;
    }
    default:
      if (c >= '0' && c <= '7') {
        int v = c - '0', d = 1;
        while (d < 3 && i + 1 < n && f[i + 1] >= '0' && f[i + 1] <= '7') {
          v = v * 8 + (f[++i] - '0');
          d++;
        }
        f[k++] = (char)v;
      } else
        f[k++] = c;
    }
  }
  return k;
}

/* One record (without its line end) into the batch. */
static int copy_record(erun_t *p, char *rec, size_t len, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  const cat_table_t *t = ci->ci_table;
  ci->ci_line++;
  if (ci->ci_header) {
    ci->ci_header = false;
    return CZ_OK;
  }
  if (!ci->ci_csv && len == 2 && rec[0] == '\\' && rec[1] == '.') {
    ci->ci_ended = true;
    return CZ_OK;
  }
  batch_t *b = ci->ci_batch;
  int row = b->b_n;
  for (int i = 0; i < ci->ci_nunlisted; i++) {
    int c = ci->ci_unlisted[i];
    if (ci->ci_default_x[c]) {
      /* a volatile DEFAULT (a serial's nextval): one value per record */
      xctx_t xc = {.xc_arena = ci->ci_batch_arena, .xc_session = ci->ci_sess,
                   .xc_budget = &ci->ci_budget, .xc_max_mem = ci->ci_budget.mb_limit};
      datum_t d;
      if (xeval_scalar(&xc, ci->ci_default_x[c], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&b->b_cols[c], row, &d);
    } else {
      vec_set(&b->b_cols[c], row, &ci->ci_defaults[c]);
    }
  }
  size_t i = 0;
  for (int f = 0; f < ci->ci_ncols; f++) {
    if (i > len)  /* the previous field ended the record */
      return err_set(e, SQLSTATE_INVALID_TEXT, "missing data for column \"%s\" (line %lld)",
                     t->ct_cols[ci->ci_cols[f]].cc_name, (long long)ci->ci_line);
    char *fs = rec + i;
    size_t fl = 0;
    bool quoted = false, is_null;
    if (ci->ci_csv) {
      /* a field: unquoted text, or quoted parts with doubled quotes */
      char *out = fs;
      while (i < len && rec[i] != ci->ci_delim) {
        if (rec[i] == ci->ci_quote) {
          quoted = true;
          i++;
          while (i < len) {
            if (rec[i] == ci->ci_escape && i + 1 < len && rec[i + 1] == ci->ci_quote) {
              out[fl++] = ci->ci_quote;
              i += 2;
              continue;
            }
            if (rec[i] == ci->ci_quote)
              break;
            out[fl++] = rec[i++];
          }
          if (i >= len)
            return err_set(e, SQLSTATE_INVALID_TEXT, "unterminated CSV quoted field (line %lld)",
                           (long long)ci->ci_line);
          i++;
        } else
          out[fl++] = rec[i++];
      }
      is_null = !quoted && fl == ci->ci_null_len && memcmp(fs, ci->ci_null, fl) == 0;
    } else {
      bool escaped = false;
      while (i < len && rec[i] != ci->ci_delim) {
        if (rec[i] == '\\' && i + 1 < len) {
          escaped = true;
          i++;
        }
        i++;
      }
      fl = (size_t)(rec + i - fs);
      is_null = fl == ci->ci_null_len && memcmp(fs, ci->ci_null, fl) == 0;
      if (!is_null && escaped)
        fl = text_unescape(fs, fl);
    }
    i++;  /* the delimiter */
    int col = ci->ci_cols[f];
    datum_t d = {.d_null = true};
    /* The value is about as long as its text, and the input function
     * allocates it without a way to fail: make sure it fits first. */
    int64_t room = ci->ci_budget.mb_limit - atomic_load(&ci->ci_budget.mb_used);
    if (!is_null && ci->ci_budget.mb_limit > 0 && (int64_t)fl > room)
      return op_budget_error(&ci->ci_budget, ci->ci_budget.mb_limit, e);
    if (!is_null &&
        ty_parse_text(t->ct_cols[col].cc_type, fs, fl, ci->ci_batch_arena, &d, e) != CZ_OK)
      return err_prefix(e, "COPY %s, line %lld, column %s", t->ct_name, (long long)ci->ci_line,
                        t->ct_cols[col].cc_name);
    vec_set(&b->b_cols[col], row, &d);
  }
  if (i <= len)
    return err_set(e, SQLSTATE_INVALID_TEXT, "extra data after last expected column (line %lld)",
                   (long long)ci->ci_line);
  b->b_n++;
  if (b->b_n == b->b_cols[0].v_cap)
    return copy_flush(p, e);
  return CZ_OK;
}

/* The end of the first complete record in buf, or NULL (CSV records may
 * hold line breaks inside quotes). */
static char *record_end(const copy_in_t *ci, char *buf, size_t len)
{
  if (!ci->ci_csv)
    return memchr(buf, '\n', len);
  bool inq = false;
  for (size_t i = 0; i < len; i++) {
    if (buf[i] == ci->ci_quote)
      inq = !inq;
    else if (buf[i] == '\n' && !inq)
      return buf + i;
  }
  return NULL;
}

static int copy_bin_records(erun_t *p, bool final, err_t *e);

static int copy_records(erun_t *p, bool final, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  if (ci->ci_binary)
    return copy_bin_records(p, final, e);
  size_t off = 0;
  while (off < ci->ci_plen && !ci->ci_ended) {
    char *start = ci->ci_pending + off;
    char *nl = record_end(ci, start, ci->ci_plen - off);
    if (!nl && !final)
      break;
    size_t len = nl ? (size_t)(nl - start) : ci->ci_plen - off;
    off += len + (nl ? 1 : 0);
    if (len && start[len - 1] == '\r')
      len--;
    if (copy_record(p, start, len, e) != CZ_OK)
      return CZ_ERR;
    if (mem_budget_exceeded(&ci->ci_budget))
      return op_budget_error(&ci->ci_budget, ci->ci_budget.mb_limit, e);
  }
  if (off) {
    memmove(ci->ci_pending, ci->ci_pending + off, ci->ci_plen - off);
    ci->ci_plen -= off;
  }
  return CZ_OK;
}

/* ---- binary input ------------------------------------------------------------- */

static int bad_copy(err_t *e, const char *msg)
{
  return err_set(e, SQLSTATE_BAD_COPY_FILE_FORMAT, "%s", msg);
}

static uint32_t get_be(const uint8_t *p, int n)
{
  uint32_t v = 0;
  for (int i = 0; i < n; i++)
    v = v << 8 | p[i];
  return v;
}

/* PostgreSQL's text_recv checks the encoding: UTF-8, no NUL. */
static int bin_utf8(const uint8_t *s, size_t n, err_t *e)
{
  for (size_t i = 0; i < n;) {
    uint8_t c = s[i];
    size_t want = c >= 0x01 && c < 0x80 ? 1 : c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3
                  : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
    bool ok = want > 0 && i + want <= n;
    for (size_t k = 1; ok && k < want; k++)
      ok = (s[i + k] & 0xC0) == 0x80;
    if (ok && want == 3)
      ok = !(c == 0xE0 && s[i + 1] < 0xA0) && !(c == 0xED && s[i + 1] > 0x9F);
    if (ok && want == 4)
      ok = !(c == 0xF0 && s[i + 1] < 0x90) && !(c == 0xF4 && s[i + 1] > 0x8F);
    if (!ok) {
      char hex[32];
      size_t m = CZ_MIN(n - i, (size_t)(want ? want : 1)), k = 0;
      for (size_t j = 0; j < m && k + 6 < sizeof hex; j++)
        k += (size_t)snprintf(hex + k, sizeof hex - k, "%s%02x", j ? " 0x" : "0x", s[i + j]);
      return err_set(e, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE,
                     "invalid byte sequence for encoding \"UTF8\": %s", hex);
    }
    i += want;
  }
  return CZ_OK;
}

/* A field's value from its recv bytes, as PostgreSQL's receive functions
 * take them: too few bytes for a fixed-width type is 08P01 (the message
 * buffer ran out), bytes left over 22P03. */
static int bin_field(ty_t ty, const uint8_t *v, size_t n, arena_t *a, datum_t *d, err_t *e)
{
  /* a fixed-width type's binary form is its typlen (0: variable) */
  int16_t len = ty_pg_typlen(ty);
  size_t fixed = len > 0 ? (size_t)len : 0;
  if (fixed && n < fixed)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "insufficient data left in message");
  if (fixed && n > fixed)
    return err_set(e, SQLSTATE_INVALID_BINARY_REPRESENTATION, "incorrect binary data format");
  if ((ty.t_id == TY_TEXT || ty.t_id == TY_VARCHAR || ty.t_id == TY_CHAR) && bin_utf8(v, n, e) != CZ_OK)
    return CZ_ERR;
  return ty_parse_binary(ty, v, n, a, d, e);
}

/* One tuple's fields (the count already read and checked) at p into the
 * batch; *used the bytes it took, 0 when it is not complete yet. */
static int copy_bin_tuple(erun_t *p, const uint8_t *buf, size_t len, size_t *used, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  const cat_table_t *t = ci->ci_table;
  /* complete? */
  size_t off = 0;
  for (int f = 0; f < ci->ci_ncols; f++) {
    if (off + 4 > len) {
      *used = 0;
      return CZ_OK;
    }
    int32_t fl = (int32_t)get_be(buf + off, 4);
    off += 4;
    if (fl < -1)
      return bad_copy(e, "invalid field size");
    if (fl > 0 && (size_t)fl > len - off) {
      *used = 0;
      return CZ_OK;
    }
    off += fl > 0 ? (size_t)fl : 0;
  }
  *used = off;
  ci->ci_line++;
  batch_t *b = ci->ci_batch;
  int row = b->b_n;
  for (int i = 0; i < ci->ci_nunlisted; i++) {
    int c = ci->ci_unlisted[i];
    if (ci->ci_default_x[c]) {
      xctx_t xc = {.xc_arena = ci->ci_batch_arena, .xc_session = ci->ci_sess,
                   .xc_budget = &ci->ci_budget, .xc_max_mem = ci->ci_budget.mb_limit};
      datum_t d;
      if (xeval_scalar(&xc, ci->ci_default_x[c], &d, e) != CZ_OK)
        return CZ_ERR;
      vec_set(&b->b_cols[c], row, &d);
    } else {
      vec_set(&b->b_cols[c], row, &ci->ci_defaults[c]);
    }
  }
  off = 0;
  for (int f = 0; f < ci->ci_ncols; f++) {
    int32_t fl = (int32_t)get_be(buf + off, 4);
    off += 4;
    int col = ci->ci_cols[f];
    ty_t ty = t->ct_cols[col].cc_type;
    datum_t d = {.d_null = true};
    if (fl >= 0) {
      const uint8_t *v = buf + off;
      off += (size_t)fl;
      if (bin_field(ty, v, (size_t)fl, ci->ci_batch_arena, &d, e) != CZ_OK) {
        /* PostgreSQL's words stay the message; where, in the DETAIL */
        if (!e->er_detail[0])
          err_detail(e, "COPY %s, line %lld, column %s", t->ct_name, (long long)ci->ci_line,
                     t->ct_cols[col].cc_name);
        return CZ_ERR;
      }
    }
    vec_set(&b->b_cols[col], row, &d);
  }
  b->b_n++;
  if (b->b_n == b->b_cols[0].v_cap)
    return copy_flush(p, e);
  return CZ_OK;
}

/* The complete tuples in ci_pending (final: the data has ended). */
static int copy_bin_records(erun_t *p, bool final, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  const uint8_t *buf = (const uint8_t *)ci->ci_pending;
  size_t len = ci->ci_plen, off = 0;
  int rc = CZ_OK;
  if (!ci->ci_bin_header) {
    if (len < 19 && !final)
      return CZ_OK;  /* not even the fixed part yet */
    if (len < 11 || memcmp(buf, copy_bin_sig, 11) != 0)
      return bad_copy(e, "COPY file signature not recognized");
    if (len < 15)
      return bad_copy(e, "invalid COPY file header (missing flags)");
    uint32_t flags = get_be(buf + 11, 4);
    if (flags & (1u << 16))
      return bad_copy(e, "invalid COPY file header (WITH OIDS)");
    if ((flags & ~(1u << 16)) >> 16)
      return bad_copy(e, "unrecognized critical flags in COPY file header");
    if (len < 19 || (int32_t)get_be(buf + 15, 4) < 0)
      return bad_copy(e, "invalid COPY file header (missing length)");
    size_t ext = get_be(buf + 15, 4);
    if (len - 19 < ext) {
      if (final)
        return bad_copy(e, "invalid COPY file header (wrong length)");
      return CZ_OK;
    }
    off = 19 + ext;
    ci->ci_bin_header = true;
  }
  while (rc == CZ_OK) {
    if (ci->ci_bin_trailer) {
      if (off < len)
        rc = bad_copy(e, "received copy data after EOF marker");
      break;
    }
    if (len - off < 2)
      break;  /* at the end: PostgreSQL takes a stray byte as the end too */
    int16_t nf = (int16_t)get_be(buf + off, 2);
    if (nf == -1) {
      ci->ci_bin_trailer = true;
      off += 2;
      continue;
    }
    if (nf != ci->ci_ncols) {
      rc = err_set(e, SQLSTATE_BAD_COPY_FILE_FORMAT, "row field count is %d, expected %d", nf,
                   ci->ci_ncols);
      break;
    }
    size_t used = 0;
    if ((rc = copy_bin_tuple(p, buf + off + 2, len - off - 2, &used, e)) != CZ_OK)
      break;
    if (!used) {
      if (final)
        rc = bad_copy(e, "unexpected EOF in COPY data");
      break;
    }
    off += 2 + used;
    if (mem_budget_exceeded(&ci->ci_budget))
      rc = op_budget_error(&ci->ci_budget, ci->ci_budget.mb_limit, e);
  }
  if (off) {
    memmove(ci->ci_pending, ci->ci_pending + off, ci->ci_plen - off);
    ci->ci_plen -= off;
  }
  return rc;
}

int er_copy_in_data(erun_t *p, const char *data, size_t len, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  if (!ci)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "no COPY in progress");
  if (ci->ci_plen + len > ci->ci_pcap) {
    /* A record without its end grows this buffer as far as a client
     * sends: fallible, the old buffer given back. */
    size_t cap = (ci->ci_plen + len) * 2 + 4096;
    char *n = arena_try_alloc(ci->ci_mem, cap);
    if (!n)
      return op_budget_error(&ci->ci_budget, ci->ci_budget.mb_limit, e);
    if (ci->ci_plen)
      memcpy(n, ci->ci_pending, ci->ci_plen);
    arena_free(ci->ci_mem, ci->ci_pending, ci->ci_pcap);
    ci->ci_pending = n;
    ci->ci_pcap = cap;
  }
  if (len)
    memcpy(ci->ci_pending + ci->ci_plen, data, len);
  ci->ci_plen += len;
  return copy_records(p, false, e);
}

int er_copy_in_done(erun_t *p, err_t *e)
{
  copy_in_t *ci = p->ru_copy;
  esession_t *s = p->ru_stmt->st_sess;
  if (!ci)
    return err_set(e, SQLSTATE_PROTOCOL_VIOLATION, "no COPY in progress");
  int rc = copy_records(p, true, e);
  if (rc == CZ_OK)
    rc = copy_flush(p, e);
  if (rc == CZ_OK)  /* the COPY's pending foreign key checks */
    rc = en_cons_stmt_end(s, es_txn(s), ci->ci_batch_arena, e);
  copy_in_release(ci);
  p->ru_copy = NULL;
  if (rc != CZ_OK) {
    if (ci->ci_implicit)
      es_tx_end_implicit(s, false, NULL);
    else
      es_tx_fail(s);
    return CZ_ERR;
  }
  snprintf(p->ru_tag, sizeof(p->ru_tag), "COPY %lld", (long long)ci->ci_rows);
  if (ci->ci_implicit)
    return es_tx_end_implicit(s, true, e);
  return CZ_OK;
}

void er_copy_in_fail(erun_t *p, const char *reason)
{
  copy_in_t *ci = p->ru_copy;
  (void)reason;
  if (!ci)
    return;
  esession_t *s = p->ru_stmt->st_sess;
  copy_in_release(ci);
  p->ru_copy = NULL;
  if (ci->ci_implicit)
    es_tx_end_implicit(s, false, NULL);
  else
    es_tx_fail(s);
}

/* ---- server-side files -------------------------------------------------------- */

typedef struct file_out_s {
  int fo_fd;
  const char *fo_path;
} file_out_t;

static int file_write(void *ctx, const char *data, size_t len, err_t *e)
{
  file_out_t *fo = ctx;
  while (len) {
    ssize_t n = write(fo->fo_fd, data, len);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "could not write to file \"%s\": %s", fo->fo_path,
                     strerror(errno));
    data += n;
    len -= (size_t)n;
  }
  return CZ_OK;
}

static int copy_file_to(erun_t *p, const char *path, int fd, err_t *e)
{
  file_out_t fo = {.fo_fd = fd, .fo_path = path};
  int rc = copy_out(p, file_write, &fo, e);
  /* close reports late write errors (NFS, full disks): they fail the COPY */
  if (close(fd) != 0 && rc == CZ_OK)
    rc = err_set(e, SQLSTATE_IO_ERROR, "could not write to file \"%s\": %s", path, strerror(errno));
  return rc;
}

static int copy_file_from(erun_t *p, const char *path, int fd, err_t *e)
{
  int ncols, format;
  if (copy_in_begin(p, &ncols, &format, e) != CZ_OK) {
    close(fd);
    return CZ_ERR;
  }
  char *buf = malloc(COPY_CHUNK);
  if (!buf)
    abort();
  int rc = CZ_OK;
  for (;;) {
    ssize_t n = read(fd, buf, COPY_CHUNK);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = err_set(e, SQLSTATE_IO_ERROR, "could not read from COPY file \"%s\": %s", path,
                   strerror(errno));
      break;
    }
    if (n == 0 || (rc = er_copy_in_data(p, buf, (size_t)n, e)) != CZ_OK)
      break;
  }
  free(buf);
  close(fd);
  if (rc != CZ_OK) {
    er_copy_in_fail(p, e->er_msg);
    return CZ_ERR;
  }
  return er_copy_in_done(p, e);
}

static int copy_file_run(erun_t *p, err_t *e)
{
  esession_t *s = p->ru_stmt->st_sess;
  const sql_copy_t *co = p->ru_stmt->st_ast->st_copy;
  /* PostgreSQL asks for pg_read_server_files / pg_write_server_files;
   * Cadenza has no such roles: en_file_open admits only a superuser. */
  int fd;
  if (en_file_open(s, co->co_from ? "COPY from a file" : "COPY to a file", co->co_file,
                   !co->co_from, &fd, e) != CZ_OK)
    return CZ_ERR;
  return co->co_from ? copy_file_from(p, co->co_file, fd, e) : copy_file_to(p, co->co_file, fd, e);
}
