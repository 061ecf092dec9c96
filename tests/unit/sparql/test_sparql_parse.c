/* test_sparql_parse — the SPARQL front end on hand-picked cases: the
 * algebra printed for the forms the W3C syntax tests only accept or refuse
 * (property path precedence, filter scope, signed numbers, aggregates,
 * blank nodes, every update operation), IRI resolution against RFC 3986's
 * own examples, literals and escapes, and the message, line and column of
 * each static check.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "sparql/sparql.h"
#include "util/util.h"

static arena_t *tp_arena;

/* The algebra of text, or NULL with e filled. */
static const char *tp_sse(const char *text, sp_mode_t mode, err_t *e)
{
  sp_request_t *rq = sp_parse(tp_arena, text, strlen(text), "http://x/y", mode, e);
  return rq ? sp_request_sse(tp_arena, rq) : NULL;
}

static void tp_ok(const char *text, const char *want)
{
  err_t e;
  const char *got = tp_sse(text, SP_PARSE_ANY, &e);
  if (!got)
    fail_msg("refused: %s\n  %s", text, e.er_msg);
  if (strcmp(got, want) != 0)
    fail_msg("query: %s\n--- want\n%s--- got\n%s", text, want, got);
}

/* Refused with 42601 (or state), a message containing what, at line:col. */
static void tp_bad_state(const char *text, sp_mode_t mode, const char *state, const char *what,
                         int line, int col)
{
  err_t e;
  const char *got = tp_sse(text, mode, &e);
  if (got)
    fail_msg("accepted: %s\n%s", text, got);
  if (strcmp(e.er_sqlstate, state) != 0 || !strstr(e.er_msg, what))
    fail_msg("query: %s\n  want %s \"%s\", got %s \"%s\"", text, state, what, e.er_sqlstate, e.er_msg);
  if (line > 0) {
    char where[64];
    snprintf(where, sizeof where, "(line %d, column %d)", line, col);
    if (!strstr(e.er_msg, where))
      fail_msg("query: %s\n  want %s in \"%s\"", text, where, e.er_msg);
  }
}

static void tp_bad(const char *text, const char *what, int line, int col)
{
  tp_bad_state(text, SP_PARSE_ANY, SQLSTATE_SYNTAX_ERROR, what, line, col);
}

static int tp_setup(void **state)
{
  (void)state;
  tp_arena = arena_create(NULL, "test_sparql_parse");
  return 0;
}

static int tp_teardown(void **state)
{
  (void)state;
  arena_destroy(tp_arena);
  return 0;
}

