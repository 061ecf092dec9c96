/* rdf — RDF terms, the readers and writers of RDF and SPARQL result
 * formats, and the 64-bit term ids of inline values.
 *
 * Design notes: this header is the module's contract (see README.md). A
 * term is a view (pointers and lengths) into memory someone else owns: the
 * reader's batch buffer during a callback, the caller's strings otherwise.
 * Nothing here touches storage or SQL; the quad store and the dictionaries
 * build on these pieces.
 */
#ifndef CZ_RDF_H
#define CZ_RDF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"
#include "pgcat/pgcat.h"
#include "txn/txn.h"
#include "util/util.h"

/* ---- terms (rdf_term.c) ------------------------------------------------- */

typedef enum rdf_kind_e {
  RDF_NONE = 0,    /* no term: the default graph, an unbound variable */
  RDF_IRI = 1,     /* absolute IRI (resolved by the reader) */
  RDF_BNODE = 2,   /* blank node label, without "_:" */
  RDF_LITERAL = 3, /* lexical form with a datatype or a language tag */
} rdf_kind_t;

/* One RDF term. Strings are not NUL-terminated unless said so. A literal
 * with rt_lang_len > 0 is an rdf:langString; a literal with no datatype
 * (rt_dt == NULL) is an xsd:string. */
typedef struct rdf_term_s {
  rdf_kind_t rt_kind;
  const char *rt_str; /* IRI, blank node label or lexical form */
  size_t rt_len;
  const char *rt_dt; /* literal datatype IRI; NULL = xsd:string or langString */
  size_t rt_dt_len;
  const char *rt_lang; /* language tag as written (compare case-insensitively) */
  size_t rt_lang_len;
} rdf_term_t;

/* A quad; rq_g.rt_kind == RDF_NONE is the default graph. */
typedef struct rdf_quad_s {
  rdf_term_t rq_s, rq_p, rq_o, rq_g;
} rdf_quad_t;

#define RDF_NS_XSD "http://www.w3.org/2001/XMLSchema#"
#define RDF_NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define RDF_XSD_STRING RDF_NS_XSD "string"
#define RDF_LANGSTRING RDF_NS_RDF "langString"

rdf_term_t rdf_iri(const char *iri);
rdf_term_t rdf_bnode(const char *label);
/* A literal; dt and lang may be NULL (xsd:string). NUL-terminated inputs. */
rdf_term_t rdf_literal(const char *lex, const char *dt, const char *lang);
/* Same kind, same strings (datatype xsd:string written out equals none;
 * language tags compare case-insensitively, as RDF 1.1 says). */
bool rdf_term_equal(const rdf_term_t *a, const rdf_term_t *b);
bool rdf_quad_equal(const rdf_quad_t *a, const rdf_quad_t *b);
/* The term written s[0..n) in N-Triples form (`<iri>`, `_:b`, `"lex"`,
 * `"lex"@en`, `"lex"^^<dt>`; rdf_term(id)'s output), escapes decoded
 * (rdf_term_nt.c). The term points into s, or into a where an escape had
 * to be decoded. 22P02 for anything else. */
int rdf_term_from_nt(arena_t *a, const char *s, size_t n, rdf_term_t *t, err_t *e);

/* ---- xsd datatypes (rdf_xsd.c) ------------------------------------------ */

/* The datatypes with a value space the engine knows. The integer-derived
 * types follow XML Schema 1.1 part 2 section 3.4.13 onwards. */
typedef enum rdf_xsd_e {
  XSD_OTHER = 0, /* any other datatype: no validation, no value */
  XSD_STRING,
  XSD_LANGSTRING,
  XSD_BOOLEAN,
  XSD_DECIMAL,
  XSD_INTEGER,
  XSD_LONG,
  XSD_INT,
  XSD_SHORT,
  XSD_BYTE,
  XSD_NON_NEGATIVE_INTEGER,
  XSD_POSITIVE_INTEGER,
  XSD_NON_POSITIVE_INTEGER,
  XSD_NEGATIVE_INTEGER,
  XSD_UNSIGNED_LONG,
  XSD_UNSIGNED_INT,
  XSD_UNSIGNED_SHORT,
  XSD_UNSIGNED_BYTE,
  XSD_DOUBLE,
  XSD_FLOAT,
  XSD_DATE,
  XSD_DATETIME,
  XSD_COUNT_
} rdf_xsd_t;

