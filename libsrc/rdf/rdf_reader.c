/* rdf_reader — N-Triples, N-Quads, Turtle and TriG into batches of quads,
 * over the serd parser library.
 *
 * Design notes:
 *  - Streaming: the input (rdf_input.c) is read in blocks; nothing grows
 *    with the file except counters. Quads are copied out of serd's nodes
 *    into one batch (an array of quads and one string buffer) handed to
 *    the caller every ro_batch quads; term strings are kept as offsets
 *    while the buffer may move and turned into pointers just before the
 *    callback.
 *  - The line formats (N-Triples, N-Quads) are split into lines here and
 *    each line is parsed on its own (serd_reader_read_string): an error
 *    then names exactly its line, skip mode drops exactly that line, and
 *    serd's N-Quads reader (which stops at the first error whatever its
 *    strict flag) need not recover. After an error the serd reader is
 *    made anew, because serd may leave nodes of the failed statement on
 *    its stack.
 *  - Turtle and TriG are read by serd as one stream, always in strict
 *    mode (serd's lax mode resumes at the next line, which in TriG reads
 *    the rest of a graph block into the default graph). Stop mode ends at
 *    the first error. Skip mode finds, with a small lexical scan
 *    (rdf_tok_t: strings, IRIs, comments, block depth), where the bad
 *    top-level statement ends at or after serd's error position — its
 *    '.', or the '}' of the graph block it is in — and starts a new serd
 *    reader there (the prefixes and base live in our SerdEnv, so they
 *    carry over; serd's names for [] restart, so they get the restart
 *    number). The scan starts from the state kept for the first of the
 *    last 8 KB serd read (rd_tok_win), and reads on from the input when
 *    the end lies further.
 *  - Relative IRIs (including <>) resolve against the base: ro_base, else
 *    the file's file:// IRI, changed by @base/BASE as the text says.
 *    Prefixed names expand through the prefixes the text declares.
 *  - Blank node labels get the prefix "b<scope>_", the scope a number per
 *    read (ro_bnode_scope, or a fresh one from a process-wide counter), so
 *    _:x of two files (or two loads) are two nodes. Labels serd invents for
 *    [] and collections get the same prefix.
 */
#include <limits.h>
#include <serd/serd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rdf/rdf_int.h"

#define RDF_LINE_BLOCK (256 * 1024)
#define RDF_DEFAULT_BATCH 4096
#define RDF_LOG_ERRORS_MAX 100 /* skipped statements logged per read */

/* A lexical scan of Turtle/TriG just deep enough to find where a
 * top-level statement ends (a '.' followed by white space or a comment
 * outside strings, IRIs and comments, or a '}' closing a graph block):
 * where a skipped statement's text ends. */
typedef enum rdf_tok_state_e {
  RDF_TOK_NORMAL = 0,
  RDF_TOK_IRI,
  RDF_TOK_STR,     /* "..." or '...' */
  RDF_TOK_LSTR,    /* """...""" or '''...''' */
  RDF_TOK_COMMENT,
  RDF_TOK_QUOTES,  /* one or two quotes seen: a string opens or an empty one */
} rdf_tok_state_t;

typedef struct rdf_tok_s {
  uint8_t tk_state;
  char tk_q;      /* the quote character of the string */
  uint8_t tk_nq;  /* quotes seen in a row (RDF_TOK_QUOTES, RDF_TOK_LSTR) */
  bool tk_esc;    /* after a backslash in a string */
  bool tk_dot;    /* the last character was a '.' at the top level */
  int tk_depth;   /* graph block depth */
} rdf_tok_t;

/* Feeds one character; true when a top-level statement ended just before
 * or at it (reading may resume after it). */
static bool rdf_tok_step(rdf_tok_t *t, char c)
{
  bool dot = t->tk_dot;
  t->tk_dot = false;
  switch (t->tk_state) {
  case RDF_TOK_IRI:
    if (c == '>')
      t->tk_state = RDF_TOK_NORMAL;
    return false;
  case RDF_TOK_COMMENT:
    if (c == '\n')
      t->tk_state = RDF_TOK_NORMAL;
    return false;
  case RDF_TOK_STR:
    if (t->tk_esc)
      t->tk_esc = false;
    else if (c == '\\')
      t->tk_esc = true;
    else if (c == t->tk_q || c == '\n')
      t->tk_state = RDF_TOK_NORMAL; /* a line break ends a broken short string */
    return false;
  case RDF_TOK_LSTR:
    if (t->tk_esc) {
      t->tk_esc = false;
      t->tk_nq = 0;
    } else if (c == '\\') {
      t->tk_esc = true;
      t->tk_nq = 0;
    } else if (c == t->tk_q) {
      if (++t->tk_nq == 3)
        t->tk_state = RDF_TOK_NORMAL;
    } else
      t->tk_nq = 0;
    return false;
  case RDF_TOK_QUOTES:
    if (c == t->tk_q && t->tk_nq == 1) {
      t->tk_nq = 2;
      return false;
    }
    if (c == t->tk_q && t->tk_nq == 2) {
      t->tk_state = RDF_TOK_LSTR;
      t->tk_nq = 0;
      return false;
    }
    if (t->tk_nq == 1) { /* a short string's first character */
      t->tk_state = RDF_TOK_STR;
      return rdf_tok_step(t, c);
    }
    t->tk_state = RDF_TOK_NORMAL; /* an empty string: c is outside */
    return rdf_tok_step(t, c);
  default:
    break;
  }
  switch (c) {
  case '<': t->tk_state = RDF_TOK_IRI; break;
  case '#': t->tk_state = RDF_TOK_COMMENT; return dot && t->tk_depth == 0;
  case '"':
  case '\'':
    t->tk_state = RDF_TOK_QUOTES;
    t->tk_q = c;
    t->tk_nq = 1;
    break;
  case '{': t->tk_depth++; break;
  case '}':
    if (t->tk_depth > 0 && --t->tk_depth == 0)
      return true;
    break;
  case '.': t->tk_dot = true; break;
  case ' ': case '\t': case '\r': case '\n':
    return dot && t->tk_depth == 0;
  default: break;
  }
  return false;
}