/* RFC 3986 §5.4.1 and §5.4.2, base http://a/b/c/d;p?q. */
static void test_iri_rfc3986(void **state)
{
  (void)state;
  static const char *cases[][2] = {
    { "g:h", "g:h" }, { "g", "http://a/b/c/g" }, { "./g", "http://a/b/c/g" },
    { "g/", "http://a/b/c/g/" }, { "/g", "http://a/g" }, { "//g", "http://g" },
    { "?y", "http://a/b/c/d;p?y" }, { "g?y", "http://a/b/c/g?y" }, { "#s", "http://a/b/c/d;p?q#s" },
    { "g#s", "http://a/b/c/g#s" }, { "g?y#s", "http://a/b/c/g?y#s" }, { ";x", "http://a/b/c/;x" },
    { "g;x", "http://a/b/c/g;x" }, { "g;x?y#s", "http://a/b/c/g;x?y#s" }, { "", "http://a/b/c/d;p?q" },
    { ".", "http://a/b/c/" }, { "./", "http://a/b/c/" }, { "..", "http://a/b/" },
    { "../", "http://a/b/" }, { "../g", "http://a/b/g" }, { "../..", "http://a/" },
    { "../../", "http://a/" }, { "../../g", "http://a/g" },
    { "../../../g", "http://a/g" }, { "../../../../g", "http://a/g" }, { "/./g", "http://a/g" },
    { "/../g", "http://a/g" }, { "g.", "http://a/b/c/g." }, { ".g", "http://a/b/c/.g" },
    { "g..", "http://a/b/c/g.." }, { "..g", "http://a/b/c/..g" }, { "./../g", "http://a/b/g" },
    { "./g/.", "http://a/b/c/g/" }, { "g/./h", "http://a/b/c/g/h" }, { "g/../h", "http://a/b/c/h" },
    { "g;x=1/./y", "http://a/b/c/g;x=1/y" }, { "g;x=1/../y", "http://a/b/c/y" },
    { "g?y/./x", "http://a/b/c/g?y/./x" }, { "g?y/../x", "http://a/b/c/g?y/../x" },
    { "g#s/./x", "http://a/b/c/g#s/./x" }, { "g#s/../x", "http://a/b/c/g#s/../x" },
    { "http:g", "http:g" },
  };
  for (size_t i = 0; i < CZ_ARRAY_LEN(cases); i++) {
    const char *got = sp_iri_resolve(tp_arena, "http://a/b/c/d;p?q", cases[i][0]);
    if (!got || strcmp(got, cases[i][1]) != 0)
      fail_msg("<%s>: want <%s>, got <%s>", cases[i][0], cases[i][1], got ? got : "(null)");
  }
  assert_null(sp_iri_resolve(tp_arena, "relative/base", "g"));
  /* through the query: BASE itself relative to the one before, <> the base */
  tp_ok("BASE <http://a/b/c/d;p?q> BASE <../x/> SELECT * { <> <g> <../../../y> }",
        "(bgp\n  (triple <http://a/b/x/> <http://a/b/x/g> <http://a/y>))\n");
  tp_ok("SELECT * { <> <#f> <z> }",
        "(bgp\n  (triple <http://x/y> <http://x/y#f> <http://x/z>))\n");
  /* absolute IRIs are kept as written, dots and all */
  tp_ok("BASE <http://a/b/> SELECT * { <http://a/./b/../c> <urn:x:y> <./d/../e> }",
        "(bgp\n  (triple <http://a/./b/../c> <urn:x:y> <http://a/b/e>))\n");
}

static void test_prefixed_names(void **state)
{
  (void)state;
  tp_ok("PREFIX : <http://e/> PREFIX a.b-c: <http://f/> SELECT * { :a\\~b\\.c :c%41 :d.e. a.b-c:x :0 :a:b }",
        "(bgp\n  (triple <http://e/a~b.c> <http://e/c%41> <http://e/d.e>)\n"
        "  (triple <http://f/x> <http://e/0> <http://e/a:b>))\n");
  /* a later PREFIX wins */
  tp_ok("PREFIX p: <http://1/> PREFIX p: <http://2/> ASK { p:a p:b p:c }",
        "(ask)\n(bgp\n  (triple <http://2/a> <http://2/b> <http://2/c>))\n");
  tp_bad("SELECT * { q:a ?p ?o }", "undefined prefix \"q:\"", 1, 12);
  tp_bad("PREFIX : <http://e/>\nSELECT * { :a\\x ?p ?o }", "unexpected character \"\\\"", 2, 14);
}

static void test_literals(void **state)
{
  (void)state;
  tp_ok("SELECT * { ?x ?p 'a\\t\\u00e9\\U0001F46A\\'\\\"\\\\' , \"\"\"two \"q\" \n lines\"\"\" , '''it''s'''@en-GB ,"
        " '\\u005c' , \"1\"^^<http://t> }",
        "(bgp\n  (triple ?x ?p \"a\\t\xc3\xa9\xf0\x9f\x91\xaa'\\\"\\\\\")\n"
        "  (triple ?x ?p \"two \\\"q\\\" \\n lines\")\n"
        "  (triple ?x ?p \"it''s\"@en-GB)\n"
        "  (triple ?x ?p \"\\\\\")\n"
        "  (triple ?x ?p \"1\"^^<http://t>))\n");
  tp_ok("SELECT * { ?x ?p 1, -2, +3.5, .5e-3, 1E2, true, FALSE, \"01\"^^<http://www.w3.org/2001/XMLSchema#integer> }",
        "(bgp\n  (triple ?x ?p 1)\n  (triple ?x ?p -2)\n  (triple ?x ?p +3.5)\n  (triple ?x ?p .5e-3)\n"
        "  (triple ?x ?p 1E2)\n  (triple ?x ?p true)\n  (triple ?x ?p false)\n  (triple ?x ?p 01))\n");
  tp_bad("SELECT * { ?x ?p \"a\\qb\" }", "invalid escape \"\\q\"", 1, 18);
  tp_bad("SELECT * {\n ?x ?p \"\\uDC00\" }", "is not a Unicode character", 2, 8);
  tp_bad("SELECT * { ?x ?p \"ab\ncd\" }", "unterminated string", 1, 18);
  tp_bad_state("SELECT * { ?x ?p \"\xff\" }", SP_PARSE_QUERY, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE,
               "invalid UTF-8", 1, 19);
  tp_bad("SELECT * { ?x ?p ?o } LIMIT 1.5", "LIMIT and OFFSET take an integer", 1, 29);
}

