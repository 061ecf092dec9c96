/* rdf_int — private declarations shared by the files of libsrc/rdf.
 */
#ifndef CZ_RDF_INT_H
#define CZ_RDF_INT_H

#include "rdf/rdf.h"

/* rdf_xsd.c */
int64_t rdf_xsd_days(int64_t y, int m, int d); /* days since 0001-01-01 */
void rdf_xsd_civil(int64_t days, int64_t *y, int *m, int *d);
/* Shortest round-trip digits of v (float precision if is_float): digits
 * without sign or point, first digit at 10^*exp10. v finite, non-zero. */
void rdf_xsd_shortest(double v, bool is_float, char *digits, int *exp10);
int rdf_xsd_date_text(const rdf_xsd_val_t *v, char *out, size_t cap);

/* rdf_case_special.c: cp's full (multi-character) uppercase or lowercase
 * mapping from Unicode's SpecialCasing.txt into out; the number of
 * characters, 0 when cp has none (then the simple mapping applies). */
size_t rdf_case_special(uint32_t cp, bool upper, uint32_t out[3]);

/* rdf_out.c: appending to an output buffer. Each returns the status of
 * the output (the first sink error sticks). */
int rdf_out_put(rdf_out_t *o, const char *s, size_t n);
int rdf_out_puts(rdf_out_t *o, const char *s);
int rdf_out_putc(rdf_out_t *o, char c);

/* rdf_escape.c: a term or string in each format's escaping. */
/* Inside "...": N-Triples' canonical escapes (\" \\ \n \r, \u00XX for
 * other controls); with tab, a tab too (TSV cells cannot hold one). */
int rdf_esc_nt_string(rdf_out_t *o, const char *s, size_t n, bool tab);
int rdf_esc_nt_iri(rdf_out_t *o, const char *s, size_t n); /* inside <...> */
int rdf_esc_nt_term(rdf_out_t *o, const rdf_term_t *t, bool tab); /* N-Triples form */
int rdf_esc_json_string(rdf_out_t *o, const char *s, size_t n); /* with the quotes */
int rdf_esc_xml_text(rdf_out_t *o, const char *s, size_t n);    /* element or attribute text */
/* True if s is a valid blank node label to write after "_:" as is. */
bool rdf_esc_bnode_ok(const char *s, size_t n);
int rdf_esc_bnode(rdf_out_t *o, const char *s, size_t n);

/* rdf_write_*.c: a term copied out of a caller's memory, to compare with
 * the next quad's (Turtle grouping). */
typedef struct rdf_held_s {
  rdf_term_t rh_t;
  char *rh_buf; /* the copies of the strings */
  size_t rh_cap;
} rdf_held_t;
int rdf_held_set(rdf_held_t *h, const rdf_term_t *t);
void rdf_held_free(rdf_held_t *h);

struct rdf_writer_s {
  rdf_syntax_t rw_syntax;
  rdf_out_t *rw_out;
  char **rw_pfx;   /* prefix names */
  char **rw_ns;    /* their namespace IRIs */
  size_t rw_npfx;
  bool rw_started; /* prefixes written */
  bool rw_in_stmt; /* a subject is open (Turtle: ends with " .") */
  bool rw_in_graph; /* a TriG graph block is open */
  rdf_held_t rw_g, rw_s, rw_p; /* the open graph, subject, predicate */
  int rw_status;   /* first error (allocation or sink) */
};
int rdf_ttl_quad(rdf_writer_t *w, const rdf_quad_t *q);
int rdf_ttl_finish(rdf_writer_t *w);
int rdf_jsonld_quad(rdf_writer_t *w, const rdf_quad_t *q);
int rdf_jsonld_finish(rdf_writer_t *w);

/* rdf_input.c: the bytes of a file or a memory block, inflated when
 * they begin with the gzip magic (1f 8b). */
#include <zlib.h>
typedef struct rdf_input_s {
  int ri_fd;                /* -1 for memory input */
  const uint8_t *ri_mem;    /* memory input */
  size_t ri_mem_len, ri_mem_pos;
  bool ri_gz;               /* inflating */
  bool ri_z_open;           /* ri_z initialised */
  bool ri_raw_eof;          /* no more compressed/plain bytes */
  bool ri_eof;              /* no more output bytes */
  z_stream ri_z;
  rdf_progress_t *ri_prog;  /* never NULL (a private one if the caller gave none) */
  rdf_progress_t ri_own_prog;
  const char *ri_name;
  uint8_t *ri_raw;          /* compressed bytes read ahead */
  size_t ri_raw_len, ri_raw_pos;
} rdf_input_t;
int rdf_input_open_file(rdf_input_t *in, const char *path, rdf_progress_t *prog, err_t *e);
int rdf_input_open_mem(rdf_input_t *in, const char *name, const void *data, size_t len,
                       rdf_progress_t *prog, err_t *e);
/* Up to cap bytes of the (inflated) text; 0 at the end; -1 on an error. */
long rdf_input_read(rdf_input_t *in, void *buf, size_t cap, err_t *e);
void rdf_input_close(rdf_input_t *in);