typedef struct rdf_rd_s {
  const rdf_read_opts_t *rd_o;
  err_t *rd_e;
  const char *rd_name; /* the file name in messages */
  rdf_input_t rd_in;
  SerdSyntax rd_syn;
  SerdReader *rd_sr;
  SerdEnv *rd_env;
  size_t rd_batch;
  /* the batch; term strings as offset + 1 into rd_sb until the callback */
  rdf_quad_t *rd_q;
  size_t rd_nq, rd_qcap;
  char *rd_sb;
  size_t rd_sl, rd_scap;
  char rd_bprefix[32];
  size_t rd_bplen;
  /* the error of the statement being read (the first one serd reports) */
  bool rd_have_err;
  unsigned rd_err_line, rd_err_col;
  char rd_err_msg[256];
  /* stream mode skip: where serd is restarted after a bad statement */
  unsigned rd_line_base;  /* absolute line of serd's line 1 */
  unsigned rd_gen;        /* restarts so far (renames serd's [] labels) */
  unsigned rd_logged;     /* skipped statements logged so far */
  rdf_tok_t rd_tok_win;   /* lexical state at rd_win[0] */
  char *rd_pend;          /* text to hand serd before more input */
  size_t rd_pend_len, rd_pend_pos;
  uint64_t rd_line;           /* line mode: the line being parsed */
  const char *rd_cur;         /* line mode: its text */
  size_t rd_cur_len;
  /* stream mode: the last two pages handed to serd, to find the line of
   * an error only this file sees (an undefined prefix): serd does not
   * say where it is when a statement callback fails */
  char rd_win[8192];
  size_t rd_win_len;
  uint64_t rd_win_line; /* line number of rd_win[0] */
  size_t rd_win_from;   /* search from here (after the last error found) */
  bool rd_line_mode;
  bool rd_stop;     /* the callback or an allocation failed: rd_e is set */
  bool rd_io_failed; /* reading the input failed: rd_e is set */
} rdf_rd_t;

static uint64_t rdf_bnode_scope_counter;

uint64_t rdf_bnode_scope_new(void)
{
  return __atomic_add_fetch(&rdf_bnode_scope_counter, 1, __ATOMIC_RELAXED);
}

rdf_syntax_t rdf_syntax_from_name(const char *name)
{
  size_t n = strlen(name);
  if (n > 3 && strcmp(name + n - 3, ".gz") == 0)
    n -= 3;
  static const struct {
    const char *ext;
    rdf_syntax_t syn;
  } exts[] = {{".nt", RDF_SYNTAX_NTRIPLES}, {".nq", RDF_SYNTAX_NQUADS},
              {".ttl", RDF_SYNTAX_TURTLE},  {".n3", RDF_SYNTAX_TURTLE},
              {".trig", RDF_SYNTAX_TRIG}};
  for (size_t i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
    size_t el = strlen(exts[i].ext);
    if (n > el && strncasecmp(name + n - el, exts[i].ext, el) == 0)
      return exts[i].syn;
  }
  return RDF_SYNTAX_GUESS;
}

/* ---- the batch ---- */

static int rdf_rd_oom(rdf_rd_t *rd)
{
  rdf_rd_t *r = rd;
  r->rd_stop = true;
  return err_set(r->rd_e, SQLSTATE_OUT_OF_MEMORY, "out of memory reading %s", r->rd_name);
}

/* Appends bytes to the string buffer; the offset + 1 of their start, 0 on
 * failure. */
static size_t rdf_rd_put(rdf_rd_t *rd, const void *s, size_t n)
{
  if (rd->rd_sl + n > rd->rd_scap) {
    size_t cap = rd->rd_scap ? rd->rd_scap : 1 << 16;
    while (cap < rd->rd_sl + n)
      cap *= 2;
    char *nb = realloc(rd->rd_sb, cap);
    if (!nb) {
      rdf_rd_oom(rd);
      return 0;
    }
    rd->rd_sb = nb;
    rd->rd_scap = cap;
  }
  size_t off = rd->rd_sl;
  if (n)
    memcpy(rd->rd_sb + off, s, n);
  rd->rd_sl += n;
  return off + 1;
}

static void rdf_rd_fix(const rdf_rd_t *rd, rdf_term_t *t)
{
  if (t->rt_str)
    t->rt_str = rd->rd_sb + ((uintptr_t)t->rt_str - 1);
  if (t->rt_dt)
    t->rt_dt = rd->rd_sb + ((uintptr_t)t->rt_dt - 1);
  if (t->rt_lang)
    t->rt_lang = rd->rd_sb + ((uintptr_t)t->rt_lang - 1);
}