static void test_paths(void **state)
{
  (void)state;
  /* '/' binds tighter than '|', '^' tighter than '/', a modifier tightest; && is left-associative */
  tp_ok("PREFIX : <http://e/> SELECT * { ?x :a/:b|^:c ?y }",
        "(path ?x (alt (seq <http://e/a> <http://e/b>) (reverse <http://e/c>)) ?y)\n");
  /* seq splits with a fresh variable (outer seq first: (a/^b)/c*); ^iri reverses the triple */
  tp_ok("PREFIX : <http://e/> SELECT * { ?x :a/^:b/:c* ?y }",
        "(join\n  (bgp\n    (triple ?x <http://e/a> ??P1)\n    (triple ??P0 <http://e/b> ??P1))\n"
        "  (path ??P0 (path* <http://e/c>) ?y))\n");
  /* !(a|^b) splits into the forward and the inverse set */
  tp_ok("PREFIX : <http://e/> SELECT * { ?x !(:a|^:b|a) ?y . ?x !^:c ?z . ?x (:a|:b)+ ?w . ?x :d? ?v . ?x !() ?u }",
        "(join\n  (join\n    (join\n      (join\n"
        "        (path ?x (alt (notoneof <http://e/a> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type>) "
        "(reverse (notoneof <http://e/b>))) ?y)\n"
        "        (path ?x (reverse (notoneof <http://e/c>)) ?z))\n"
        "      (path ?x (path+ (alt <http://e/a> <http://e/b>)) ?w))\n"
        "    (path ?x (path? <http://e/d>) ?v))\n  (path ?x (notoneof) ?u))\n");
  tp_bad("CONSTRUCT { ?s <http://e/a>/<http://e/b> ?o } WHERE { ?s ?p ?o }",
         "property paths are not allowed in a CONSTRUCT template", 1, 1);
}

static void test_groups(void **state)
{
  (void)state;
  /* the FILTERs of a group apply to all of it; OPTIONAL's filter goes into the LeftJoin */
  tp_ok("PREFIX : <http://e/> SELECT * { ?x :p ?y OPTIONAL { ?y :q ?z FILTER(?z = 1) } FILTER(?x) ?x :r ?v }",
        "(filter ?x\n  (join\n    (leftjoin\n      (bgp\n        (triple ?x <http://e/p> ?y))\n"
        "      (bgp\n        (triple ?y <http://e/q> ?z))\n      (= ?z 1))\n"
        "    (bgp\n      (triple ?x <http://e/r> ?v))))\n");
  /* a nested group's FILTER stays inside the OPTIONAL's right side
   * (W3C dawg-optional-filter-005-not-simplified) */
  tp_ok("SELECT * { ?x <http://e/p> ?y OPTIONAL { { ?x <http://e/q> ?z FILTER(?y = 1) } } }",
        "(leftjoin\n  (bgp\n    (triple ?x <http://e/p> ?y))\n"
        "  (filter (= ?y 1)\n    (bgp\n      (triple ?x <http://e/q> ?z))))\n");
  /* triples on both sides of a FILTER are one BGP (one blank node scope) */
  tp_ok("ASK { _:a <http://e/p> ?h FILTER(?h) _:a <http://e/q> [] }",
        "(ask)\n(filter ?h\n  (bgp\n    (triple ??0 <http://e/p> ?h)\n    (triple ??0 <http://e/q> ??1)))\n");
  tp_ok("SELECT * { OPTIONAL { ?a ?b ?c } MINUS { ?a ?b 1 } BIND(1 AS ?d) BIND(2 AS ?e) VALUES ?a { <http://e/> UNDEF } }",
        "(join\n  (extend ((?d 1) (?e 2))\n    (minus\n      (leftjoin\n        (table unit)\n"
        "        (bgp\n          (triple ?a ?b ?c)))\n      (bgp\n        (triple ?a ?b 1))))\n"
        "  (table (vars ?a) (row [?a <http://e/>]) (row)))\n");
  tp_ok("SELECT ?s { { SELECT ?s WHERE { ?s ?p ?o } ORDER BY ?o LIMIT 2 } UNION { ?s ?p 1 } }",
        "(project (?s)\n  (union\n    (slice _ 2\n      (project (?s)\n        (order (?o)\n"
        "          (bgp\n            (triple ?s ?p ?o)))))\n    (bgp\n      (triple ?s ?p 1))))\n");
  /* collections and [ ] as subject */
  tp_ok("SELECT * { (1 ?x) <http://e/p> [ <http://e/q> 2 ] }",
        "(bgp\n  (triple ??0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> 1)\n"
        "  (triple ??0 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> ??1)\n"
        "  (triple ??1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#first> ?x)\n"
        "  (triple ??1 <http://www.w3.org/1999/02/22-rdf-syntax-ns#rest> <http://www.w3.org/1999/02/22-rdf-syntax-ns#nil>)\n"
        "  (triple ??0 <http://e/p> ??2)\n  (triple ??2 <http://e/q> 2))\n");
}

