/* en_set — SET and SHOW of run-time parameters. Values are kept per
 * session as text; the few that change behaviour are checked when set
 * (en_guc_set). SET LOCAL is treated as SET (no per-transaction undo). */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "engine/session/session_int.h"
#include "pgcat/pgcat.h"

/* search_path is a list of names (PostgreSQL's GUC_LIST_QUOTE): each item,
 * written as an identifier or a string, is kept as an identifier, quoted
 * when it must be, so SHOW prints `"$user", public` and `"Mixed"`. */
static bool set_quotes_items(const char *param)
{
  return strcasecmp(param, "search_path") == 0;
}

/* The value list of SET as text: names and literals joined by ", ". */
static char *set_value_text(arena_t *a, const sql_list_t *vals, bool quote)
{
  char *out = arena_strdup(a, "");
  for (int i = 0; i < sql_list_len(vals); i++) {
    const sql_expr_t *x = sql_list_at(vals, i);
    const char *v;
    if (x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_INT)
      v = arena_sprintf(a, "%lld", (long long)x->ex_int);
    else if (x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_BOOL)
      v = x->ex_bool ? "on" : "off";
    else if (x->ex_kind == SQL_E_COLUMN)
      v = x->ex_name;
    else
      v = x->ex_text ? x->ex_text : "";
    if (quote && (x->ex_kind == SQL_E_COLUMN ||
                  (x->ex_kind == SQL_E_LITERAL && x->ex_lit == SQL_LIT_STRING)))
      v = pgcat_quote_ident(v, a);
    out = arena_sprintf(a, "%s%s%s", out, i ? ", " : "", v);
  }
  return out;
}

int en_set(esession_t *s, const sql_stmt_t *st, char *tag, size_t tagcap, err_t *e)
{
  const sql_set_t *sv = st->st_set;
  snprintf(tag, tagcap, "SET");
  arena_t *a = arena_create(NULL, "set");
  const char *value;
  char lockt[32] = "0";  /* lock_timeout's default: [Parameters] LockTimeout */
  if (s->se_eng->en_lock_timeout_ms > 0)
    snprintf(lockt, sizeof lockt, "%lldms", (long long)s->se_eng->en_lock_timeout_ms);
  char workers[16];  /* max_parallel_workers_per_gather's: ThreadsPerQuery - 1 */
  snprintf(workers, sizeof workers, "%d",
           s->se_eng->en_threads > 1 ? s->se_eng->en_threads - 1 : 0);
  if (sv->sv_default) {
    value = strcmp(sv->sv_name, "lock_timeout") == 0 ? lockt
            : strcmp(sv->sv_name, "max_parallel_workers_per_gather") == 0 ? workers
            : strcmp(sv->sv_name, "search_path") == 0 ? "\"$user\", public"
            : strcmp(sv->sv_name, "datestyle") == 0 ? "ISO, MDY"
            : strcmp(sv->sv_name, "extra_float_digits") == 0 ? "1"
            : strcmp(sv->sv_name, "statement_timeout") == 0 ||
                    strcmp(sv->sv_name, "lock_timeout") == 0
                ? "0"
                : "";
  } else
    value = set_value_text(a, sv->sv_values, set_quotes_items(sv->sv_name));
  if (strcasecmp(sv->sv_name, "session_authorization") == 0 ||
      strcasecmp(sv->sv_name, "role") == 0) {
    arena_destroy(a);
    return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "SET %s is not supported yet", sv->sv_name);
  }
  int rc = en_guc_set(s, sv->sv_name, value, false, e);
  arena_destroy(a);
  return rc;
}

int en_show(esession_t *s, const sql_set_t *sv, erows_fn_t fn, void *ctx, err_t *e)
{
  const char *v = en_guc_get(s, sv->sv_name);
  if (!v) {
    if (strcmp(sv->sv_name, "all") == 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED, "SHOW ALL is not supported yet");
    return err_set(e, SQLSTATE_UNDEFINED_OBJECT, "unrecognized configuration parameter \"%s\"",
                   sv->sv_name);
  }
  arena_t *a = arena_create(NULL, "show");
  ty_t t = ty_plain(TY_TEXT);
  batch_t *b = batch_create(a, 1, &t, 1, e);
  int rc = CZ_ERR;
  if (b) {
    datum_t d = {.d_null = false};
    d.d_str.s_ptr = v;
    d.d_str.s_len = (uint32_t)strlen(v);
    vec_set(&b->b_cols[0], 0, &d);
    b->b_n = 1;
    rc = fn(ctx, b, e);
  }
  arena_destroy(a);
  return rc;
}

char *en_set_value_text(arena_t *a, const sql_set_t *sv)
{
  return set_value_text(a, sv->sv_values, set_quotes_items(sv->sv_name));
}