/* The datatype of a literal term (XSD_STRING for a plain literal). */
rdf_xsd_t rdf_xsd_of(const rdf_term_t *lit);
rdf_xsd_t rdf_xsd_from_iri(const char *iri, size_t len);
/* The full IRI of a known datatype (NUL-terminated, static). */
const char *rdf_xsd_iri(rdf_xsd_t t);
bool rdf_xsd_is_integer(rdf_xsd_t t); /* xsd:integer or a type derived from it */
bool rdf_xsd_is_numeric(rdf_xsd_t t);

/* The value of a literal of a known type. Integers of up to 18 digits are
 * in xv_int; bigger ones are valid but set xv_big and have no binary value
 * (their canonical form works on the digits). Decimals are xv_int scaled
 * by xv_scale, with the same 18-digit limit. */
typedef struct rdf_xsd_val_s {
  rdf_xsd_t xv_type;
  bool xv_bool;
  bool xv_big;     /* integer/decimal beyond 19 significant digits: no i64 */
  int64_t xv_int;  /* integer value; for decimals the unscaled digits */
  int xv_scale;    /* decimal: digits after the point (value = xv_int / 10^scale) */
  double xv_dbl;   /* double and float (float rounded to float precision) */
  int64_t xv_days; /* date: days since 0001-01-01; dateTime: day of the local time */
  int64_t xv_ms;   /* dateTime: milliseconds into the day (local time) */
  int xv_frac_digits; /* dateTime: fraction digits beyond milliseconds present */
  bool xv_has_tz;
  int xv_tz_min; /* timezone offset in minutes, -840..840 */
} rdf_xsd_val_t;

/* Validates lex as a lexical form of t (XML Schema 1.1 lexical spaces, with
 * the ranges of the derived integer types) and fills *v. CZ_ERR with
 * 22P02 (bad syntax) or 22003 (out of the type's range) otherwise. Types
 * without a value space (XSD_OTHER, strings) are always valid. */
int rdf_xsd_parse(rdf_xsd_t t, const char *lex, size_t len, rdf_xsd_val_t *v, err_t *e);
/* The canonical lexical form of a valid value (XML Schema 1.0 canonical
 * representations, which SPARQL engines print: "1.0" for a decimal,
 * "1.0E0" for a double, "true", dates as written with "Z" for UTC).
 * Writes at most cap-1 bytes and a NUL; returns the length, or -1 if cap
 * is too small (64 bytes are always enough except for big integers and
 * decimals, which need len + 3). */
int rdf_xsd_canonical(const rdf_xsd_val_t *v, const char *lex, size_t len, char *out, size_t cap);

/* ---- 64-bit term ids of inline values (rdf_id.c) -------------------------- */

/* The bit layout and the ordering guarantees are in README.md ("Term ids").
 * Id 0 is no term. */
typedef uint64_t rdf_id_t;

typedef enum rdf_id_tag_e {
  RDF_ID_NONE = 0,
  RDF_ID_BNODE = 1,   /* blank-node dictionary id */
  RDF_ID_IRI = 2,     /* IRI dictionary id */
  RDF_ID_LITDICT = 3, /* literal dictionary id */
  RDF_ID_BOOLEAN = 4,
  RDF_ID_DATE = 5,
  RDF_ID_DATETIME = 6,
  RDF_ID_NUMERIC = 8, /* the high bit: numbers of every xsd numeric type */
} rdf_id_tag_t;

#define RDF_ID_DICT_MAX ((UINT64_C(1) << 60) - 1)

rdf_id_tag_t rdf_id_tag(rdf_id_t id);
/* Dictionary ids: n in 1..RDF_ID_DICT_MAX. */
rdf_id_t rdf_id_make_dict(rdf_id_tag_t tag, uint64_t n);
uint64_t rdf_id_dict_number(rdf_id_t id);
bool rdf_id_is_inline(rdf_id_t id);
/* The inline id of a literal, or 0 when it does not fit and belongs in the
 * literal dictionary: not a numeric, boolean, date or dateTime literal; an
 * invalid lexical form; a lexical form that is not the canonical one (so the
 * id decodes to exactly the term it came from); a value outside the ranges
 * of README.md. Never fails otherwise. */
rdf_id_t rdf_id_encode_literal(const rdf_term_t *lit);
/* The literal of an inline id: the canonical lexical form into buf (64
 * bytes are enough) and the datatype; the term points into buf and static
 * strings. CZ_ERR (22P02) for an id that is not inline or is malformed. */
int rdf_id_decode_literal(rdf_id_t id, char *buf, size_t cap, rdf_term_t *out, err_t *e);
/* Numeric ids with the datatype bits cleared: equal for equal values of
 * integer/decimal/double/float (SPARQL's numeric promotion), and ordered
 * as their values (README.md says when this is exact). */
