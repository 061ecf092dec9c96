/* pgcat_rel — the list of virtual relations, lookups by name and OID, and
 * the accessors of their descriptors.
 *
 * Design notes: the relations are constant tables in the files that fill
 * them; this file only strings those tables together. Lookups walk the
 * list (about forty entries, once per statement per name).
 */
#include <string.h>
#include <strings.h>

#include "pgcat/pgcat_int.h"

typedef struct pgcat_group_s {
  const pgcat_rel_t *pg_rels;
  const int *pg_n;
} pgcat_group_t;

static const pgcat_group_t pgcat_groups[] = {
  {pgcat_rels_class, &pgcat_nrels_class},
  {pgcat_rels_type, &pgcat_nrels_type},
  {pgcat_rels_misc, &pgcat_nrels_misc},
  {pgcat_rels_tz, &pgcat_nrels_tz},
  {pgcat_rels_infoschema, &pgcat_nrels_infoschema},
  {pgcat_rels_seq, &pgcat_nrels_seq},
  {pgcat_rels_view, &pgcat_nrels_view},
  {pgcat_rels_constraint, &pgcat_nrels_constraint},
  {pgcat_rels_dump, &pgcat_nrels_dump},
};

int pgcat_nrels(void)
{
  int n = 0;
  for (size_t g = 0; g < CZ_ARRAY_LEN(pgcat_groups); g++)
    n += *pgcat_groups[g].pg_n;
  return n;
}

const pgcat_rel_t *pgcat_rel_at(int i)
{
  for (size_t g = 0; g < CZ_ARRAY_LEN(pgcat_groups); g++) {
    if (i < *pgcat_groups[g].pg_n)
      return &pgcat_groups[g].pg_rels[i];
    i -= *pgcat_groups[g].pg_n;
  }
  return NULL;
}

const pgcat_rel_t *pgcat_find(const char *schema, const char *name)
{
  cat_oid_t ns = CAT_OID_PG_CATALOG;
  if (schema) {
    if (strcmp(schema, "pg_catalog") == 0)
      ns = CAT_OID_PG_CATALOG;
    else if (strcmp(schema, "information_schema") == 0)
      ns = CAT_OID_INFORMATION_SCHEMA;
    else
      return NULL;
  }
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    if (r->pr_schema == ns && strcmp(r->pr_name, name) == 0)
      return r;
  }
  return NULL;
}

bool pgcat_is_rel(const void *p)
{
  /* Range checks on the integer values: comparing pointers into different
   * arrays is not defined in C, comparing their addresses as integers is. */
  uintptr_t x = (uintptr_t)p;
  for (size_t g = 0; g < CZ_ARRAY_LEN(pgcat_groups); g++) {
    uintptr_t lo = (uintptr_t)pgcat_groups[g].pg_rels;
    uintptr_t hi = (uintptr_t)(pgcat_groups[g].pg_rels + *pgcat_groups[g].pg_n);
    if (x >= lo && x < hi)
      return true;
  }
  return false;
}

const pgcat_rel_t *pgcat_find_oid(cat_oid_t oid)
{
  for (int i = 0, n = pgcat_nrels(); i < n; i++) {
    const pgcat_rel_t *r = pgcat_rel_at(i);
    if (r->pr_oid == oid)
      return r;
  }
  return NULL;
}

const char *pgcat_rel_name(const pgcat_rel_t *r) { return r->pr_name; }

const char *pgcat_rel_schema(const pgcat_rel_t *r)
{
  return r->pr_schema == CAT_OID_PG_CATALOG ? "pg_catalog" : "information_schema";
}

cat_oid_t pgcat_rel_schema_oid(const pgcat_rel_t *r) { return r->pr_schema; }
cat_oid_t pgcat_rel_oid(const pgcat_rel_t *r) { return r->pr_oid; }
char pgcat_rel_kind(const pgcat_rel_t *r) { return r->pr_kind; }
int pgcat_ncols(const pgcat_rel_t *r) { return r->pr_ncols; }
const char *pgcat_col_name(const pgcat_rel_t *r, int i) { return r->pr_cols[i].pc_name; }
pgcat_pgtype_t pgcat_col_pgtype(const pgcat_rel_t *r, int i) { return r->pr_cols[i].pc_type; }

ty_t pgcat_col_type(const pgcat_rel_t *r, int i)
{
  return pgcat_pg_type_storage(r->pr_cols[i].pc_type);
}

int pgcat_find_col(const pgcat_rel_t *r, const char *name)
{
  for (int i = 0; i < r->pr_ncols; i++)
    if (strcmp(r->pr_cols[i].pc_name, name) == 0)
      return i;
  return -1;
}

const char *pgcat_setting(const pgcat_env_t *env, const char *name)
{
  for (int i = 0; i < env->pe_nsettings; i++)
    if (strcasecmp(env->pe_settings[i].pst_name, name) == 0)
      return env->pe_settings[i].pst_value;
  return NULL;
}
