/* test_rdf_reader — the RDF readers: every syntax, gzip, malformed input
 * in stop and skip mode, base resolution, blank node scopes, batches,
 * progress counters (the real data sets: test_rdf_datasets.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <zlib.h>

#include "cz_test.h"
#include "rdf/rdf.h"
#include "rdf_testlib.h"

#define XSD "http://www.w3.org/2001/XMLSchema#"

static int parse(const char *name, const char *text, rdf_syntax_t syn, bool skip,
                 tl_quads_t *out, err_t *e)
{
  rdf_read_opts_t o = {.ro_syntax = syn, .ro_skip_bad = skip};
  memset(out, 0, sizeof(*out));
  err_clear(e);
  return tl_parse(name, text, &o, out, e);
}

static void test_ntriples_terms(void **state)
{
  (void)state;
  const char *nt =
      "# a comment\n"
      "<http://a/s> <http://a/p> <http://a/o> .\n"
      "\n"
      "_:x <http://a/p> \"plain\" .\n"
      "<http://a/s> <http://a/p> \"chat\"@fr .\n"
      "<http://a/s> <http://a/p> \"42\"^^<" XSD "integer> .\n"
      "<http://a/s> <http://a/p> \"q\\\"t\\\\ \\n\\t\\u00E9\\U0001F600\" .\n"
      "<http://a/s> <http://a/p> _:x . # trailing comment\r\n";
  tl_quads_t q;
  err_t e;
  assert_int_equal(parse("t.nt", nt, RDF_SYNTAX_NTRIPLES, false, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 6);
  assert_string_equal(tl_line(&q, 0), "I<http://a/s> I<http://a/p> I<http://a/o> -");
  assert_non_null(strstr(tl_line(&q, 1), "L\"plain\""));
  assert_non_null(strstr(tl_line(&q, 2), "L\"chat\"@fr"));
  assert_non_null(strstr(tl_line(&q, 3), "L\"42\"^" XSD "integer"));
  assert_non_null(strstr(tl_line(&q, 4), "L\"q\"t\\ \n\t\xC3\xA9\xF0\x9F\x98\x80\""));
  /* the same label in one file is one node */
  char s1[128], o5[128];
  snprintf(s1, sizeof(s1), "%s", tl_line(&q, 1));
  snprintf(o5, sizeof(o5), "%s", tl_line(&q, 5));
  *strchr(s1, ' ') = '\0';
  assert_non_null(strstr(o5, s1));
  assert_int_equal(s1[0], 'B');
  tl_free(&q);
}