/* rdf_results*.c: one results format as a table of functions. */
typedef struct rdf_results_ops_s {
  int (*rf_head)(rdf_results_t *r);
  int (*rf_row)(rdf_results_t *r, const rdf_term_t *values);
  int (*rf_boolean)(rdf_results_t *r, bool value);
  int (*rf_finish)(rdf_results_t *r); /* after head and rows */
} rdf_results_ops_t;

struct rdf_results_s {
  rdf_results_fmt_t rs_fmt;
  const rdf_results_ops_t *rs_ops;
  rdf_out_t *rs_out;
  char **rs_vars; /* copies of the variable names */
  size_t rs_nvars;
  uint64_t rs_rows; /* rows written so far */
  int rs_state;     /* 0 new, 1 after head, 2 boolean written, 3 finished */
  uint64_t rs_cut_at; /* rdf_results_truncated: the rows kept (0 = not cut) */
};

extern const rdf_results_ops_t rdf_results_json_ops;
extern const rdf_results_ops_t rdf_results_xml_ops;
extern const rdf_results_ops_t rdf_results_csv_ops;
extern const rdf_results_ops_t rdf_results_tsv_ops;

/* rdf_load.c: puts every load list row in state 1 (loading when the
 * server stopped) back to 0; rdf_schema_ensure calls it at every open. */
int rdf_load_requeue(cat_t *c, err_t *e);

/* rdf_lock.c: locks the values keys[0..n) (ix's key columns) EXCLUSIVE
 * for tx, in encoded key order, under the lock name the table layer's
 * inserters of ix take (insert-if-absent without upgrade deadlocks). */
int rdf_lock_values(txn_t *tx, const cat_index_t *ix, const datum_t *const *keys, int n,
                    arena_t *a, err_t *e);


/* ---- SPARQL values of terms in N-Triples text (rdf_sparql_value.c) ---------- */

#define XSD_NS_FN RDF_NS_XSD

typedef enum rdf_sv_kind_e { SV_INT, SV_DEC, SV_FLT, SV_DBL } rdf_sv_kind_t;

typedef struct rdf_sv_num_s {
  rdf_sv_kind_t k;
  __int128 m;   /* SV_INT, SV_DEC: value = m / 10^scale */
  int scale;
  double d;     /* SV_FLT, SV_DBL */
} rdf_sv_num_t;

typedef struct rdf_sv_dt_s {
  int64_t year;
  int month, day, hour, minute;
  const char *sec;      /* seconds as written (with fraction) */
  size_t sec_len;
  bool has_tz;
  int tz_min;
  const char *tz;       /* "Z", "+05:00" as written, or "" */
  double epoch;         /* seconds, the local time taken as UTC when no tz, for ordering */
} rdf_sv_dt_t;

typedef enum rdf_sv_cat_e { SV_C_NUM, SV_C_STR, SV_C_LANG, SV_C_BOOL, SV_C_DT, SV_C_DATE, SV_C_OTHER, SV_C_NONLIT } rdf_sv_cat_t;

char *rdf_sv_strndup(arena_t *a, const char *s, size_t n);
char *rdf_sv_cstr(arena_t *a, const char *s, size_t n);
/* A term from its N-Triples text (strings in a); false when it is not one. */
bool rdf_sv_parse(arena_t *a, const char *s, size_t n, rdf_term_t *t);
rdf_term_t rdf_sv_lit(const char *lex, size_t len, const char *dt, const char *lang);
bool rdf_sv_is_lit(const rdf_term_t *t);
bool rdf_sv_is_plain(const rdf_term_t *t);   /* simple literal or xsd:string */
bool rdf_sv_is_strlit(const rdf_term_t *t);  /* plain or language-tagged */
__int128 rdf_sv_pow10(int n);
/* v in decimal digits into buf (48 bytes). */
char *rdf_sv_i128_text(char *buf, __int128 v);
double rdf_sv_num_dbl(const rdf_sv_num_t *n);
/* A valid numeric literal's value; false otherwise (or too big to be exact). */
bool rdf_sv_num_get(const rdf_term_t *t, rdf_sv_num_t *n);
/* The canonical literal of a number, N-Triples; NULL when out of range. */
char *rdf_sv_num_term(arena_t *a, rdf_sv_num_t n);
/* a op b (+ - * /) with promotion; false on an error. */
bool rdf_sv_arith(char op, rdf_sv_num_t a, rdf_sv_num_t b, rdf_sv_num_t *r);
int rdf_sv_num_cmp(rdf_sv_num_t a, rdf_sv_num_t b, bool *nan);
/* xsd:dateTime (and xsd:date when date_ok) fields of a valid literal. */
bool rdf_sv_dt_get(const rdf_term_t *t, rdf_sv_dt_t *d, bool date_ok);
rdf_sv_cat_t rdf_sv_category(const rdf_term_t *t, rdf_sv_num_t *num, rdf_sv_dt_t *dt, bool *bv);
/* = != < > <= >= by §17.3: 1 true, 0 false, -1 error. */
int rdf_sv_compare(const char *op, const rdf_term_t *a, const rdf_term_t *b);

#endif /* CZ_RDF_INT_H */