static int rdf_rd_flush(rdf_rd_t *rd)
{
  if (rd->rd_nq == 0)
    return CZ_OK;
  for (size_t i = 0; i < rd->rd_nq; i++) {
    rdf_rd_fix(rd, &rd->rd_q[i].rq_s);
    rdf_rd_fix(rd, &rd->rd_q[i].rq_p);
    rdf_rd_fix(rd, &rd->rd_q[i].rq_o);
    rdf_rd_fix(rd, &rd->rd_q[i].rq_g);
  }
  size_t n = rd->rd_nq;
  rd->rd_nq = 0;
  rd->rd_sl = 0;
  __atomic_fetch_add(&rd->rd_in.ri_prog->rp_statements, n, __ATOMIC_RELAXED);
  int st = rd->rd_o->ro_fn ? rd->rd_o->ro_fn(rd->rd_o->ro_ctx, rd->rd_q, n, rd->rd_e) : 0;
  if (st) {
    rd->rd_stop = true;
    if (rd->rd_e && !rd->rd_e->er_msg[0])
      err_set(rd->rd_e, SQLSTATE_INTERNAL, "reading %s stopped by its consumer", rd->rd_name);
    return CZ_ERR;
  }
  return CZ_OK;
}

/* ---- serd callbacks ---- */

static void rdf_rd_error(rdf_rd_t *rd, unsigned line, unsigned col, const char *fmt, ...)
    CZ_PRINTF(4, 5);

static void rdf_rd_error(rdf_rd_t *rd, unsigned line, unsigned col, const char *fmt, ...)
{
  if (rd->rd_have_err)
    return;
  rd->rd_have_err = true;
  rd->rd_err_line = line;
  rd->rd_err_col = col;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(rd->rd_err_msg, sizeof(rd->rd_err_msg), fmt, ap);
  va_end(ap);
  size_t n = strlen(rd->rd_err_msg);
  while (n && (rd->rd_err_msg[n - 1] == '\n' || rd->rd_err_msg[n - 1] == ' '))
    rd->rd_err_msg[--n] = '\0';
}

static unsigned rdf_rd_line_now(const rdf_rd_t *rd, unsigned serd_line)
{
  if (rd->rd_line_mode)
    return rd->rd_line > UINT_MAX ? UINT_MAX : (unsigned)rd->rd_line;
  return serd_line ? rd->rd_line_base + serd_line - 1 : 0;
}

/* Reports an error of a skipped statement (skip mode, Turtle/TriG). */
static void rdf_rd_report_skip(rdf_rd_t *rd)
{
  __atomic_fetch_add(&rd->rd_in.ri_prog->rp_errors, 1, __ATOMIC_RELAXED);
  /* a file of bad lines must not flood the log: the first ones, then a
   * note (the count stays exact in rp_errors) */
  if (++rd->rd_logged <= RDF_LOG_ERRORS_MAX)
    log_write(LOG_WARN, "%s:%u:%u: %s (statement skipped)%s", rd->rd_name, rd->rd_err_line,
              rd->rd_err_col, rd->rd_err_msg,
              rd->rd_logged == RDF_LOG_ERRORS_MAX ? "; further errors of this file not logged"
                                                   : "");
}

static SerdStatus rdf_rd_on_error(void *h, const SerdError *err)
{
  rdf_rd_t *rd = h;
  char msg[256];
  va_list ap;
  va_copy(ap, *err->args);
  vsnprintf(msg, sizeof(msg), err->fmt, ap);
  va_end(ap);
  rdf_rd_error(rd, rdf_rd_line_now(rd, err->line), err->col, "%s", msg);
  return SERD_SUCCESS;
}

static SerdStatus rdf_rd_on_base(void *h, const SerdNode *uri)
{
  rdf_rd_t *rd = h;
  return serd_env_set_base_uri(rd->rd_env, uri);
}

static SerdStatus rdf_rd_on_prefix(void *h, const SerdNode *name, const SerdNode *uri)
{
  rdf_rd_t *rd = h;
  return serd_env_set_prefix(rd->rd_env, name, uri);
}

static size_t rdf_rd_uri_sink(const void *buf, size_t len, void *stream)
{
  rdf_rd_t *rd = stream;
  return rdf_rd_put(rd, buf, len) ? len : 0;
}

/* Where text occurs in the current line (line mode) or in the last pages
 * serd read (stream mode, after the previous such error): line and
 * column, 0 when not found. */
static void rdf_rd_locate(rdf_rd_t *rd, const char *text, size_t tl, unsigned *line,
                          unsigned *col)
{
  const char *hay = rd->rd_line_mode ? rd->rd_cur : rd->rd_win;
  size_t hl = rd->rd_line_mode ? rd->rd_cur_len : rd->rd_win_len;
  size_t from = rd->rd_line_mode ? 0 : rd->rd_win_from;
  *line = rdf_rd_line_now(rd, 0);
  *col = 0;
  if (!hay || tl == 0 || from >= hl)
    return;
  const char *hit = memmem(hay + from, hl - from, text, tl);
  if (!hit)
    return;
  size_t pos = (size_t)(hit - hay);
  *col = 1;
  uint64_t ln = rd->rd_win_line;
  for (size_t i = 0; i < pos; i++) {
    (*col)++;
    if (hay[i] == '\n') {
      ln++;
      *col = 1;
    }
  }
  if (!rd->rd_line_mode) {
    *line = ln > UINT_MAX ? UINT_MAX : (unsigned)ln;
    rd->rd_win_from = pos + tl;
  }
}