rdf_id_t rdf_id_numeric_key(rdf_id_t id);

/* ---- input bytes (rdf_input.c) -------------------------------------------- */

/* Progress of one reader, updated as it goes (read them from the callback,
 * or from another thread as relaxed values: a display only). */
typedef struct rdf_progress_s {
  uint64_t rp_bytes_in;    /* bytes read from the file (compressed if gzip) */
  uint64_t rp_file_size;   /* the file's size, 0 if not a regular file */
  uint64_t rp_statements;  /* statements delivered */
  uint64_t rp_errors;      /* malformed statements (skipped in skip mode) */
} rdf_progress_t;

/* ---- reader (rdf_reader.c) ------------------------------------------------ */

typedef enum rdf_syntax_e {
  RDF_SYNTAX_GUESS = 0, /* from the file name (.nt .nq .ttl .trig, before .gz) */
  RDF_SYNTAX_NTRIPLES,
  RDF_SYNTAX_NQUADS,
  RDF_SYNTAX_TURTLE,
  RDF_SYNTAX_TRIG,
  RDF_SYNTAX_JSONLD,    /* written only (rdf_write_jsonld.c: expanded form); the reader refuses it */
} rdf_syntax_t;

/* A batch of quads; the terms point into the reader's buffer and are valid
 * until the callback returns. A non-zero return stops the reading with
 * that status (the reader's error is then the callback's e). */
typedef int (*rdf_quad_fn)(void *ctx, const rdf_quad_t *quads, size_t n, err_t *e);

typedef struct rdf_read_opts_s {
  rdf_syntax_t ro_syntax;
  const char *ro_base;          /* base IRI; NULL = the file's file:// IRI */
  const char *ro_default_graph; /* graph IRI of triples; NULL = default graph */
  bool ro_skip_bad;             /* skip malformed statements (else stop at the first) */
  size_t ro_batch;              /* quads per callback; 0 = 4096 */
  uint64_t ro_bnode_scope;      /* blank-node scope number; 0 = a fresh one */
  rdf_quad_fn ro_fn;
  void *ro_ctx;
  rdf_progress_t *ro_progress;  /* may be NULL */
} rdf_read_opts_t;

/* Reads a file (plain or gzip, by its first bytes) and delivers its quads.
 * A malformed statement is an error "<file>:<line>:<col>: <message>"
 * (SQLSTATE 22P02): with ro_skip_bad it is counted in rp_errors, reported
 * through log_write at warning level, and reading goes on; otherwise
 * reading stops there (the good statements before it have been
 * delivered, none after; the caller decides what to keep). I/O errors
 * are 58030. README.md has the details per syntax. */
int rdf_read_file(const char *path, const rdf_read_opts_t *o, err_t *e);
/* The same over a byte string (name appears in error messages and is the
 * base when ro_base is NULL; gzip detected too). */
int rdf_read_mem(const char *name, const void *data, size_t len, const rdf_read_opts_t *o, err_t *e);
rdf_syntax_t rdf_syntax_from_name(const char *name);
/* A fresh blank-node scope number (process-wide counter). */
uint64_t rdf_bnode_scope_new(void);

/* ---- output (rdf_out.c) ------------------------------------------------- */

/* Writers hand their text to a sink in pieces; a non-zero return stops the
 * writer with that status. The sink sees every byte exactly once. */
typedef int (*rdf_sink_fn)(void *ctx, const char *buf, size_t len);

typedef struct rdf_out_s rdf_out_t;
/* Buffers up to 16 KB and flushes to the sink. */
rdf_out_t *rdf_out_new(rdf_sink_fn fn, void *ctx);
int rdf_out_flush(rdf_out_t *o);
/* Flushes and frees; returns the first sink error seen. */
int rdf_out_free(rdf_out_t *o);
int rdf_out_status(const rdf_out_t *o);

/* ---- RDF writers (rdf_write_nt.c, rdf_write_ttl.c) ------------------------ */

typedef struct rdf_writer_s rdf_writer_t;
/* A writer of syntax (not GUESS). Turtle and TriG write the prefixes given
 * (pairs of prefix name and namespace IRI, NULL-terminated, may be NULL)
 * and group consecutive quads with the same graph and subject. */
rdf_writer_t *rdf_writer_new(rdf_syntax_t syntax, rdf_sink_fn fn, void *ctx,
                             const char *const *prefixes);
