/* pgcat_tz — pg_timezone_names and pg_timezone_abbrevs: the zones of the
 * system's time zone database with their abbreviation, offset and DST flag
 * now, and the fixed abbreviations the date/time input knows (types'
 * ty_tz.c and ty_time.c). */
#include <time.h>

#include "pgcat/pgcat_int.h"

static const pgcat_col_t pg_timezone_names_cols[] = {
  {"name", PGT_TEXT}, {"abbrev", PGT_TEXT}, {"utc_offset", PGT_INTERVAL}, {"is_dst", PGT_BOOL},
};

typedef struct tz_fill_s {
  pgcat_rows_t *tf_w;
  int64_t tf_now;   /* Unix seconds */
  bool tf_bad;
  err_t *tf_e;
} tz_fill_t;

static void pgcat_tz_name_row(void *ctx, const char *name)
{
  tz_fill_t *f = ctx;
  if (f->tf_bad)
    return;
  const ty_tz_t *z = ty_tz_find(name);
  if (!z)
    return;
  const char *abbr;
  bool dst;
  int32_t off = ty_tz_offset_at(z, f->tf_now, &abbr, &dst);
  pgcat_put_text(f->tf_w, name);
  pgcat_put_text(f->tf_w, abbr);
  pgcat_put_interval_secs(f->tf_w, off);
  pgcat_put_bool(f->tf_w, dst);
  if (pgcat_row_end(f->tf_w, f->tf_e) != CZ_OK)
    f->tf_bad = true;
}

static int pgcat_fill_pg_timezone_names(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  (void)env;
  tz_fill_t f = {.tf_w = w, .tf_now = (int64_t)time(NULL), .tf_bad = false, .tf_e = e};
  ty_tz_each_name(pgcat_tz_name_row, &f);
  return f.tf_bad ? CZ_ERR : CZ_OK;
}

static const pgcat_col_t pg_timezone_abbrevs_cols[] = {
  {"abbrev", PGT_TEXT}, {"utc_offset", PGT_INTERVAL}, {"is_dst", PGT_BOOL},
};

static int pgcat_fill_pg_timezone_abbrevs(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e)
{
  (void)env;
  char name[8];
  int32_t east;
  bool dst;
  for (int i = 0; ty_tz_abbrev_at(i, name, &east, &dst); i++) {
    pgcat_put_text(w, name);
    pgcat_put_interval_secs(w, east);
    pgcat_put_bool(w, dst);
    if (pgcat_row_end(w, e) != CZ_OK)
      return CZ_ERR;
  }
  return CZ_OK;
}

const pgcat_rel_t pgcat_rels_tz[] = {
  PGCAT_REL("pg_timezone_names", CAT_OID_PG_CATALOG, 12020, 'v', pg_timezone_names_cols,
            pgcat_fill_pg_timezone_names),
  PGCAT_REL("pg_timezone_abbrevs", CAT_OID_PG_CATALOG, 12021, 'v', pg_timezone_abbrevs_cols,
            pgcat_fill_pg_timezone_abbrevs),
};
const int pgcat_nrels_tz = (int)CZ_ARRAY_LEN(pgcat_rels_tz);