/* An error found in a statement callback (serd knows nothing of it). */
static void rdf_rd_sink_error(rdf_rd_t *rd, const SerdNode *n, const char *what)
{
  unsigned line, col;
  rdf_rd_locate(rd, (const char *)n->buf, n->n_bytes, &line, &col);
  rdf_rd_error(rd, line, col, "%s \"%s\"", what, (const char *)n->buf);
}

/* An IRI node (absolute, relative or a prefixed name) as an absolute IRI
 * in the string buffer; *off is its offset + 1. */
static int rdf_rd_iri(rdf_rd_t *rd, const SerdNode *n, size_t *off, size_t *len)
{
  size_t start = rd->rd_sl;
  if (n->type == SERD_CURIE) {
    SerdChunk pfx, sfx;
    if (serd_env_expand(rd->rd_env, n, &pfx, &sfx) != SERD_SUCCESS) {
      rdf_rd_sink_error(rd, n, "undefined prefix in");
      return CZ_ERR;
    }
    if (!(*off = rdf_rd_put(rd, pfx.buf, pfx.len)) || !rdf_rd_put(rd, sfx.buf, sfx.len))
      return CZ_ERR;
  } else if (serd_uri_string_has_scheme(n->buf)) {
    if (!(*off = rdf_rd_put(rd, n->buf, n->n_bytes)))
      return CZ_ERR;
  } else {
    SerdURI base, rel, abs;
    serd_env_get_base_uri(rd->rd_env, &base);
    if (serd_uri_parse(n->buf, &rel) != SERD_SUCCESS) {
      rdf_rd_sink_error(rd, n, "invalid IRI");
      return CZ_ERR;
    }
    serd_uri_resolve(&rel, &base, &abs);
    *off = rd->rd_sl + 1;
    serd_uri_serialise(&abs, rdf_rd_uri_sink, rd);
    if (rd->rd_stop)
      return CZ_ERR;
  }
  *len = rd->rd_sl - start;
  return CZ_OK;
}

static int rdf_rd_term(rdf_rd_t *rd, const SerdNode *n, const SerdNode *dt, const SerdNode *lang,
                       rdf_term_t *t)
{
  memset(t, 0, sizeof(*t));
  size_t off, len;
  switch (n->type) {
  case SERD_URI:
  case SERD_CURIE:
    if (rdf_rd_iri(rd, n, &off, &len) != CZ_OK)
      return CZ_ERR;
    t->rt_kind = RDF_IRI;
    t->rt_str = (const char *)(uintptr_t)off;
    t->rt_len = len;
    return CZ_OK;
  case SERD_BLANK: {
    if (!(off = rdf_rd_put(rd, rd->rd_bprefix, rd->rd_bplen)) ||
        !rdf_rd_put(rd, n->buf, n->n_bytes))
      return CZ_ERR;
    size_t extra = 0;
    /* serd names [] and lists b1, b2, … per reader (a written _:b1 it
     * renames B1), so after a restart its names start over: tell them
     * apart by the restart number */
    if (rd->rd_gen && n->n_bytes > 1 && n->buf[0] == 'b' &&
        strspn((const char *)n->buf + 1, "0123456789") == n->n_bytes - 1) {
      char g[16];
      extra = (size_t)snprintf(g, sizeof(g), "r%u", rd->rd_gen);
      if (!rdf_rd_put(rd, g, extra))
        return CZ_ERR;
    }
    t->rt_kind = RDF_BNODE;
    t->rt_str = (const char *)(uintptr_t)off;
    t->rt_len = rd->rd_bplen + n->n_bytes + extra;
    return CZ_OK;
  }
  case SERD_LITERAL:
    t->rt_kind = RDF_LITERAL;
    if (!(off = rdf_rd_put(rd, n->buf, n->n_bytes)))
      return CZ_ERR;
    t->rt_str = (const char *)(uintptr_t)off;
    t->rt_len = n->n_bytes;
    if (lang && lang->n_bytes) {
      if (!(off = rdf_rd_put(rd, lang->buf, lang->n_bytes)))
        return CZ_ERR;
      t->rt_lang = (const char *)(uintptr_t)off;
      t->rt_lang_len = lang->n_bytes;
    } else if (dt && dt->n_bytes) {
      if (rdf_rd_iri(rd, dt, &off, &len) != CZ_OK)
        return CZ_ERR;
      t->rt_dt = (const char *)(uintptr_t)off;
      t->rt_dt_len = len;
    }
    return CZ_OK;
  default:
    rdf_rd_error(rd, 0, 0, "unexpected node");
    return CZ_ERR;
  }
}