/* A triple format writes the quad's triple and ignores its graph. */
int rdf_writer_quad(rdf_writer_t *w, const rdf_quad_t *q);
/* Ends the last group, flushes, frees; returns the first error. */
int rdf_writer_finish(rdf_writer_t *w);
/* Hands what is buffered to the sink now (a stream sent in steps). */
int rdf_writer_flush(rdf_writer_t *w);

/* ---- SPARQL results writers (rdf_results_*.c) ------------------------------ */

typedef enum rdf_results_fmt_e {
  RDF_RESULTS_JSON = 1, /* application/sparql-results+json */
  RDF_RESULTS_XML,      /* application/sparql-results+xml */
  RDF_RESULTS_CSV,      /* text/csv */
  RDF_RESULTS_TSV,      /* text/tab-separated-values */
} rdf_results_fmt_t;

typedef struct rdf_results_s rdf_results_t;
rdf_results_t *rdf_results_new(rdf_results_fmt_t fmt, rdf_sink_fn fn, void *ctx);
/* A SELECT result: the header, then rows (values[i] of kind RDF_NONE is
 * unbound), then finish. Each row goes to the sink when the buffer fills. */
int rdf_results_head(rdf_results_t *r, const char *const *vars, size_t nvars);
int rdf_results_row(rdf_results_t *r, const rdf_term_t *values);
/* An ASK result instead of head/rows. JSON and XML as the W3C formats
 * say; CSV and TSV (which define no boolean form) write a header line
 * ("_askResult", "?_askResult" in TSV) and a line "true" or "false". */
int rdf_results_boolean(rdf_results_t *r, bool value);
int rdf_results_finish(rdf_results_t *r);
/* Marks a SELECT result as cut after max_rows rows (the HTTP server's
 * ResultSetMaxRows): finish then writes JSON's top-level
 * "truncated":true and "maxRows", XML's <cz:truncated maxRows="…"/>
 * after </results> (namespace urn:cadenza:results); CSV and TSV have no
 * place for it (the HTTP header says it). */
void rdf_results_truncated(rdf_results_t *r, uint64_t max_rows);
/* Hands what is buffered to the sink now (a stream sent in steps). */
int rdf_results_flush(rdf_results_t *r);
const char *rdf_results_media_type(rdf_results_fmt_t fmt);


/* ---- the store's tables (rdf_schema.c) ----------------------------------- */

/* The schema of the store's tables: SQL names them pg_rdf.rdf_quad,
 * pg_rdf.rdf_iri, … The pg_ prefix makes it a system schema to clients:
 * pg_dump leaves it out (a restore goes into a database that has the
 * store already), psql's \dt and JDBC's table lists show it as system. */
#define RDF_SCHEMA "pg_rdf"

/* The layout of rdf_quad's primary tree (PSOG), chosen when the store is
 * created ([SPARQL] QuadLayout): row leaves, or issue 9's column tree
 * (its index rdf_quad_pogs and the projections stay row trees; README.md
 * "Tables"). */
typedef enum rdf_layout_e {
  RDF_LAYOUT_ROW = 0,
  RDF_LAYOUT_COLUMN = 1,
} rdf_layout_t;

/* Creates, when absent, the dictionaries (rdf_prefix, rdf_iri,
 * rdf_literal and their id sequences), the quad table rdf_quad with its
 * index rdf_quad_pogs, the distinct projections rdf_quad_sp, rdf_quad_op,
 * rdf_quad_gs and the load list rdf_load_list, in schema pg_rdf (made too), owned by
 * owner, in one transaction (README.md "Tables"). Called at every open:
 * a database made before the store gets them at its next start; when
 * they exist, loads a stop interrupted are put back to waiting. */
int rdf_schema_ensure(cat_t *c, cat_oid_t owner, rdf_layout_t layout, err_t *e);

/* ---- dictionaries (rdf_dict.c) -------------------------------------------- */

/* A handle on the dictionaries of one catalog, for one thread: the
 * tables, a sequence session and a cache of namespace prefixes. */
typedef struct rdf_dict_s rdf_dict_t;
/* Lives in a (freed with it); the tables are looked up in the catalog's
 * current snapshot (held until rdf_dict_close). 42P01 when the store's
 * tables are missing. */
int rdf_dict_open(cat_t *c, arena_t *a, rdf_dict_t **out, err_t *e);
void rdf_dict_close(rdf_dict_t *d);
/* The ids of terms[0..n) into ids[0..n): inline literals encoded in place,
 * the others looked up with one sorted probe per dictionary and the new
 * ones inserted with one sorted batch, in short transactions of their own
 * (committed when this returns: an id, once given, stays; README.md
 * "Dictionaries" says why that is safe). Kind RDF_NONE gives 0. Two
 * callers adding one term at once get one id. */