static void test_nquads_graphs_and_default_graph(void **state)
{
  (void)state;
  const char *nq = "<http://a/s> <http://a/p> <http://a/o> <http://a/g> .\n"
                   "<http://a/s> <http://a/p> \"v\" _:g .\n"
                   "<http://a/s> <http://a/p> \"w\" .\n";
  tl_quads_t q = {0};
  err_t e;
  assert_int_equal(parse("t.nq", nq, RDF_SYNTAX_GUESS, false, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 3);
  assert_string_equal(tl_line(&q, 0), "I<http://a/s> I<http://a/p> I<http://a/o> I<http://a/g>");
  assert_non_null(strstr(tl_line(&q, 1), " B"));
  assert_string_equal(tl_line(&q, 2), "I<http://a/s> I<http://a/p> L\"w\" -");
  tl_free(&q);
  /* the default graph argument names the graph of statements without one */
  rdf_read_opts_t o = {.ro_default_graph = "http://a/dflt"};
  assert_int_equal(tl_parse("t.nq", nq, &o, &q, &e), CZ_OK);
  assert_string_equal(tl_line(&q, 0), "I<http://a/s> I<http://a/p> I<http://a/o> I<http://a/g>");
  assert_string_equal(tl_line(&q, 2), "I<http://a/s> I<http://a/p> L\"w\" I<http://a/dflt>");
  tl_free(&q);
}

static void test_turtle_syntax(void **state)
{
  (void)state;
  const char *ttl = "@prefix ex: <http://ex/> .\n"
                    "PREFIX xsd: <" XSD ">\n"
                    "ex:s a ex:C ;\n"
                    "  ex:p 1, 2.5, 1e3, true, \"x\"@en-GB ;\n"
                    "  ex:q [ ex:r \"\"\"long\nstring\"\"\" ] ;\n"
                    "  ex:l ( 1 ) .\n";
  tl_quads_t q;
  err_t e;
  assert_int_equal(parse("t.ttl", ttl, RDF_SYNTAX_GUESS, false, &q, &e), CZ_OK);
  /* a, 5 objects of p, q + r, list: first + rest, l */
  assert_int_equal(q.tq_n, 11);
  assert_string_equal(tl_line(&q, 0),
                      "I<http://ex/s> I<http://www.w3.org/1999/02/22-rdf-syntax-ns#type> "
                      "I<http://ex/C> -");
  assert_string_equal(tl_line(&q, 1), "I<http://ex/s> I<http://ex/p> L\"1\"^" XSD "integer -");
  assert_string_equal(tl_line(&q, 2), "I<http://ex/s> I<http://ex/p> L\"2.5\"^" XSD "decimal -");
  assert_string_equal(tl_line(&q, 3), "I<http://ex/s> I<http://ex/p> L\"1e3\"^" XSD "double -");
  assert_string_equal(tl_line(&q, 4), "I<http://ex/s> I<http://ex/p> L\"true\"^" XSD "boolean -");
  assert_string_equal(tl_line(&q, 5), "I<http://ex/s> I<http://ex/p> L\"x\"@en-GB -");
  bool long_found = false;
  for (size_t i = 0; i < q.tq_n; i++)
    long_found |= strstr(tl_line(&q, i), "L\"long\nstring\"") != NULL;
  assert_true(long_found);
  tl_free(&q);
}

static void test_trig_graphs(void **state)
{
  (void)state;
  const char *trig = "@prefix ex: <http://ex/> .\n"
                     "ex:a ex:p ex:b .\n"
                     "ex:g1 { ex:a ex:p ex:c . ex:a ex:p ex:d }\n"
                     "GRAPH ex:g2 { ex:a ex:p ex:e . }\n"
                     "{ ex:a ex:p ex:f . }\n";
  tl_quads_t q;
  err_t e;
  assert_int_equal(parse("t.trig", trig, RDF_SYNTAX_GUESS, false, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 5);
  assert_string_equal(tl_line(&q, 0), "I<http://ex/a> I<http://ex/p> I<http://ex/b> -");
  assert_string_equal(tl_line(&q, 1), "I<http://ex/a> I<http://ex/p> I<http://ex/c> I<http://ex/g1>");
  assert_string_equal(tl_line(&q, 2), "I<http://ex/a> I<http://ex/p> I<http://ex/d> I<http://ex/g1>");
  assert_string_equal(tl_line(&q, 3), "I<http://ex/a> I<http://ex/p> I<http://ex/e> I<http://ex/g2>");
  assert_string_equal(tl_line(&q, 4), "I<http://ex/a> I<http://ex/p> I<http://ex/f> -");
  tl_free(&q);
}

static const char *bad_nt = "<http://a/s> <http://a/p> <http://a/o1> .\n"
                            "<http://a/s> <http://a/p> <http://a/o2> .\n"
                            "<http://a/s> <http://a/p> \"unterminated .\n"
                            "<http://a/s> <http://a/p> <http://a/o4> .\n"
                            "<http://a/s> <http://a/p> <http://a/o5>\n"
                            "<http://a/s> <http://a/p> <http://a/o6> .\n";

static void test_malformed_stop_names_file_and_line(void **state)
{
  (void)state;
  tl_quads_t q;
  err_t e;
  assert_int_equal(parse("bad.nt", bad_nt, RDF_SYNTAX_GUESS, false, &q, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P02");
  assert_non_null(strstr(e.er_msg, "bad.nt:3:"));
  /* the quads before the bad line were delivered, none after it */
  assert_int_equal(q.tq_n, 2);
  tl_free(&q);
}

static void test_malformed_skip_goes_on(void **state)
{
  (void)state;
  tl_quads_t q;
  err_t e;
  rdf_progress_t p = {0};
  rdf_read_opts_t o = {.ro_skip_bad = true, .ro_progress = &p};
  memset(&q, 0, sizeof(q));
  assert_int_equal(tl_parse("bad.nt", bad_nt, &o, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 4);
  assert_int_equal(p.rp_errors, 2);
  assert_int_equal(p.rp_statements, 4);
  assert_non_null(strstr(tl_line(&q, 2), "o4"));
  assert_non_null(strstr(tl_line(&q, 3), "o6"));
  tl_free(&q);
  /* N-Quads the same (serd's own N-Quads reader cannot go on) */
  const char *bad_nq = "<http://a/s> <http://a/p> <http://a/o1> <http://a/g> .\n"
                       "<http://a/s> <http://a/p> <http://a/o2> <http://a/g> <x> .\n"
                       "<http://a/s> <http://a/p> <http://a/o3> <http://a/g> .\n";
  rdf_progress_t p2 = {0};
  rdf_read_opts_t o2 = {.ro_skip_bad = true, .ro_progress = &p2};
  assert_int_equal(tl_parse("bad.nq", bad_nq, &o2, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 2);
  assert_int_equal(p2.rp_errors, 1);
  tl_free(&q);
  assert_int_equal(parse("bad.nq", bad_nq, RDF_SYNTAX_GUESS, false, &q, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "bad.nq:2:"));
  tl_free(&q);
}

static void test_malformed_turtle(void **state)
{
  (void)state;
  const char *ttl = "@prefix ex: <http://ex/> .\n"
                    "ex:a ex:p ex:b .\n"
                    "ex:a ex:p \"x\"@ .\n"
                    "ex:a ex:p ex:c .\n"
                    "ex:a nope:p ex:d .\n"
                    "ex:a ex:p ex:e .\n";
  tl_quads_t q;
  err_t e;
  assert_int_equal(parse("bad.ttl", ttl, RDF_SYNTAX_GUESS, false, &q, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "22P02");
  assert_non_null(strstr(e.er_msg, "bad.ttl:3:"));
  assert_int_equal(q.tq_n, 1);
  tl_free(&q);
  rdf_progress_t p = {0};
  rdf_read_opts_t o = {.ro_skip_bad = true, .ro_progress = &p};
  memset(&q, 0, sizeof(q));
  assert_int_equal(tl_parse("bad.ttl", ttl, &o, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 3); /* b, c, e */
  assert_int_equal(p.rp_errors, 2);
  assert_non_null(strstr(tl_line(&q, 2), "ex/e"));
  tl_free(&q);
  /* an undefined prefix is found by this module, not by serd: its line */
  const char *ttl2 = "@prefix ex: <http://ex/> .\n"
                     "ex:a ex:p ex:b .\n\n"
                     "ex:a nope:p ex:d .\n";
  assert_int_equal(parse("pfx.ttl", ttl2, RDF_SYNTAX_GUESS, false, &q, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "pfx.ttl:4:"));
  assert_non_null(strstr(e.er_msg, "nope:p"));
  tl_free(&q);
}

/* Skip mode in Turtle/TriG resumes after the bad statement's end: a
 * statement over several lines is one error, a bad statement inside a
 * graph block skips to the block's end (its other statements are never
 * read into the default graph), serd's [] names stay distinct across the
 * restart, and the end may lie far beyond what serd had read. */
static void test_skip_resync_turtle_trig(void **state)
{
  (void)state;
  const char *trig = "@prefix ex: <http://ex/> .\n"
                     "ex:a ex:p [ ex:q 1 ] .\n"
                     "ex:a ex:p ex:b ;\n"
                     "  ex:q \"bad\\z # not a comment . {\" ;\n"
                     "  ex:r ex:c .\n"
                     "ex:d ex:p ex:e .\n"
                     "ex:g { ex:a ex:p \"x\"@ .\n"
                     " ex:a ex:p ex:f . }\n"
                     "ex:h ex:p [ ex:q 2 ] .\n"
                     "ex:g2 { ex:a ex:p ex:k }\n";
  tl_quads_t q = {0};
  err_t e;
  rdf_progress_t p = {0};
  rdf_read_opts_t o = {.ro_skip_bad = true, .ro_progress = &p};
  assert_int_equal(tl_parse("r.trig", trig, &o, &q, &e), CZ_OK);
  assert_int_equal(p.rp_errors, 2);
  /* [ q 1 ] (2), ex:b (kept: read before the error), ex:e, [ q 2 ] (2), ex:k */
  assert_int_equal(q.tq_n, 7);
  for (size_t i = 0; i < q.tq_n; i++)
    assert_null(strstr(tl_line(&q, i), "ex/f")); /* never in the default graph */
  assert_string_equal(tl_line(&q, 6), "I<http://ex/a> I<http://ex/p> I<http://ex/k> I<http://ex/g2>");
  /* the two [] are two nodes although serd named both b1 */
  char b1[64], b2[64];
  snprintf(b1, sizeof(b1), "%s", strrchr(strstr(tl_line(&q, 0), " B"), 'B'));
  *strchr(b1, ' ') = '\0';
  snprintf(b2, sizeof(b2), "%s", strrchr(strstr(tl_line(&q, 4), " B"), 'B'));
  *strchr(b2, ' ') = '\0';
  assert_string_not_equal(b1, b2);
  tl_free(&q);
  /* the bad statement's end lies 64 KB on, past serd's pages */
  size_t big = 1 << 16;
  char *t = malloc(big + 256);
  int n = sprintf(t, "<http://a/s> <http://a/p> <bad iri> , \"");
  memset(t + n, 'x', big);
  sprintf(t + n + big, "\" .\n<http://a/s> <http://a/p> <http://a/ok> .\n");
  rdf_progress_t p2 = {0};
  rdf_read_opts_t o2 = {.ro_skip_bad = true, .ro_progress = &p2, .ro_syntax = RDF_SYNTAX_TURTLE};
  assert_int_equal(tl_parse("far.ttl", t, &o2, &q, &e), CZ_OK);
  assert_int_equal(p2.rp_errors, 1);
  assert_int_equal(q.tq_n, 1);
  assert_string_equal(tl_line(&q, 0), "I<http://a/s> I<http://a/p> I<http://a/ok> -");
  tl_free(&q);
  free(t);
}

static void test_base_resolution(void **state)
{
  (void)state;
  tl_quads_t q;
  err_t e;
  /* a Turtle file: <> and <#x> against the file's own file:// IRI */
  const char *ttl = "<> <p> <#x> .\n@base <http://b/dir/> .\n<a> <../p> <> .\n";
  char *path = tl_write_file("base.ttl", ttl, strlen(ttl), false);
  rdf_read_opts_t o = {0};
  memset(&q, 0, sizeof(q));
  assert_int_equal(tl_parse_file(path, &o, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 2);
  char want[4096];
  char *real = realpath(path, NULL);
  snprintf(want, sizeof(want), "I<file://%s> I<file://%s> I<file://%s#x> -", real,
           real, real);
  /* the predicate <p> resolves to the file's folder + p */
  char *slash = strrchr(real, '/');
  char dir[2048];
  snprintf(dir, sizeof(dir), "%.*s", (int)(slash - real + 1), real);
  snprintf(want, sizeof(want), "I<file://%s> I<file://%sp> I<file://%s#x> -", real, dir, real);
  assert_string_equal(tl_line(&q, 0), want);
  assert_string_equal(tl_line(&q, 1), "I<http://b/dir/a> I<http://b/p> I<http://b/dir/> -");
  tl_free(&q);
  /* a base given by the caller wins */
  rdf_read_opts_t o2 = {.ro_base = "http://given/x/y"};
  assert_int_equal(tl_parse_file(path, &o2, &q, &e), CZ_OK);
  assert_string_equal(tl_line(&q, 0), "I<http://given/x/y> I<http://given/x/p> I<http://given/x/y#x> -");
  tl_free(&q);
  /* N-Triples with <> (as LUBM's generator writes it) resolves too */
  const char *nt = "<> <http://a/p> <rel> .\n<http://a/s> <http://a/p> \"<not an iri>\" .\n";
  rdf_read_opts_t o3 = {.ro_base = "http://base/doc"};
  assert_int_equal(tl_parse("rel.nt", nt, &o3, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 2);
  assert_string_equal(tl_line(&q, 0), "I<http://base/doc> I<http://a/p> I<http://base/rel> -");
  assert_string_equal(tl_line(&q, 1), "I<http://a/s> I<http://a/p> L\"<not an iri>\" -");
  tl_free(&q);
  free(real);
  free(path);
}

static void test_bnode_scope_per_file(void **state)
{
  (void)state;
  const char *nt = "_:b1 <http://a/p> _:b1 .\n";
  tl_quads_t a = {0}, b = {0};
  err_t e;
  assert_int_equal(parse("a.nt", nt, RDF_SYNTAX_GUESS, false, &a, &e), CZ_OK);
  assert_int_equal(parse("b.nt", nt, RDF_SYNTAX_GUESS, false, &b, &e), CZ_OK);
  char la[256], lb[256];
  snprintf(la, sizeof(la), "%s", tl_line(&a, 0));
  snprintf(lb, sizeof(lb), "%s", tl_line(&b, 0));
  assert_string_not_equal(la, lb); /* two files: two nodes */
  /* one file: subject and object are the same node */
  char *sp = strchr(la, ' ');
  char *op = strrchr(la, ' ');
  *op = '\0';
  op = strrchr(la, ' ') + 1;
  *sp = '\0';
  assert_string_equal(la, op);
  tl_free(&a);
  tl_free(&b);
  /* the caller can fix the scope (a loader keeps it in the database) */
  rdf_read_opts_t o = {.ro_bnode_scope = 77};
  assert_int_equal(tl_parse("c.nt", nt, &o, &a, &e), CZ_OK);
  assert_string_equal(tl_line(&a, 0), "Bb77_b1 I<http://a/p> Bb77_b1 -");
  tl_free(&a);
  /* Turtle's [] get the scope too, so they cannot meet another file's */
  const char *ttl = "[] <http://a/p> [] .\n";
  assert_int_equal(tl_parse("c.ttl", ttl, &o, &a, &e), CZ_OK);
  assert_int_equal(a.tq_n, 1);
  assert_true(strncmp(tl_line(&a, 0), "Bb77_", 5) == 0);
  tl_free(&a);
}

static void test_gzip_same_as_plain(void **state)
{
  (void)state;
  /* big enough for several raw blocks and serd pages */
  size_t cap = 4 << 20, len = 0;
  char *text = malloc(cap);
  for (int i = 0; len + 200 < cap; i++)
    len += (size_t)snprintf(text + len, cap - len,
                            "<http://a/s%d> <http://a/p> \"value %d \\\"q\\\"\"@en .\n", i, i);
  char *plain = tl_write_file("g.nt", text, len, false);
  char *gz = tl_write_file("g.nt.gz", text, len, true);
  /* a gzip file whose name says nothing */
  char *gz2 = tl_write_file("g_noext.nt", text, len, true);
  tl_quads_t a = {0}, b = {0}, c = {0};
  err_t e;
  rdf_progress_t pa = {0}, pb = {0};
  rdf_read_opts_t oa = {.ro_progress = &pa, .ro_bnode_scope = 1};
  rdf_read_opts_t ob = {.ro_progress = &pb, .ro_bnode_scope = 1};
  rdf_read_opts_t oc = {.ro_bnode_scope = 1};
  assert_int_equal(tl_parse_file(plain, &oa, &a, &e), CZ_OK);
  assert_int_equal(tl_parse_file(gz, &ob, &b, &e), CZ_OK);
  assert_int_equal(tl_parse_file(gz2, &oc, &c, &e), CZ_OK);
  assert_true(a.tq_n > 30000);
  assert_true(tl_same(&a, &b));
  assert_true(tl_same(&a, &c));
  struct stat sa, sb;
  stat(plain, &sa);
  stat(gz, &sb);
  assert_int_equal(pa.rp_bytes_in, (uint64_t)sa.st_size);
  assert_int_equal(pb.rp_bytes_in, (uint64_t)sb.st_size); /* compressed bytes */
  assert_int_equal(pb.rp_file_size, (uint64_t)sb.st_size);
  assert_int_equal(pb.rp_statements, b.tq_n);
  /* gzip in memory too */
  tl_free(&b);
  FILE *f = fopen(gz, "rb");
  char *gzdata = malloc((size_t)sb.st_size);
  assert_int_equal(fread(gzdata, 1, (size_t)sb.st_size, f), (size_t)sb.st_size);
  fclose(f);
  rdf_read_opts_t om = {.ro_syntax = RDF_SYNTAX_NTRIPLES, .ro_fn = tl_collect, .ro_ctx = &b,
                        .ro_bnode_scope = 1};
  assert_int_equal(rdf_read_mem("mem", gzdata, (size_t)sb.st_size, &om, &e), CZ_OK);
  assert_true(tl_same(&a, &b));
  /* a truncated gzip file is an error, not a short read */
  char *trunc = tl_write_file("t.nt.gz", gzdata, (size_t)sb.st_size / 2, false);
  tl_free(&b);
  rdf_read_opts_t ot = {0};
  assert_int_equal(tl_parse_file(trunc, &ot, &b, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "gzip"));
  tl_free(&a);
  tl_free(&b);
  tl_free(&c);
  free(gzdata);
  free(text);
  free(plain);
  free(gz);
  free(gz2);
  free(trunc);
}

static void test_turtle_gzip(void **state)
{
  (void)state;
  const char *ttl = "@prefix ex: <http://ex/> .\nex:a ex:p ex:b, ex:c .\n";
  char *p1 = tl_write_file("z.ttl", ttl, strlen(ttl), false);
  char *p2 = tl_write_file("z.ttl.gz", ttl, strlen(ttl), true);
  tl_quads_t a = {0}, b = {0};
  err_t e;
  rdf_read_opts_t o1 = {.ro_base = "http://x/"}, o2 = {.ro_base = "http://x/"};
  assert_int_equal(tl_parse_file(p1, &o1, &a, &e), CZ_OK);
  assert_int_equal(tl_parse_file(p2, &o2, &b, &e), CZ_OK);
  assert_int_equal(a.tq_n, 2);
  assert_true(tl_same(&a, &b));
  tl_free(&a);
  tl_free(&b);
  free(p1);
  free(p2);
}

static void test_empty_and_edge_inputs(void **state)
{
  (void)state;
  static const struct {
    const char *name, *text;
    size_t want;
  } c[] = {
      {"e.nt", "", 0},
      {"e.nq", "", 0},
      {"e.ttl", "", 0},
      {"e.trig", "", 0},
      {"c.ttl", "# only a comment", 0},
      {"c.nt", "# only a comment\n\n   \n", 0},
      {"nonl.nt", "<http://a/s> <http://a/p> \"last\" .", 1},
      {"nonl.ttl", "<http://a/s> <http://a/p> \"last\" .", 1},
      {"bom.nt", "\xEF\xBB\xBF<http://a/s> <http://a/p> \"bom\" .\n", 1},
      {"bom.ttl", "\xEF\xBB\xBF<http://a/s> <http://a/p> \"bom\" .\n", 1},
  };
  for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
    tl_quads_t q;
    err_t e;
    if (parse(c[i].name, c[i].text, RDF_SYNTAX_GUESS, false, &q, &e) != CZ_OK)
      fail_msg("%s: %s", c[i].name, e.er_msg);
    assert_int_equal(q.tq_n, c[i].want);
    tl_free(&q);
  }
}

static void test_batches(void **state)
{
  (void)state;
  char text[4096];
  size_t len = 0;
  for (int i = 0; i < 10; i++)
    len += (size_t)snprintf(text + len, sizeof(text) - len, "<http://a/%d> <http://a/p> \"%d\" .\n", i, i);
  tl_quads_t q = {0};
  err_t e;
  rdf_read_opts_t o = {.ro_batch = 3, .ro_syntax = RDF_SYNTAX_NTRIPLES};
  assert_int_equal(tl_parse("b", text, &o, &q, &e), CZ_OK);
  assert_int_equal(q.tq_n, 10);
  assert_int_equal(q.tq_batches, 4);
  assert_int_equal(q.tq_max_batch, 3);
  assert_string_equal(tl_line(&q, 9), "I<http://a/9> I<http://a/p> L\"9\" -");
  tl_free(&q);
}

static int stop_after_one(void *ctx, const rdf_quad_t *q, size_t n, err_t *e)
{
  (void)q;
  (*(size_t *)ctx) += n;
  return err_set(e, "57014", "stopped by the test");
}

static void test_callback_stops_reading(void **state)
{
  (void)state;
  const char *nt = "<http://a/1> <http://a/p> \"1\" .\n<http://a/2> <http://a/p> \"2\" .\n"
                   "<http://a/3> <http://a/p> \"3\" .\n";
  size_t seen = 0;
  err_t e;
  err_clear(&e);
  rdf_read_opts_t o = {.ro_batch = 1, .ro_syntax = RDF_SYNTAX_NTRIPLES, .ro_fn = stop_after_one,
                       .ro_ctx = &seen};
  assert_int_equal(rdf_read_mem("s", nt, strlen(nt), &o, &e), CZ_ERR);
  assert_int_equal(seen, 1);
  assert_string_equal(e.er_sqlstate, "57014");
  o.ro_syntax = RDF_SYNTAX_TURTLE;
  seen = 0;
  assert_int_equal(rdf_read_mem("s", nt, strlen(nt), &o, &e), CZ_ERR);
  assert_int_equal(seen, 1);
}

static void test_syntax_from_name(void **state)
{
  (void)state;
  assert_int_equal(rdf_syntax_from_name("a.nt"), RDF_SYNTAX_NTRIPLES);
  assert_int_equal(rdf_syntax_from_name("a.nq.gz"), RDF_SYNTAX_NQUADS);
  assert_int_equal(rdf_syntax_from_name("dir/a.TTL"), RDF_SYNTAX_TURTLE);
  assert_int_equal(rdf_syntax_from_name("a.trig.gz"), RDF_SYNTAX_TRIG);
  assert_int_equal(rdf_syntax_from_name("a.txt"), RDF_SYNTAX_GUESS);
  tl_quads_t q = {0};
  err_t e;
  rdf_read_opts_t o = {0};
  assert_int_equal(tl_parse("a.txt", "", &o, &q, &e), CZ_ERR);
  assert_non_null(strstr(e.er_msg, "syntax"));
  char *missing = cz_test_path("missing.nt");
  assert_int_equal(tl_parse_file(missing, &o, &q, &e), CZ_ERR);
  assert_string_equal(e.er_sqlstate, "58030");
  free(missing);
}

int main(void)
{
  log_set_level(LOG_ERROR); /* skip mode logs each skipped statement */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ntriples_terms),
      cmocka_unit_test(test_nquads_graphs_and_default_graph),
      cmocka_unit_test(test_turtle_syntax),
      cmocka_unit_test(test_trig_graphs),
      cmocka_unit_test(test_malformed_stop_names_file_and_line),
      cmocka_unit_test(test_malformed_skip_goes_on),
      cmocka_unit_test(test_malformed_turtle),
      cmocka_unit_test(test_skip_resync_turtle_trig),
      cmocka_unit_test(test_base_resolution),
      cmocka_unit_test(test_bnode_scope_per_file),
      cmocka_unit_test(test_gzip_same_as_plain),
      cmocka_unit_test(test_turtle_gzip),
      cmocka_unit_test(test_empty_and_edge_inputs),
      cmocka_unit_test(test_batches),
      cmocka_unit_test(test_callback_stops_reading),
      cmocka_unit_test(test_syntax_from_name),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