static SerdStatus rdf_rd_on_statement(void *h, SerdStatementFlags flags, const SerdNode *g,
                                      const SerdNode *s, const SerdNode *p, const SerdNode *o,
                                      const SerdNode *dt, const SerdNode *lang)
{
  rdf_rd_t *rd = h;
  if (rd->rd_stop)
    return SERD_ERR_UNKNOWN;
  size_t mark = rd->rd_sl;
  rdf_quad_t *q = &rd->rd_q[rd->rd_nq];
  memset(&q->rq_g, 0, sizeof(q->rq_g));
  if (rdf_rd_term(rd, s, NULL, NULL, &q->rq_s) != CZ_OK ||
      rdf_rd_term(rd, p, NULL, NULL, &q->rq_p) != CZ_OK ||
      rdf_rd_term(rd, o, dt, lang, &q->rq_o) != CZ_OK ||
      (g && g->type != SERD_NOTHING && rdf_rd_term(rd, g, NULL, NULL, &q->rq_g) != CZ_OK)) {
    rd->rd_sl = mark; /* drop the half-copied statement */
    return rd->rd_stop ? SERD_ERR_UNKNOWN : SERD_ERR_BAD_SYNTAX;
  }
  if (q->rq_g.rt_kind == RDF_NONE && rd->rd_o->ro_default_graph) {
    const char *dg = rd->rd_o->ro_default_graph;
    size_t off = rdf_rd_put(rd, dg, strlen(dg));
    if (!off)
      return SERD_ERR_UNKNOWN;
    q->rq_g.rt_kind = RDF_IRI;
    q->rq_g.rt_str = (const char *)(uintptr_t)off;
    q->rq_g.rt_len = strlen(dg);
  }
  if (++rd->rd_nq == rd->rd_qcap) {
    if (rd->rd_line_mode) {
      /* a line's statements stay until the line is known good */
      rdf_quad_t *nq = realloc(rd->rd_q, rd->rd_qcap * 2 * sizeof(rdf_quad_t));
      if (!nq) {
        rdf_rd_oom(rd);
        return SERD_ERR_UNKNOWN;
      }
      rd->rd_q = nq;
      rd->rd_qcap *= 2;
    } else if (rdf_rd_flush(rd) != CZ_OK)
      return SERD_ERR_UNKNOWN;
  }
  return SERD_SUCCESS;
}

/* ---- driving serd ---- */

static SerdSyntax rdf_rd_serd_syntax(rdf_syntax_t s)
{
  switch (s) {
  case RDF_SYNTAX_NTRIPLES: return SERD_NTRIPLES;
  case RDF_SYNTAX_NQUADS: return SERD_NQUADS;
  case RDF_SYNTAX_TRIG: return SERD_TRIG;
  default: return SERD_TURTLE;
  }
}

static int rdf_rd_new_serd(rdf_rd_t *rd)
{
  if (rd->rd_sr)
    serd_reader_free(rd->rd_sr);
  rd->rd_sr = serd_reader_new(rd->rd_syn, rd, NULL, rdf_rd_on_base, rdf_rd_on_prefix,
                              rdf_rd_on_statement, NULL);
  if (!rd->rd_sr)
    return rdf_rd_oom(rd);
  serd_reader_set_strict(rd->rd_sr, true);
  serd_reader_set_error_sink(rd->rd_sr, rdf_rd_on_error, rd);
  return CZ_OK;
}

/* Turns the recorded error into the reader's error (stop mode) or a
 * counted, logged skip (skip mode). */
static int rdf_rd_statement_failed(rdf_rd_t *rd)
{
  if (!rd->rd_have_err)
    rdf_rd_error(rd, rdf_rd_line_now(rd, 0), 0, "malformed statement");
  if (rd->rd_o->ro_skip_bad) {
    rdf_rd_report_skip(rd);
    rd->rd_have_err = false;
    return CZ_OK;
  }
  return err_set(rd->rd_e, SQLSTATE_INVALID_TEXT, "%s:%u:%u: %s", rd->rd_name, rd->rd_err_line,
                 rd->rd_err_col, rd->rd_err_msg);
}

static bool rdf_rd_blank_line(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++)
    if (s[i] != ' ' && s[i] != '\t' && s[i] != '\r')
      return s[i] == '#';
  return true;
}

static bool rdf_rd_has_scheme(const char *s, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (c == ':')
      return i > 0;
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
          (i > 0 && ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.'))))
      return false;
  }
  return false;
}

/* N-Triples and N-Quads allow only absolute IRIs, but files in the wild
 * (LUBM's generator writes "<>") hold relative ones; serd rejects those
 * in the line formats, so a line that failed is retried with its relative
 * IRIs resolved against the base. The text is scanned as the grammar
 * does: IRIs are <...> outside string literals, '#' outside them starts
 * a comment. Returns a malloc'd line, or NULL if there was nothing to
 * resolve. */
typedef struct rdf_rd_line_s {
  char *rl_buf;
  size_t rl_len, rl_cap;
  bool rl_bad; /* out of memory */
} rdf_rd_line_t;

static void rdf_rd_line_put(rdf_rd_line_t *l, const char *s, size_t n)
{
  if (l->rl_bad)
    return;
  if (l->rl_len + n + 1 > l->rl_cap) {
    size_t cap = (l->rl_len + n + 1) * 2 + 256;
    char *nb = realloc(l->rl_buf, cap);
    if (!nb) {
      l->rl_bad = true;
      return;
    }
    l->rl_buf = nb;
    l->rl_cap = cap;
  }
  memcpy(l->rl_buf + l->rl_len, s, n);
  l->rl_len += n;
}

