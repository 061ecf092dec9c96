/* sp_builtin — the built-in functions and aggregates of SPARQL 1.1
 * (BuiltInCall and Aggregate, spec §19.8 [121], [127]): their spellings as
 * printed (Jena's: lower case, or the spec's camel case for sameTerm,
 * isIRI, langMatches …) and how many arguments each takes. The scanner
 * makes one BUILTIN (or AGG) token of any of them, so the grammar stays
 * small; sp_expr_builtin checks the count.
 */
#include <string.h>
#include <strings.h>

#include "sparql/sparql_int.h"

typedef struct sp_builtin_s {
  const char *bi_name;   /* canonical spelling */
  int bi_min, bi_max;    /* argument counts; bi_max -1 = any */
  bool bi_agg;
} sp_builtin_t;

static const sp_builtin_t sp_builtins[] = {
  { "str", 1, 1, false }, { "lang", 1, 1, false }, { "langMatches", 2, 2, false },
  { "datatype", 1, 1, false }, { "bound", 1, 1, false }, { "iri", 1, 1, false },
  { "uri", 1, 1, false }, { "bnode", 0, 1, false }, { "rand", 0, 0, false },
  { "abs", 1, 1, false }, { "ceil", 1, 1, false }, { "floor", 1, 1, false },
  { "round", 1, 1, false }, { "concat", 0, -1, false }, { "strlen", 1, 1, false },
  { "ucase", 1, 1, false }, { "lcase", 1, 1, false }, { "encode_for_uri", 1, 1, false },
  { "contains", 2, 2, false }, { "strstarts", 2, 2, false }, { "strends", 2, 2, false },
  { "strbefore", 2, 2, false }, { "strafter", 2, 2, false }, { "year", 1, 1, false },
  { "month", 1, 1, false }, { "day", 1, 1, false }, { "hours", 1, 1, false },
  { "minutes", 1, 1, false }, { "seconds", 1, 1, false }, { "timezone", 1, 1, false },
  { "tz", 1, 1, false }, { "now", 0, 0, false }, { "uuid", 0, 0, false },
  { "struuid", 0, 0, false }, { "md5", 1, 1, false }, { "sha1", 1, 1, false },
  { "sha256", 1, 1, false }, { "sha384", 1, 1, false }, { "sha512", 1, 1, false },
  { "coalesce", 0, -1, false }, { "if", 3, 3, false }, { "strlang", 2, 2, false },
  { "strdt", 2, 2, false }, { "sameTerm", 2, 2, false }, { "isIRI", 1, 1, false },
  { "isURI", 1, 1, false }, { "isBlank", 1, 1, false }, { "isLiteral", 1, 1, false },
  { "isNumeric", 1, 1, false }, { "regex", 2, 3, false }, { "substr", 2, 3, false },
  { "replace", 3, 4, false },
  { "count", 1, 1, true }, { "sum", 1, 1, true }, { "min", 1, 1, true },
  { "max", 1, 1, true }, { "avg", 1, 1, true }, { "sample", 1, 1, true },
};

const char *sp_builtin_find(const char *word, bool *agg)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(sp_builtins); i++)
    if (strcasecmp(word, sp_builtins[i].bi_name) == 0) {
      *agg = sp_builtins[i].bi_agg;
      return sp_builtins[i].bi_name;
    }
  return NULL;
}

bool sp_builtin_arity(const char *canon, int *min, int *max)
{
  for (size_t i = 0; i < CZ_ARRAY_LEN(sp_builtins); i++)
    if (strcmp(canon, sp_builtins[i].bi_name) == 0) {
      *min = sp_builtins[i].bi_min;
      *max = sp_builtins[i].bi_max;
      return true;
    }
  return false;
}