static void test_expressions(void **state)
{
  (void)state;
  /* a signed number after an expression is the operator: ?a -1 * ?b is ?a - (1 * ?b) */
  tp_ok("SELECT (?a -1*?b AS ?x) (?a+-2 AS ?y) (-?a + +3 AS ?z) (!?a || ?b && ?c = 2 AS ?w) {}",
        "(project (?x ?y ?z ?w)\n  (extend ((?x (- ?a (* 1 ?b))) (?y (+ ?a -2)) (?z (+ (- ?a) +3)) "
        "(?w (|| (! ?a) (&& ?b (= ?c 2)))))\n    (table unit)))\n");
  tp_ok("SELECT * { FILTER(?a IN (1, 2) && ?b NOT IN () && regex(str(?c), \"x\", \"i\") && <http://f>(?a, ?b)"
        " && BOUND(?a) && isIRI(?a) && COALESCE() && NOT EXISTS { ?a ?b ?c }) }",
        "(filter (&& (&& (&& (&& (&& (&& (&& (in ?a 1 2) (notin ?b)) (regex (str ?c) \"x\" \"i\")) "
        "(<http://f> ?a ?b)) (bound ?a)) (isIRI ?a)) (coalesce)) (notexists (bgp (triple ?a ?b ?c))))\n"
        "  (table unit))\n");
  tp_bad("SELECT * { FILTER(STR(?a, ?b)) }", "str takes 1 argument, not 2", 1, 19);
  tp_bad("SELECT * { FILTER(regex(?a)) }", "regex takes 2 to 3 arguments, not 1", 1, 19);
  tp_bad("SELECT * { FILTER(BOUND(1)) }", "BOUND takes a variable", 1, 19);
  tp_bad("SELECT * { FILTER(foo(?a)) }", "unknown word \"foo\"", 1, 19);
}

