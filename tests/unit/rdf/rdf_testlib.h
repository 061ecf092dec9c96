/* rdf_testlib — helpers shared by the libsrc/rdf unit tests: quads kept as
 * owned text lines, parsing from strings, files (plain and gzip), and a
 * comparison of quad lists up to blank node renaming.
 */
#ifndef RDF_TESTLIB_H
#define RDF_TESTLIB_H

#include <stdbool.h>
#include <stddef.h>

#include "rdf/rdf.h"

/* Quads as lines "S P O G", each term in an unambiguous form written
 * here (not by the module's writers): I<iri> B<label> L"lex"^dt@lang. */
typedef struct tl_quads_s {
  char **tq_lines;
  size_t tq_n, tq_cap;
  size_t tq_batches; /* callbacks seen */
  size_t tq_max_batch;
} tl_quads_t;

int tl_collect(void *ctx, const rdf_quad_t *q, size_t n, err_t *e);
char *tl_term_text(const rdf_term_t *t); /* malloc'd */
void tl_free(tl_quads_t *q);
/* Quad i with its fields separated by spaces (a static buffer). */
const char *tl_line(const tl_quads_t *q, size_t i);
/* Parses text with the options in *o (ro_fn/ro_ctx set here). */
int tl_parse(const char *name, const char *text, rdf_read_opts_t *o, tl_quads_t *out, err_t *e);
int tl_parse_file(const char *path, rdf_read_opts_t *o, tl_quads_t *out, err_t *e);
/* Writes data to a file in the test directory, gzip if gz; the path is
 * malloc'd. */
char *tl_write_file(const char *name, const char *data, size_t len, bool gz);
/* Renames blank nodes by their order of first appearance, in place. */
void tl_canon_bnodes(tl_quads_t *q);
/* Same quads in the same order after tl_canon_bnodes of both. */
bool tl_same(tl_quads_t *a, tl_quads_t *b);
/* A string sink collecting everything written. */
typedef struct tl_buf_s {
  char *tb_data;
  size_t tb_len, tb_cap;
  size_t tb_calls;
  int tb_fail_after; /* >0: the call with that number fails with -7 */
} tl_buf_t;
int tl_buf_sink(void *ctx, const char *buf, size_t len);
const char *tl_buf_str(tl_buf_t *b); /* NUL-terminated view */

#endif
