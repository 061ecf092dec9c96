/* Storage parameters of CREATE TABLE / CREATE INDEX … WITH (name = value):
 * the one Cadenza has is layout (row | column: which leaf layout the
 * index's B-tree gets, btree/README.md "Column leaves"). PostgreSQL
 * rejects parameters it does not know, and so does this: its wording and
 * SQLSTATE (22023) for an unknown or repeated parameter and a bad value. */
#include <strings.h>

#include "sql/sql_int.h"

int sql_rel_option(sql_pstate_t *ps, int prev, const char *name, const char *value, int pos,
                   int *layout)
{
  if (strcasecmp(name, "layout") != 0)
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos, "unrecognized parameter \"%s\"", name);
  if (prev)
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                        "parameter \"layout\" specified more than once");
  /* a parameter written without a value is "true", as PostgreSQL reads it */
  const char *v = value ? value : "true";
  if (strcasecmp(v, "row") == 0)
    *layout = 'r';
  else if (strcasecmp(v, "column") == 0)
    *layout = 'c';
  else
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                        "invalid value for enum option \"layout\": %s", v);
  return CZ_OK;
}