static void test_aggregates(void **state)
{
  (void)state;
  tp_ok("SELECT ?x (GROUP_CONCAT(DISTINCT ?y ; SEPARATOR=\", \") AS ?g) (COUNT(DISTINCT *) AS ?n)"
        " (SUM(?y) + SUM(?y) AS ?s) { ?x <http://e/p> ?y } GROUP BY ?x HAVING (COUNT(?y) > 1) ORDER BY DESC(MAX(?y))",
        "(project (?x ?g ?n ?s)\n  (order ((desc ?.4))\n    (extend ((?g ?.0) (?n ?.1) (?s (+ ?.2 ?.2)))\n"
        "      (filter (> ?.3 1)\n        (group (?x) ((?.0 (group_concat distinct (separator \", \") ?y)) "
        "(?.1 (count distinct)) (?.2 (sum ?y)) (?.3 (count ?y)) (?.4 (max ?y)))\n"
        "          (bgp\n            (triple ?x <http://e/p> ?y)))))))\n");
  /* aggregates without GROUP BY: one group; GROUP BY an expression with AS */
  tp_ok("SELECT (AVG(?y) AS ?a) ?k { ?x ?p ?y } GROUP BY (STR(?x) AS ?k)",
        "(project (?a ?k)\n  (extend ((?a ?.0))\n    (group ((?k (str ?x))) ((?.0 (avg ?y)))\n"
        "      (bgp\n        (triple ?x ?p ?y)))))\n");
  tp_ok("SELECT (COUNT(*) AS ?c) (?c + 1 AS ?d) { ?x ?p ?y }",
        "(project (?c ?d)\n  (extend ((?c ?.0) (?d (+ ?c 1)))\n    (group () ((?.0 (count)))\n"
        "      (bgp\n        (triple ?x ?p ?y)))))\n");
  tp_ok("SELECT ?x (SAMPLE(?y) AS ?s) { ?x ?p ?y } GROUP BY (?x) (LCASE(?y))",
        "(project (?x ?s)\n  (extend ((?s ?.0))\n    (group (?x (lcase ?y)) ((?.0 (sample ?y)))\n"
        "      (bgp\n        (triple ?x ?p ?y)))))\n");
  tp_bad("SELECT * { ?x ?p ?y } GROUP BY ?x", "SELECT * is not allowed with GROUP BY", 1, 1);
  tp_bad("SELECT ?x ?y { ?x ?p ?y } GROUP BY ?x", "?y is selected but neither grouped nor aggregated", 1, 11);
  tp_bad("SELECT (?y + COUNT(?x) AS ?c) { ?x ?p ?y }", "?y is neither grouped nor aggregated", 1, 9);
  tp_bad("SELECT (SUM(COUNT(?x)) AS ?c) { ?x ?p ?y }", "aggregate count inside another aggregate", 1, 13);
  tp_bad("SELECT * { ?x ?p ?y FILTER(COUNT(?x) > 1) }", "aggregate count is allowed only in SELECT", 1, 28);
  tp_bad("SELECT (SUM(*) AS ?c) { ?x ?p ?y }", "only COUNT takes *", 1, 9);
}

static void test_scope(void **state)
{
  (void)state;
  tp_bad("SELECT * {\n  ?s ?p ?o\n  BIND(1 AS ?o)\n}", "BIND assigns ?o, which is already in scope", 3, 13);
  /* a BIND may reuse a variable of another group or one only in a FILTER */
  tp_ok("SELECT * { { ?s ?p ?o } UNION { BIND(1 AS ?s) } FILTER(?z) BIND(2 AS ?z) }",
        "(filter ?z\n  (extend ((?z 2))\n    (union\n      (bgp\n        (triple ?s ?p ?o))\n"
        "      (extend ((?s 1))\n        (table unit)))))\n");
  tp_bad("SELECT (1 AS ?o) { ?s ?p ?o }", "(… AS ?o): ?o is already in scope", 1, 14);
  tp_bad("SELECT (1 AS ?a) (2 AS ?a) {}", "(… AS ?a): ?a is already in scope", 1, 24);
  tp_bad("SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?r } }", "blank node label _:a is used in two different", 1, 33);
  tp_bad("SELECT * { ?a ?b ?c } VALUES (?a ?b) { (1) }", "VALUES row 1 has 1 value for 2 variables", 1, 30);
  tp_bad("SELECT * { ?s ?p ?o } LIMIT", "syntax error at end of input", 1, 28);
  tp_bad("SELECT * {\n  ?s ?p ?o .\n  ?s ?p\n}", "syntax error at or near \"}\"", 4, 1);
  /* without a base, a relative IRI is an error */
  err_t e;
  const char *t = "SELECT * {\n ?s <rel> ?o }";
  assert_null(sp_parse(tp_arena, t, strlen(t), NULL, SP_PARSE_QUERY, &e));
  assert_string_equal(e.er_sqlstate, SQLSTATE_SYNTAX_ERROR);
  assert_non_null(strstr(e.er_msg, "relative IRI <rel> without a base IRI (line 2, column 5)"));
  assert_int_equal(e.er_pos, 16);
}

