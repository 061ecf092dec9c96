/* pgcat_int — what the files of pgcat share: the relation descriptor, the
 * row builder the fill functions write through, and the relations' list.
 *
 * Design notes: a fill function appends rows one value at a time, in the
 * relation's column order (pgcat_put_*, then pgcat_row_end); the builder
 * converts each value to the column's storage type and grows its vectors
 * by doubling in the scan's arena. A row with too few or too many values
 * is a bug, reported as XX000 rather than shifting columns silently.
 */
#ifndef CZ_PGCAT_INT_H
#define CZ_PGCAT_INT_H

#include "exec/expr.h"
#include "pgcat/pgcat.h"

typedef struct pgcat_col_s {
  const char *pc_name;
  pgcat_pgtype_t pc_type;
} pgcat_col_t;

typedef struct pgcat_rows_s pgcat_rows_t;
typedef int (*pgcat_fill_fn)(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e);

struct pgcat_rel_s {
  const char *pr_name;
  cat_oid_t pr_schema;       /* CAT_OID_PG_CATALOG or CAT_OID_INFORMATION_SCHEMA */
  cat_oid_t pr_oid;          /* PostgreSQL's OID for catalog tables; 12xxx / 13xxx views */
  char pr_kind;              /* 'r' or 'v' */
  int pr_ncols;
  const pgcat_col_t *pr_cols;
  pgcat_fill_fn pr_fill;
};

#define PGCAT_REL(name, schema, oid, kind, cols, fill) \
  {name, schema, oid, kind, (int)CZ_ARRAY_LEN(cols), cols, fill}

struct pgcat_rows_s {
  const pgcat_rel_t *pw_rel;
  arena_t *pw_arena;         /* vectors and strings */
  int pw_n;                  /* complete rows */
  int pw_cap;                /* rows the vectors hold */
  int pw_col;                /* next column of row pw_n */
  bool pw_bad;               /* a row had the wrong number of values */
  vec_t *pw_cols;
};

int pgcat_rows_init(pgcat_rows_t *w, const pgcat_rel_t *r, arena_t *a, err_t *e);
void pgcat_put_null(pgcat_rows_t *w);
void pgcat_put_int(pgcat_rows_t *w, int64_t v);   /* integer and oid columns */
void pgcat_put_bool(pgcat_rows_t *w, bool v);
void pgcat_put_interval_secs(pgcat_rows_t *w, int64_t secs); /* an interval of seconds */
void pgcat_put_f64(pgcat_rows_t *w, double v);
void pgcat_put_text(pgcat_rows_t *w, const char *s); /* copied; NULL puts NULL */
void pgcat_put_char(pgcat_rows_t *w, char c);        /* "char": '\0' is the empty string */
/* The fill function of a relation that is always empty here (no row
 * level security, no publications, …): real, queryable, without rows. */
int pgcat_fill_empty(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e);
/* Ends the row (CZ_ERR, XX000, when it had the wrong number of values). */
int pgcat_row_end(pgcat_rows_t *w, err_t *e);

/* The relations of each file. */
extern const pgcat_rel_t pgcat_rels_class[];      /* pgcat_class.c */
extern const int pgcat_nrels_class;
extern const pgcat_rel_t pgcat_rels_type[];       /* pgcat_type.c */
extern const int pgcat_nrels_type;
extern const pgcat_rel_t pgcat_rels_misc[];       /* pgcat_misc.c */
extern const int pgcat_nrels_misc;
extern const pgcat_rel_t pgcat_rels_tz[];         /* pgcat_tz.c */
extern const int pgcat_nrels_tz;
extern const pgcat_rel_t pgcat_rels_infoschema[]; /* pgcat_infoschema.c */
extern const int pgcat_nrels_infoschema;
extern const pgcat_rel_t pgcat_rels_seq[];        /* pgcat_seq.c */
extern const int pgcat_nrels_seq;
extern const pgcat_rel_t pgcat_rels_view[];       /* pgcat_view.c */
extern const int pgcat_nrels_view;
/* pgcat_view.c: pg_views' and information_schema.views' rows, and a
 * view's definition as pg_get_viewdef shows it. */
int pgcat_fill_pg_views(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e);
int pgcat_fill_is_views(pgcat_rows_t *w, const pgcat_env_t *env, err_t *e);
char *pgcat_viewdef(const pgcat_env_t *env, const cat_view_t *w, arena_t *a);
/* _cz_view_check (WITH CHECK OPTION's row check, called by the binder). */
extern const xfunc_def_t pgcat_view_funcs[];
extern const int pgcat_view_nfuncs;
extern const pgcat_rel_t pgcat_rels_constraint[]; /* pgcat_constraint.c */
extern const int pgcat_nrels_constraint;
/* The catalogs pg_dump reads that hold no rows here, and its functions
 * (set_config, acldefault, …): pgcat_dump.c. */
extern const pgcat_rel_t pgcat_rels_dump[];
extern const int pgcat_nrels_dump;
extern const xfunc_def_t pgcat_dump_funcs[];
extern const int pgcat_dump_nfuncs;

/* The functions pgcat registers (pgcat_func.c). pg_proc lists the whole
 * function registry (exec's and these) with OIDs PGCAT_FIRST_PROC_OID +
 * registry index (xfunc_at). */
extern const xfunc_def_t pgcat_funcs[];
extern const int pgcat_nfuncs;
/* Multi-dimensional arrays in their text form (pgcat_array.c). */
typedef struct pgcat_arr_s {
  int pa_ndim;                     /* 0 for the empty array */
  int pa_dims[PGCAT_ARRAY_MAXDIM]; /* lengths; lower bounds are 1 */
  int pa_n;                        /* elements, row-major */
  char **pa_items;                 /* NUL-terminated; NULL for SQL NULL */
} pgcat_arr_t;
/* Parses '{…}' (any nesting up to 6 levels, rectangular) into r, in a's
 * memory; 22P02 when malformed, 54000 past 6 dimensions. */