static char *rdf_rd_resolve_line(rdf_rd_t *rd, const char *s, size_t n)
{
  rdf_rd_line_t l = {0};
  bool changed = false, in_str = false;
  size_t copied = 0; /* s[0, copied) is in l (or needs no change) */
  SerdURI base;
  serd_env_get_base_uri(rd->rd_env, &base);
  for (size_t i = 0; i < n; i++) {
    char c = s[i];
    if (in_str) {
      if (c == '\\')
        i++; /* the escaped character cannot end the string */
      else if (c == '"')
        in_str = false;
      continue;
    }
    if (c == '"')
      in_str = true;
    if (c == '#')
      break;
    const char *gt = c == '<' ? memchr(s + i + 1, '>', n - i - 1) : NULL;
    if (!gt || rdf_rd_has_scheme(s + i + 1, (size_t)(gt - s - i - 1)))
      continue;
    size_t rl = (size_t)(gt - s - i - 1);
    char *rel = malloc(rl + 1);
    if (!rel)
      break;
    memcpy(rel, s + i + 1, rl);
    rel[rl] = '\0';
    SerdURI ru, abs;
    SerdStatus ps = serd_uri_parse((const uint8_t *)rel, &ru);
    if (ps == SERD_SUCCESS) {
      serd_uri_resolve(&ru, &base, &abs);
      size_t mark = rd->rd_sl;
      serd_uri_serialise(&abs, rdf_rd_uri_sink, rd);
      rdf_rd_line_put(&l, s + copied, i + 1 - copied); /* up to and with '<' */
      rdf_rd_line_put(&l, rd->rd_sb + mark, rd->rd_sl - mark);
      rd->rd_sl = mark;
      copied = (size_t)(gt - s); /* the '>' onwards */
      changed = true;
    }
    free(rel);
    if (ps != SERD_SUCCESS || rd->rd_stop)
      break;
    i = (size_t)(gt - s);
  }
  if (!changed || rd->rd_stop) {
    free(l.rl_buf);
    return NULL;
  }
  rdf_rd_line_put(&l, s + copied, n - copied);
  rdf_rd_line_put(&l, "", 1);
  if (l.rl_bad) {
    free(l.rl_buf);
    return NULL;
  }
  return l.rl_buf;
}

static int rdf_rd_one_line(rdf_rd_t *rd, char *line, size_t n)
{
  rd->rd_line++;
  if (rdf_rd_blank_line(line, n))
    return CZ_OK;
  line[n] = '\0';
  rd->rd_cur = line;
  rd->rd_cur_len = n;
  if (memchr(line, '\0', n)) {
    rdf_rd_error(rd, rdf_rd_line_now(rd, 0), 0, "NUL byte in the text");
    return rdf_rd_statement_failed(rd);
  }
  rd->rd_have_err = false;
  size_t mark_q = rd->rd_nq, mark_s = rd->rd_sl;
  SerdStatus st = serd_reader_read_string(rd->rd_sr, (const uint8_t *)line);
  if (rd->rd_stop)
    return CZ_ERR;
  if (st == SERD_SUCCESS && !rd->rd_have_err)
    return rd->rd_nq >= rd->rd_batch ? rdf_rd_flush(rd) : CZ_OK;
  /* serd emits a triple before it checks the final '.': drop what this
   * line gave */
  rd->rd_nq = mark_q;
  rd->rd_sl = mark_s;
  if (rdf_rd_new_serd(rd) != CZ_OK)
    return CZ_ERR;
  char *fixed = rdf_rd_resolve_line(rd, line, n);
  if (fixed) {
    /* keep the error of the text as written, not of the rewrite */
    bool had = rd->rd_have_err;
    unsigned line = rd->rd_err_line, col = rd->rd_err_col;
    char msg[sizeof(rd->rd_err_msg)];
    memcpy(msg, rd->rd_err_msg, sizeof(msg));
    rd->rd_have_err = false;
    st = serd_reader_read_string(rd->rd_sr, (const uint8_t *)fixed);
    free(fixed);
    if (rd->rd_stop)
      return CZ_ERR;
    if (st == SERD_SUCCESS && !rd->rd_have_err)
      return rd->rd_nq >= rd->rd_batch ? rdf_rd_flush(rd) : CZ_OK;
    rd->rd_nq = mark_q;
    rd->rd_sl = mark_s;
    if (rdf_rd_new_serd(rd) != CZ_OK)
      return CZ_ERR;
    rd->rd_have_err = had;
    rd->rd_err_line = line;
    rd->rd_err_col = col;
    memcpy(rd->rd_err_msg, msg, sizeof(msg));
  }
  return rdf_rd_statement_failed(rd);
}

/* N-Triples and N-Quads: line by line out of a sliding buffer that grows
 * only for a line longer than it. */
static int rdf_rd_lines(rdf_rd_t *rd)
{
  size_t cap = RDF_LINE_BLOCK, start = 0, end = 0;
  char *buf = malloc(cap + 1);
  if (!buf)
    return rdf_rd_oom(rd);
  int rc = CZ_OK;
  bool eof = false;
  while (rc == CZ_OK) {
    char *nl = end > start ? memchr(buf + start, '\n', end - start) : NULL;
    if (nl) {
      rc = rdf_rd_one_line(rd, buf + start, (size_t)(nl - (buf + start)));
      start = (size_t)(nl - buf) + 1;
      continue;
    }
    if (eof) {
      if (end > start)
        rc = rdf_rd_one_line(rd, buf + start, end - start);
      break;
    }
    memmove(buf, buf + start, end - start);
    end -= start;
    start = 0;
    if (end == cap) {
      char *nb = realloc(buf, cap * 2 + 1);
      if (!nb) {
        rc = rdf_rd_oom(rd);
        break;
      }
      buf = nb;
      cap *= 2;
    }
    long n = rdf_input_read(&rd->rd_in, buf + end, cap - end, rd->rd_e);
    if (n < 0) {
      rc = CZ_ERR;
      break;
    }
    if (n == 0)
      eof = true;
    end += (size_t)n;
  }
  free(buf);
  return rc;
}