static void test_updates(void **state)
{
  (void)state;
  tp_ok("PREFIX : <http://e/>\nINSERT DATA { :a :b _:c . GRAPH :g { :a :b \"x\" } } ;\nDELETE DATA { :a :b :c } ;\n"
        "DELETE WHERE { ?s :p ?o . GRAPH ?g { ?s :q ?o } } ;\n"
        "WITH :g DELETE { ?s :p ?o } INSERT { ?s :q [] } USING :u USING NAMED :n WHERE { ?s :p ?o } ;\n"
        "LOAD SILENT <http://d> INTO GRAPH :g ; CLEAR NAMED ; DROP SILENT GRAPH :g ; CREATE GRAPH :h ;\n"
        "ADD DEFAULT TO :g ; MOVE SILENT GRAPH :g TO DEFAULT ; COPY :g TO :h ;",
        "(insertData\n  (triple <http://e/a> <http://e/b> _:c)\n  (quad <http://e/g> <http://e/a> <http://e/b> \"x\"))\n"
        "(deleteData\n  (triple <http://e/a> <http://e/b> <http://e/c>))\n"
        "(deleteWhere\n  (triple ?s <http://e/p> ?o)\n  (quad ?g ?s <http://e/q> ?o))\n"
        "(join\n  (bgp\n    (triple ?s <http://e/p> ?o))\n  (graph ?g\n    (bgp\n      (triple ?s <http://e/q> ?o))))\n"
        "(modify (with <http://e/g>) (using <http://e/u>) (using named <http://e/n>)\n"
        " (delete\n  (triple ?s <http://e/p> ?o))\n (insert\n  (triple ?s <http://e/q> _:b0))\n"
        " (bgp\n    (triple ?s <http://e/p> ?o)))\n"
        "(load silent <http://d> <http://e/g>)\n(clear named)\n(drop silent <http://e/g>)\n(create <http://e/h>)\n"
        "(add default <http://e/g>)\n(move silent <http://e/g> default)\n(copy <http://e/g> <http://e/h>)\n");
  /* the empty request and one of prologues only are valid updates */
  err_t e;
  assert_string_equal(tp_sse("", SP_PARSE_UPDATE, &e), "");
  assert_string_equal(tp_sse("PREFIX : <http://e/> ", SP_PARSE_UPDATE, &e), "");
  tp_bad_state("SELECT * {}", SP_PARSE_UPDATE, SQLSTATE_SYNTAX_ERROR, "syntax error at or near \"SELECT\"", 1, 1);
  tp_bad_state("CLEAR ALL", SP_PARSE_QUERY, SQLSTATE_SYNTAX_ERROR, "syntax error at or near \"CLEAR\"", 1, 1);
  tp_bad("INSERT DATA { ?s <http://e/p> 1 }", "variable ?s is not allowed in INSERT DATA", 1, 15);
  tp_bad("DELETE DATA { GRAPH ?g { <http://e/s> <http://e/p> 1 } }", "variable ?g is not allowed in DELETE DATA", 1, 21);
  tp_bad("DELETE DATA { _:b <http://e/p> 1 }", "blank nodes are not allowed in DELETE DATA", 1, 15);
  tp_bad("DELETE WHERE { [] ?p ?o }", "blank nodes are not allowed in DELETE WHERE", 1, 16);
  tp_bad("DELETE { ?s ?p [] } WHERE { ?s ?p ?o }", "blank nodes are not allowed in a DELETE template", 1, 16);
  tp_bad("INSERT DATA { _:b <http://e/p> 1 } ; INSERT DATA { _:b <http://e/p> 2 }",
         "blank node label _:b is used in two different basic graph patterns or update operations", 1, 52);
}

/* Long chains built by loops in the parser and walked by recursion later
 * are bounded (54001), as is nesting (Bison's stack). */
/* Where a SPARQL statement ends inside a multi-statement SQL text. */
static size_t extent_of(const char *t) { return sp_statement_extent(t, strlen(t)); }