int pgcat_arr_parse(arena_t *a, const char *s, size_t len, pgcat_arr_t *r, err_t *e);
/* r's canonical text (PostgreSQL's array_out) in a; NULL with 54000 past
 * XE_MAX_FIELD bytes. */
char *pgcat_arr_text(arena_t *a, const pgcat_arr_t *r, err_t *e);
/* ARRAY[ARRAY[…]], a[i][j], array_ndims, array_dims, array_length,
 * cardinality. */
extern const xfunc_def_t pgcat_array_funcs[];
extern const int pgcat_array_nfuncs;
/* Composite values as PostgreSQL's text form (pgcat_record.c): the text
 * of a record of n fields (NULL fields where fields[i] is NULL), in a;
 * _cz_record_field(rec, k) reads the k-th field back as text. */
char *pgcat_record_text(arena_t *a, const char *const *fields, int n);
extern const xfunc_def_t pgcat_record_funcs[];
extern const int pgcat_record_nfuncs;
/* json_object / jsonb_object of text arrays (pgcat_json_object.c). */
extern const xfunc_def_t pgcat_json_object_funcs[];
extern const int pgcat_json_object_nfuncs;
/* The regexp functions (regexp_like, the binder's form of the ~ operators,
 * regexp_replace, regexp_match, …: pgcat_regex_func.c). */
extern const xfunc_def_t pgcat_regex_funcs[];
extern const int pgcat_regex_nfuncs;
/* The size functions (pg_relation_size, pg_table_size, pg_indexes_size,
 * pg_total_relation_size, pg_database_size, pg_tablespace_size,
 * pg_size_pretty, pg_size_bytes: pgcat_size.c). */
extern const xfunc_def_t pgcat_size_funcs[];
extern const int pgcat_size_nfuncs;
/* The sequence functions (nextval, currval, setval, lastval, Virtuoso's
 * sequence_next, pg_get_serial_sequence: pgcat_seq_func.c). */
extern const xfunc_def_t pgcat_seq_funcs[];
extern const int pgcat_seq_nfuncs;
/* The environment of the expression context's session (55000 outside one). */
const pgcat_env_t *pgcat_env_get(xctx_t *c, err_t *e);
#define PGCAT_FIRST_PROC_OID 14000
/* PostgreSQL's OID of a function argument or result type (an xfunc_def_t
 * fd_args / fd_result code; the pseudo types are "any", 2276). */
uint32_t pgcat_fn_type(int t);

/* ---- names and visibility (pgcat_name.c) -------------------------------- */

/* The role's name, or NULL. */
const char *pgcat_role_name(const pgcat_env_t *env, cat_oid_t oid);
/* Whether schema oid is on env's search path (pg_catalog always is). */
bool pgcat_schema_in_path(const pgcat_env_t *env, cat_oid_t schema);
/* Whether a relation (table, index or pgcat relation) of this name in
 * this schema is what its bare name resolves to. */
bool pgcat_relation_visible(const pgcat_env_t *env, cat_oid_t schema, const char *name);
/* A stored expression's text (a column default) with its 'name'::regclass
 * constants as regclass output prints them under env's search_path. */
const char *pgcat_expr_text(const pgcat_env_t *env, const char *text, arena_t *a);
/* The relations the 'name'::regclass constants of such a text name now
 * (at most max, in out); how many. */
int pgcat_expr_regclasses(const pgcat_env_t *env, const char *text, arena_t *a, cat_oid_t *out,
                          int max);
/* The owner of built-in objects (pg_catalog, types, the database): the
 * first superuser, which is the role the database was created with. */
cat_oid_t pgcat_builtin_owner(const pgcat_env_t *env);
/* The schema's name, or NULL. */
const char *pgcat_schema_name(const pgcat_env_t *env, cat_oid_t oid);

/* ---- types (pgcat_type.c) ---------------------------------------------- */

/* pg_type.typname of a built-in type ("int4", "_text"), or NULL. */
const char *pgcat_type_name(uint32_t oid, arena_t *a);
/* Whether name is one of the built-in types' I/O functions pg_type names
 * (int4in, array_out, numerictypmodin …): what regproc values refer to. */
bool pgcat_type_func_exists(const char *name);
/* pg_type.typstorage of a built-in type; 0 when unknown. */
char pgcat_type_storage(uint32_t oid);
/* Whether a built-in type has this OID. */
bool pgcat_type_exists(uint32_t oid);
/* The type's OID by its pg_type name ("int4", "_text") or SQL name
 * ("integer", "character varying"); 0 when unknown. */
uint32_t pgcat_type_by_name(const char *name);

/* ---- index and constraint text (pgcat_class.c) -------------------------- */

char *pgcat_indexdef(const pgcat_env_t *env, const cat_index_t *ix, int column, arena_t *a);
/* pg_get_constraintdef (pgcat_constraint.c); pretty: psql's form of a CHECK. */
char *pgcat_constraintdef(const pgcat_env_t *env, cat_oid_t conoid, bool pretty, arena_t *a);
/* The pg_rewrite OID of a view's _RETURN rule (derived: the view's OID
 * with the top bit set, which no catalog object's OID has). */
static inline cat_oid_t pgcat_rule_oid(cat_oid_t view) { return view | 0x80000000u; }
/* The pg_attrdef OID of a column's default (see README: derived). */
cat_oid_t pgcat_attrdef_oid(cat_oid_t table, int attnum);


#endif /* CZ_PGCAT_INT_H */