/* serd's page source over rdf_input: a short page means the end. */
static size_t rdf_rd_source(void *buf, size_t size, size_t nmemb, void *stream)
{
  rdf_rd_t *rd = stream;
  size_t want = size * nmemb, got = 0;
  if (rd->rd_pend_pos < rd->rd_pend_len) {
    got = rd->rd_pend_len - rd->rd_pend_pos;
    if (got > want)
      got = want;
    memcpy(buf, rd->rd_pend + rd->rd_pend_pos, got);
    rd->rd_pend_pos += got;
  }
  while (got < want && !rd->rd_io_failed) {
    long n = rdf_input_read(&rd->rd_in, (char *)buf + got, want - got, rd->rd_e);
    if (n < 0)
      rd->rd_io_failed = true;
    if (n <= 0)
      break;
    got += (size_t)n;
  }
  /* keep the last pages (this one included) for rdf_rd_locate */
  const char *page = buf;
  size_t wn = got;
  size_t cap = sizeof(rd->rd_win);
  if (wn > cap) {
    page += wn - cap;
    wn = cap;
  }
  if (rd->rd_win_len + wn > cap) {
    size_t drop = rd->rd_win_len + wn - cap;
    for (size_t i = 0; i < drop; i++) {
      rd->rd_win_line += rd->rd_win[i] == '\n';
      rdf_tok_step(&rd->rd_tok_win, rd->rd_win[i]);
    }
    memmove(rd->rd_win, rd->rd_win + drop, rd->rd_win_len - drop);
    rd->rd_win_len -= drop;
    rd->rd_win_from = rd->rd_win_from > drop ? rd->rd_win_from - drop : 0;
  }
  memcpy(rd->rd_win + rd->rd_win_len, page, wn);
  rd->rd_win_len += wn;
  return got;
}

static int rdf_rd_source_error(void *stream)
{
  return ((rdf_rd_t *)stream)->rd_io_failed;
}

/* Skip mode after a bad statement in Turtle/TriG: finds where its
 * top-level statement (or graph block) ends, at or after the error, and
 * makes that the text a new serd reader starts from. False at the end of
 * the input. The error position is serd's (its read position, so no
 * statement before it is read twice); unknown, it is the furthest point
 * serd has read. */
static bool rdf_rd_resync(rdf_rd_t *rd)
{
  size_t off = rd->rd_win_len;
  if (rd->rd_err_line >= rd->rd_win_line) {
    uint64_t ln = rd->rd_win_line;
    size_t i = 0;
    while (i < rd->rd_win_len && ln < rd->rd_err_line)
      ln += rd->rd_win[i++] == '\n';
    if (ln == rd->rd_err_line) {
      size_t col = rd->rd_err_col > 1 ? rd->rd_err_col - 1 : 0;
      off = i + col < rd->rd_win_len ? i + col : rd->rd_win_len;
    }
  }
  rdf_tok_t t = rd->rd_tok_win;
  uint64_t line = rd->rd_win_line;
  for (size_t i = 0; i < off; i++) {
    rdf_tok_step(&t, rd->rd_win[i]);
    line += rd->rd_win[i] == '\n';
  }
  /* the rest of the window first, then more input */
  const char *src = rd->rd_win + off;
  size_t n = rd->rd_win_len - off;
  char *more = NULL;
  bool found = false;
  for (;;) {
    size_t i = 0;
    for (; i < n && !found; i++) {
      found = rdf_tok_step(&t, src[i]);
      line += src[i] == '\n';
    }
    if (found) {
      /* the next reader starts here; its line 1 is this line */
      size_t rest = n - i;
      char *pend = malloc(rest ? rest : 1);
      if (!pend) {
        rdf_rd_oom(rd);
        free(more);
        return false;
      }
      memcpy(pend, src + i, rest);
      free(rd->rd_pend);
      rd->rd_pend = pend;
      rd->rd_pend_len = rest;
      rd->rd_pend_pos = 0;
      break;
    }
    if (!more && !(more = malloc(RDF_LINE_BLOCK))) {
      rdf_rd_oom(rd);
      return false;
    }
    long got = rdf_input_read(&rd->rd_in, more, RDF_LINE_BLOCK, rd->rd_e);
    if (got <= 0) {
      rd->rd_io_failed = got < 0;
      break;
    }
    src = more;
    n = (size_t)got;
  }
  free(more);
  if (!found)
    return false;
  rd->rd_line_base = line > UINT_MAX ? UINT_MAX : (unsigned)line;
  rd->rd_win_line = line;
  rd->rd_win_len = 0;
  rd->rd_win_from = 0;
  memset(&rd->rd_tok_win, 0, sizeof(rd->rd_tok_win));
  rd->rd_gen++;
  return true;
}