static void test_statement_extent(void **state)
{
  (void)state;
  assert_int_equal(extent_of("SELECT * { ?s ?p ?o }; SELECT 1"), 21);
  assert_int_equal(extent_of("SELECT * { ?s <p> ?o ; <q> ?x } ;x"), 32);
  assert_int_equal(extent_of("SELECT (GROUP_CONCAT(?x ; SEPARATOR=';') AS ?y) {}; x"), 50);
  assert_int_equal(extent_of("SELECT * { ?s <http://a;b#c> ?o } # ; comment\n;x"), 46);
  assert_int_equal(extent_of("SELECT * { ?s ?p \"a;b\" , '''x;\ny''' FILTER(?o < 3) };"), 52);
  assert_int_equal(extent_of("SELECT * {}"), 11);
  /* an update's operations are separated by ';' too: the statement goes
   * on when another operation follows, and ends before SQL */
  assert_int_equal(extent_of("INSERT DATA { <a> <b> 1 } ; DELETE DATA { <a> <b> 1 }; SELECT 1"), 53);
  assert_int_equal(extent_of("CLEAR ALL ; insert { ?s <p> 1 } WHERE {} ;LOAD <file:///x> ; x"), 59);
  assert_int_equal(extent_of("DROP GRAPH <g> ; COPY ex:a TO ex:b ; MOVE DEFAULT TO <x> ; PREFIX ex: <e> "
                             "ADD :a TO :b ; WITH <g> DELETE WHERE {} ; CREATE SILENT GRAPH <g>"), 139);
  assert_int_equal(extent_of("INSERT DATA { <a> <b> 1 } ; INSERT INTO t VALUES (1)"), 26);
  assert_int_equal(extent_of("INSERT DATA { <a> <b> 1 } ; DELETE FROM t"), 26);
  assert_int_equal(extent_of("CLEAR ALL; DROP TABLE t"), 9);
  assert_int_equal(extent_of("CLEAR ALL; COPY t TO STDOUT"), 9);
  assert_int_equal(extent_of("CLEAR ALL; WITH x AS (SELECT 1) SELECT * FROM x"), 9);
  assert_int_equal(extent_of("CLEAR ALL; MOVE FORWARD 2 IN c"), 9);
  assert_int_equal(extent_of("CLEAR ALL; CREATE TABLE t (a int)"), 9);
}

static void test_depth_limits(void **state)
{
  (void)state;
  static char buf[200000];
  const char *parts[][4] = {
    { "SELECT * { FILTER(", "?a", "+", ") }" },
    { "SELECT * { ", "{?a ?b ?c}", " UNION ", " }" },
    { "SELECT * { ?a ", "<http://e/p>", "|", " ?b }" },
  };
  const char *whats[] = { "expression nested more than 1000 deep", "more than 1000 operators deep",
                          "property path nested more than 1000 deep" };
  for (size_t k = 0; k < CZ_ARRAY_LEN(parts); k++) {
    for (int n = 900; n <= 1100; n += 200) {
      size_t o = (size_t)snprintf(buf, sizeof buf, "%s", parts[k][0]);
      for (int i = 0; i < n; i++)
        o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", i ? parts[k][2] : "", parts[k][1]);
      snprintf(buf + o, sizeof buf - o, "%s", parts[k][3]);
      err_t e;
      const char *got = tp_sse(buf, SP_PARSE_QUERY, &e);
      if (n < 1000)
        assert_non_null(got);
      else
        tp_bad_state(buf, SP_PARSE_QUERY, SQLSTATE_STATEMENT_TOO_COMPLEX, whats[k], 0, 0);
    }
  }
  size_t o = (size_t)snprintf(buf, sizeof buf, "ASK { FILTER(");
  for (int i = 0; i < 20000; i++)
    buf[o++] = '(';
  buf[o++] = '1';
  for (int i = 0; i < 20000; i++)
    buf[o++] = ')';
  snprintf(buf + o, sizeof buf - o, ") }");
  tp_bad_state(buf, SP_PARSE_QUERY, SQLSTATE_STATEMENT_TOO_COMPLEX, "nested too deeply", 0, 0);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_iri_rfc3986),
    cmocka_unit_test(test_prefixed_names),
    cmocka_unit_test(test_literals),
    cmocka_unit_test(test_paths),
    cmocka_unit_test(test_groups),
    cmocka_unit_test(test_expressions),
    cmocka_unit_test(test_aggregates),
    cmocka_unit_test(test_scope),
    cmocka_unit_test(test_updates),
    cmocka_unit_test(test_statement_extent),
    cmocka_unit_test(test_depth_limits),
  };
  return cmocka_run_group_tests(tests, tp_setup, tp_teardown);
}
