/* sql_copy — the options of COPY, from either of its two spellings.
 *
 * Design notes: PostgreSQL accepts `COPY … WITH (FORMAT csv, HEADER true,
 * DELIMITER ',')`, a generic list of name-value pairs, and the older
 * `COPY … [WITH] CSV HEADER DELIMITER [AS] ','`. The grammar turns both
 * into calls of sql_copy_option with the option's name and its value as
 * text, so the checks (unknown, repeated and malformed options) are made
 * once, here, with PostgreSQL's messages and SQLSTATEs.
 */
#include <string.h>
#include <strings.h>

#include "sql/sql_int.h"

enum {
  SQL_CO_FORMAT = 1u << 0,
  SQL_CO_HEADER = 1u << 1,
  SQL_CO_DELIMITER = 1u << 2,
  SQL_CO_NULL = 1u << 3,
  SQL_CO_QUOTE = 1u << 4,
  SQL_CO_ESCAPE = 1u << 5,
  SQL_CO_ENCODING = 1u << 6,
  SQL_CO_FORCE_QUOTE = 1u << 7,
  SQL_CO_FORCE_NOT_NULL = 1u << 8,
  SQL_CO_FREEZE = 1u << 9,
};

/* PostgreSQL's boolean option values; no value means true. */
static int sql_copy_bool(sql_pstate_t *ps, const char *name, const char *v, int pos, bool *out)
{
  static const char *const yes[] = {"true", "on", "1", "yes", "t", "y"};
  static const char *const no[] = {"false", "off", "0", "no", "f", "n"};
  if (!v) {
    *out = true;
    return CZ_OK;
  }
  for (size_t i = 0; i < CZ_ARRAY_LEN(yes); i++) {
    if (strcasecmp(v, yes[i]) == 0) {
      *out = true;
      return CZ_OK;
    }
    if (strcasecmp(v, no[i]) == 0) {
      *out = false;
      return CZ_OK;
    }
  }
  return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "%s requires a Boolean value", name);
}

/* The value of an option that takes a string. */
static int sql_copy_string(sql_pstate_t *ps, const char *name, const char *v, int pos,
                           const char **out)
{
  if (!v)
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "%s requires a parameter", name);
  *out = v;
  return CZ_OK;
}

int sql_copy_option(sql_pstate_t *ps, sql_copy_t *c, const char *name, const char *value,
                    sql_list_t *list, bool star, int pos)
{
  static const struct {
    const char *name;
    unsigned bit;
  } opts[] = {
    {"format", SQL_CO_FORMAT},       {"header", SQL_CO_HEADER},
    {"delimiter", SQL_CO_DELIMITER}, {"null", SQL_CO_NULL},
    {"quote", SQL_CO_QUOTE},         {"escape", SQL_CO_ESCAPE},
    {"encoding", SQL_CO_ENCODING},   {"force_quote", SQL_CO_FORCE_QUOTE},
    {"force_not_null", SQL_CO_FORCE_NOT_NULL}, {"freeze", SQL_CO_FREEZE},
  };
  unsigned bit = 0;
  for (size_t i = 0; i < CZ_ARRAY_LEN(opts); i++)
    if (strcmp(opts[i].name, name) == 0)
      bit = opts[i].bit;
  if (!bit)
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "option \"%s\" not recognized", name);
  if (c->co_given & bit)
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "conflicting or redundant options");
  c->co_given |= bit;
  if ((list || star) && bit != SQL_CO_FORCE_QUOTE && bit != SQL_CO_FORCE_NOT_NULL)
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos, "%s does not take a column list", name);
  switch (bit) {
  case SQL_CO_FORMAT:
    if (value && strcasecmp(value, "text") == 0)
      c->co_format = SQL_COPY_TEXT;
    else if (value && strcasecmp(value, "csv") == 0)
      c->co_format = SQL_COPY_CSV;
    else if (value && strcasecmp(value, "binary") == 0)
      c->co_format = SQL_COPY_BINARY;
    else
      return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos, "COPY format \"%s\" not recognized",
                          value ? value : "");
    return CZ_OK;
  case SQL_CO_HEADER: return sql_copy_bool(ps, name, value, pos, &c->co_header);
  case SQL_CO_FREEZE: return sql_copy_bool(ps, name, value, pos, &c->co_freeze);
  case SQL_CO_DELIMITER: return sql_copy_string(ps, name, value, pos, &c->co_delimiter);
  case SQL_CO_NULL: return sql_copy_string(ps, name, value, pos, &c->co_null);
  case SQL_CO_QUOTE: return sql_copy_string(ps, name, value, pos, &c->co_quote);
  case SQL_CO_ESCAPE: return sql_copy_string(ps, name, value, pos, &c->co_escape);
  case SQL_CO_ENCODING: return sql_copy_string(ps, name, value, pos, &c->co_encoding);
  default: /* FORCE_QUOTE, FORCE_NOT_NULL */
    if (!list && !star)
      return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos,
                          "argument to option \"%s\" must be a list of column names", name);
    if (bit == SQL_CO_FORCE_QUOTE) {
      c->co_force_quote = list;
      c->co_force_quote_all = star;
    } else if (star)
      return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos,
                          "argument to option \"%s\" must be a list of column names", name);
    else
      c->co_force_not_null = list;
    return CZ_OK;
  }
}

/* A one-byte character option: the delimiter, the quote, the escape. */
static int sql_copy_char(sql_pstate_t *ps, const char *what, const char *v, int pos)
{
  if (v && strlen(v) != 1)
    return sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos,
                        "COPY %s must be a single one-byte character", what);
  return CZ_OK;
}

int sql_copy_check(sql_pstate_t *ps, sql_copy_t *c, int pos)
{
  bool csv = c->co_format == SQL_COPY_CSV;
  if (c->co_format == SQL_COPY_BINARY && (c->co_delimiter || c->co_null || c->co_header))
    return sql_error_at(ps, SQLSTATE_SYNTAX_ERROR, pos,
                        "cannot specify DELIMITER, NULL or HEADER in BINARY mode");
  if (sql_copy_char(ps, "delimiter", c->co_delimiter, pos) ||
      sql_copy_char(ps, "quote", c->co_quote, pos) ||
      sql_copy_char(ps, "escape", c->co_escape, pos))
    return CZ_ERR;
  if (c->co_delimiter && strchr("\r\n\\", c->co_delimiter[0]) && !csv)
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                        "COPY delimiter cannot be newline, carriage return or backslash");
  if (c->co_delimiter && (c->co_delimiter[0] == '\r' || c->co_delimiter[0] == '\n'))
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                        "COPY delimiter cannot be newline or carriage return");
  if (!csv && (c->co_quote || c->co_escape))
    return sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos,
                        "COPY %s available only in CSV mode", c->co_quote ? "quote" : "escape");
  if (csv && c->co_delimiter && c->co_delimiter[0] == (c->co_quote ? c->co_quote[0] : '"'))
    return sql_error_at(ps, SQLSTATE_INVALID_PARAMETER, pos,
                        "COPY delimiter and quote must be different");
  if ((c->co_force_quote || c->co_force_quote_all) && (!csv || c->co_from))
    return sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos,
                        "COPY force quote available only in CSV mode, using COPY TO");
  if (c->co_force_not_null && (!csv || !c->co_from))
    return sql_error_at(ps, SQLSTATE_FEATURE_NOT_SUPPORTED, pos,
                        "COPY force not null available only in CSV mode, using COPY FROM");
  return CZ_OK;
}