static int rdf_rd_stream(rdf_rd_t *rd)
{
  for (;;) {
    rd->rd_have_err = false;
    SerdStatus st = serd_reader_read_source(rd->rd_sr, rdf_rd_source, rdf_rd_source_error, rd,
                                            (const uint8_t *)rd->rd_name, 4096);
    if (rd->rd_stop || rd->rd_io_failed)
      return CZ_ERR;
    /* SERD_FAILURE is serd's "nothing more" (an empty input), not an error */
    if (st <= SERD_FAILURE && !rd->rd_have_err)
      return CZ_OK;
    if (rdf_rd_statement_failed(rd) != CZ_OK)
      return CZ_ERR; /* stop mode */
    if (!rdf_rd_resync(rd))
      return rd->rd_stop || rd->rd_io_failed ? CZ_ERR : CZ_OK;
    if (rdf_rd_new_serd(rd) != CZ_OK)
      return CZ_ERR;
  }
}

/* The base IRI: the caller's, else the name as a file:// IRI. */
static SerdNode rdf_rd_base(const rdf_rd_t *rd, const char *path, bool is_file)
{
  const char *given = rd->rd_o->ro_base;
  if (given)
    return serd_node_new_uri_from_string((const uint8_t *)given, NULL, NULL);
  if (serd_uri_string_has_scheme((const uint8_t *)path))
    return serd_node_new_uri_from_string((const uint8_t *)path, NULL, NULL);
  char *abs = is_file ? realpath(path, NULL) : NULL;
  char tmp[PATH_MAX + 2];
  const char *p = abs;
  if (!p) {
    snprintf(tmp, sizeof(tmp), "%s%s", path[0] == '/' ? "" : "/", path);
    p = tmp;
  }
  SerdNode n = serd_node_new_file_uri((const uint8_t *)p, NULL, NULL, true);
  free(abs);
  return n;
}

static int rdf_rd_run(rdf_rd_t *rd, const char *path, bool is_file)
{
  const rdf_read_opts_t *o = rd->rd_o;
  rdf_syntax_t syn = o->ro_syntax ? o->ro_syntax : rdf_syntax_from_name(path);
  if (syn == RDF_SYNTAX_GUESS)
    return err_set(rd->rd_e, SQLSTATE_INVALID_TEXT,
                   "%s: cannot tell the RDF syntax from the name (.nt, .nq, .ttl, .trig)", path);
  if (syn == RDF_SYNTAX_JSONLD)
    return err_set(rd->rd_e, SQLSTATE_FEATURE_NOT_SUPPORTED, "%s: JSON-LD is not read, only written",
                   path);
  rd->rd_syn = rdf_rd_serd_syntax(syn);
  rd->rd_line_mode = syn == RDF_SYNTAX_NTRIPLES || syn == RDF_SYNTAX_NQUADS;
  rd->rd_batch = o->ro_batch ? o->ro_batch : RDF_DEFAULT_BATCH;
  uint64_t scope = o->ro_bnode_scope ? o->ro_bnode_scope : rdf_bnode_scope_new();
  rd->rd_bplen = (size_t)snprintf(rd->rd_bprefix, sizeof(rd->rd_bprefix), "b%llu_",
                                  (unsigned long long)scope);
  rd->rd_qcap = rd->rd_batch;
  rd->rd_q = malloc(rd->rd_qcap * sizeof(rdf_quad_t));
  SerdNode base = rdf_rd_base(rd, path, is_file);
  rd->rd_env = serd_env_new(&base);
  serd_node_free(&base);
  if (!rd->rd_q || !rd->rd_env)
    return rdf_rd_oom(rd);
  if (rdf_rd_new_serd(rd) != CZ_OK)
    return CZ_ERR;
  int rc = rd->rd_line_mode ? rdf_rd_lines(rd) : rdf_rd_stream(rd);
  /* the statements before a malformed one are delivered (the caller's
   * choice what to keep); after a consumer or I/O failure nothing more */
  if (!rd->rd_stop && !rd->rd_io_failed) {
    err_t keep = *rd->rd_e;
    int frc = rdf_rd_flush(rd);
    if (rc == CZ_OK)
      rc = frc;
    else if (frc == CZ_OK)
      *rd->rd_e = keep;
  }
  return rc;
}

static void rdf_rd_free(rdf_rd_t *rd)
{
  if (rd->rd_sr)
    serd_reader_free(rd->rd_sr);
  if (rd->rd_env)
    serd_env_free(rd->rd_env);
  free(rd->rd_q);
  free(rd->rd_sb);
  free(rd->rd_pend);
  rdf_input_close(&rd->rd_in);
}

int rdf_read_file(const char *path, const rdf_read_opts_t *o, err_t *e)
{
  err_t local;
  if (!e)
    e = &local;
  rdf_rd_t rd = {.rd_o = o, .rd_e = e, .rd_name = path, .rd_win_line = 1, .rd_line_base = 1};
  int rc = rdf_input_open_file(&rd.rd_in, path, o->ro_progress, e);
  if (rc == CZ_OK)
    rc = rdf_rd_run(&rd, path, true);
  rdf_rd_free(&rd);
  return rc;
}

int rdf_read_mem(const char *name, const void *data, size_t len, const rdf_read_opts_t *o,
                 err_t *e)
{
  err_t local;
  if (!e)
    e = &local;
  rdf_rd_t rd = {.rd_o = o, .rd_e = e, .rd_name = name, .rd_win_line = 1, .rd_line_base = 1};
  int rc = rdf_input_open_mem(&rd.rd_in, name, data, len, o->ro_progress, e);
  if (rc == CZ_OK)
    rc = rdf_rd_run(&rd, name, false);
  rdf_rd_free(&rd);
  return rc;
}