int rdf_dict_encode(rdf_dict_t *d, const rdf_term_t *terms, size_t n, rdf_id_t *ids, err_t *e);
/* As rdf_dict_encode, but nothing is added: the ids of the terms the
 * dictionaries hold as tx sees them, 0 for the others (a query's
 * constants: one vectored probe per dictionary, no statement). */
int rdf_dict_lookup(rdf_dict_t *d, txn_t *tx, const rdf_term_t *terms, size_t n, rdf_id_t *ids,
                    err_t *e);
/* The terms of ids[0..n) (0 gives RDF_NONE), as tx sees the dictionaries
 * (NULL: committed), strings in a. 22P02 for an id no dictionary holds. */
int rdf_dict_decode(rdf_dict_t *d, txn_t *tx, const rdf_id_t *ids, size_t n, rdf_term_t *out,
                    arena_t *a, err_t *e);
/* The N-Triples form of a term ("<iri>", "_:b", "\"lex\"@en", …) in a. */
char *rdf_term_ntriples(const rdf_term_t *t, arena_t *a);

/* ---- the quad table (rdf_quad.c) ------------------------------------------ */

/* Adds quads[0..n) (4 ids each: g, s, p, o) in tx: sorted in the primary
 * index's order (P, S, O, G), duplicates and quads already stored dropped,
 * the rest inserted as one batch; the distinct projections get their new
 * pairs in short transactions of their own. *added: the quads that were
 * new. */
typedef struct rdf_qids_s {
  rdf_id_t qi_g, qi_s, qi_p, qi_o;
} rdf_qids_t;
int rdf_quad_insert(txn_t *tx, const cat_snapshot_t *snap, rdf_qids_t *quads, size_t n,
                    arena_t *a, int64_t *added, err_t *e);

/* ---- the bulk loader (rdf_load.c) ------------------------------------------ */

/* The gate every file and folder passes (the engine's: the caller must be
 * a superuser, the path absolute and inside [Parameters] DirsAllowed;
 * 42501 otherwise): its real path into real (PATH_MAX bytes). */
typedef int (*rdf_path_check_fn)(void *ctx, const char *path, char *real, err_t *e);

typedef struct rdf_load_env_s {
  cat_t *le_cat;
  rdf_path_check_fn le_check;
  void *le_check_ctx;
  bool le_skip_bad;               /* skip malformed statements (else the file fails) */
  const volatile bool *le_cancel; /* the caller's cancel flag; NULL none */
} rdf_load_env_t;

/* ld_dir: lists the regular files of dir whose names match mask (fnmatch;
 * NULL = every file) in rdf_load_list as waiting, with graph (the graph
 * of their triples; NULL = the default graph); files listed already stay
 * as they are. *added: the rows added. Its own transaction. */
int rdf_ld_dir(const rdf_load_env_t *env, const char *dir, const char *mask, const char *graph,
               int64_t *added, err_t *e);
/* rdf_loader_run: loads waiting files of the load list until none is
 * left, each in one transaction of its own; a file's failure goes to its
 * row (ll_error) and the loader goes on. *files: the files it took. Fails
 * only when the load list cannot be read or written, or on a cancel. */
int rdf_loader_run(const rdf_load_env_t *env, int64_t *files, err_t *e);

/* ---- SQL functions (rdf_sql.c) ----------------------------------------------- */

/* The engine's file gate for a session (see rdf_path_check_fn); path
 * NULL asks only whether the session may load files at all. */
typedef int (*rdf_session_path_fn)(void *session, const char *path, char *real, err_t *e);
/* Registers ld_dir, rdf_loader_run and rdf_term (once per process; later
 * calls replace the hooks). env: the session's environment (pgcat's). */
int rdf_sql_init(pgcat_env_fn env, rdf_session_path_fn path, err_t *e);
/* SPARQL's expression language over terms in N-Triples text
 * (rdf_sql_fn.c): sparql_fn(name, term...), sparql_cmp(op, a, b),
 * sparql_ebv(t), sparql_order_key(t) / sparql_order_term(k),
 * sparql_num(t), sparql_numtype(t), sparql_num_term(v, kind),
 * sparql_lex(t), sparql_plain(s); NULL is SPARQL's error. Registered by
 * rdf_sql_init. */
int rdf_sql_fn_init(err_t *e);
/* Whether sparql_fn implements the function or operator name (canonical
 * built-in names of sp_builtin.c, "+", "-", "*", "/", "cast"). */
bool rdf_sparql_fn_known(const char *name);

#endif /* CZ_RDF_H */
