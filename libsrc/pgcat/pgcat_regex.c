/* pgcat_regex — the regular-expression engine of the SQL regexp functions
 * and operators: PostgreSQL patterns compiled by PCRE2 (after
 * pgcat_regex_syntax.c's translation), cached per thread, and every match
 * bounded in steps, depth and memory and stoppable by cancel and
 * statement_timeout.
 *
 * Design notes:
 * - Why PCRE2: PostgreSQL's advanced expressions (\d \w \s, non-greedy
 *   quantifiers, lookahead, back-references) are much closer to PCRE2's
 *   syntax than to the C library's POSIX ERE, and PCRE2, unlike regexec,
 *   can be bounded and interrupted while it matches.
 * - Interruption: patterns are compiled with PCRE2_AUTO_CALLOUT, so the
 *   matcher calls rx_callout before every item of the pattern it tries,
 *   backtracking included; every RX_CHECK_EVERY calls the callout reads
 *   the statement's cancel flag (set by a CancelRequest and by
 *   statement_timeout) and its memory budget and abandons the match. A
 *   check is a few loads, so a cancel lands within microseconds whatever
 *   the pattern does. A match-limit slice (stop after N steps, check,
 *   match again) cannot work: PCRE2 cannot resume a match, and restarting
 *   with growing limits makes the wait between two checks grow with the
 *   work done. Callouts cost about 2x on backtracking-heavy matches and
 *   nothing measurable on searches PCRE2 decides by its start-of-match
 *   optimizations (memchr for a required character). Rows are checked
 *   between calls by exec (xe_func).
 * - Bounds: RX_MATCH_LIMIT backtracking steps (PCRE2's match limit,
 *   counted per start position: about 0.3-0.5 s with callouts) and
 *   RX_DEPTH_LIMIT nested backtracking points (a repeated group pushes one
 *   per iteration) end a match with 54001 naming the limit, so a
 *   catastrophic pattern such as (a+)+$ fails clearly instead of running
 *   until the timeout; RX_HEAP_LIMIT_KB caps its backtracking memory.
 *   Compile-time size is bounded by RX_MAX_PATTERN, PCRE2's nesting limit
 *   (250 groups) and its compiled-size limit (64 KB code units: "regular
 *   expression is too large", 2201B).
 * - Memory: the match heap (PCRE2's backtracking frames) comes from a
 *   general context whose allocator charges any block of RX_FREE_HEAP or
 *   more to the running statement's budget (MaxQueryMem), so a deep match
 *   fails with 53200 when the query's memory is spent; smaller blocks (the
 *   20 KB PCRE2 starts with) are the thread's. After a match that took
 *   charged memory the match data is freed, so nothing charged outlives
 *   the call (and no budget is uncharged after its statement ended).
 *   Compiled patterns are the thread's (malloc), bounded by RX_CACHE_SLOTS
 *   and RX_CACHE_BYTES of pattern text.
 * - Cache: a filter evaluates the same constant pattern for every row, so
 *   each thread keeps its last RX_CACHE_SLOTS compiled patterns keyed by
 *   (pattern text, flags), least recently used out: a constant pattern is
 *   compiled once per statement (per thread), not per row. Everything is
 *   freed when the thread ends (a pthread key's destructor).
 * - JIT is not used: its own stack and memory would need the same
 *   accounting, and the interpreter already meets the bounds above.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pgcat/pgcat_regex_int.h"

#define RX_MATCH_LIMIT 5000000u      /* backtracking steps from one start position */
#define RX_DEPTH_LIMIT 1000000u      /* nested backtracking points */
#define RX_HEAP_LIMIT_KB (512u * 1024) /* backtracking memory of one match */
#define RX_MAX_PATTERN (1u << 20)    /* bytes of pattern text (PostgreSQL has no such limit) */
#define RX_CACHE_SLOTS 16
#define RX_CACHE_BYTES (1u << 20)    /* pattern text the cache may hold beyond the newest */
#define RX_FREE_HEAP (256u * 1024)   /* match-heap blocks below this are not charged */
#define RX_CHECK_EVERY 256u          /* callouts between two cancel checks (power of 2) */

struct rx_s {
  char *r_pat;          /* the PostgreSQL pattern (key); NULL: free slot */
  size_t r_len;
  unsigned r_flags;     /* key, RX_GLOBAL cleared */
  pcre2_code *r_code;
  int r_groups;
  uint64_t r_used;      /* LRU tick */
};

typedef struct rx_thread_s {
  rx_t t_slots[RX_CACHE_SLOTS];
  uint64_t t_tick;
  pcre2_general_context *t_gctx;   /* the match data's allocator (rx_malloc) */
  pcre2_compile_context *t_cctx;
  pcre2_match_context *t_mctx;
  pcre2_match_data *t_md;          /* NULL until needed, and after a big match */
  int t_md_pairs;
  /* the running match: */
  const xctx_t *t_c;               /* its statement (cancel flag, budget) */
  size_t t_big;                    /* bytes of blocks >= RX_FREE_HEAP held now */
  unsigned t_calls;
} rx_thread_t;

/* Header of a match-heap block: its size and the budget it was charged to. */
typedef struct rx_hdr_s {
  size_t h_size;
  mem_budget_t *h_budget;
} rx_hdr_t;
#define RX_HDR ((sizeof(rx_hdr_t) + 15) & ~(size_t)15)

static pthread_key_t rx_key;
static pthread_once_t rx_once = PTHREAD_ONCE_INIT;

static void *rx_malloc(size_t n, void *data)
{
  rx_thread_t *t = data;
  bool big = n >= RX_FREE_HEAP;
  mem_budget_t *b = big && t->t_c ? t->t_c->xc_budget : NULL;
  if (n > SIZE_MAX - RX_HDR)
    return NULL;
  if (b && !mem_budget_try_charge(b, n + RX_HDR))
    return NULL; /* the budget is marked: the caller reports 53200 */
  rx_hdr_t *h = malloc(RX_HDR + n);
  if (!h) {
    if (b)
      mem_budget_uncharge(b, n + RX_HDR);
    return NULL;
  }
  h->h_size = n + RX_HDR;
  h->h_budget = b;
  if (big)
    t->t_big += h->h_size;
  return (char *)h + RX_HDR;
}

static void rx_free(void *p, void *data)
{
  rx_thread_t *t = data;
  if (!p)
    return;
  rx_hdr_t *h = (rx_hdr_t *)((char *)p - RX_HDR);
  if (h->h_size >= RX_FREE_HEAP + RX_HDR)
    t->t_big -= h->h_size;
  if (h->h_budget)
    mem_budget_uncharge(h->h_budget, h->h_size);
  free(h);
}

static int rx_callout(pcre2_callout_block *cb, void *data)
{
  (void)cb;
  rx_thread_t *t = data;
  if ((++t->t_calls & (RX_CHECK_EVERY - 1)) != 0)
    return 0;
  const xctx_t *c = t->t_c;
  if (c && ((c->xc_cancel && *c->xc_cancel) ||
            (c->xc_budget && mem_budget_exceeded(c->xc_budget))))
    return PCRE2_ERROR_CALLOUT;
  return 0;
}

static void rx_slot_clear(rx_t *s)
{
  pcre2_code_free(s->r_code);
  free(s->r_pat);
  memset(s, 0, sizeof(*s));
}

static void rx_thread_free(void *p)
{
  rx_thread_t *t = p;
  for (int i = 0; i < RX_CACHE_SLOTS; i++)
    rx_slot_clear(&t->t_slots[i]);
  t->t_c = NULL;
  pcre2_match_data_free(t->t_md);
  pcre2_match_context_free(t->t_mctx);
  pcre2_compile_context_free(t->t_cctx);
  pcre2_general_context_free(t->t_gctx);
  free(t);
}

static void rx_key_init(void)
{
  pthread_key_create(&rx_key, rx_thread_free);
}

static rx_thread_t *rx_thread(err_t *e)
{
  pthread_once(&rx_once, rx_key_init);
  rx_thread_t *t = pthread_getspecific(rx_key);
  if (t)
    return t;
  t = calloc(1, sizeof(*t));
  if (t) {
    t->t_gctx = pcre2_general_context_create(rx_malloc, rx_free, t);
    t->t_cctx = pcre2_compile_context_create(NULL);
    t->t_mctx = pcre2_match_context_create(NULL);
  }
  if (!t || !t->t_gctx || !t->t_cctx || !t->t_mctx) {
    if (t)
      rx_thread_free(t);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  pcre2_set_newline(t->t_cctx, PCRE2_NEWLINE_LF);
  pcre2_set_parens_nest_limit(t->t_cctx, 250);
  pcre2_set_max_pattern_length(t->t_cctx, (PCRE2_SIZE)RX_MAX_PATTERN * 4);
  pcre2_set_match_limit(t->t_mctx, RX_MATCH_LIMIT);
  pcre2_set_depth_limit(t->t_mctx, RX_DEPTH_LIMIT);
  pcre2_set_heap_limit(t->t_mctx, RX_HEAP_LIMIT_KB);
  pcre2_set_callout(t->t_mctx, rx_callout, t);
  pthread_setspecific(rx_key, t);
  return t;
}

static uint32_t rx_options(unsigned flags)
{
  uint32_t o = PCRE2_UTF | PCRE2_UCP | PCRE2_AUTO_CALLOUT | PCRE2_NEVER_BACKSLASH_C;
  if (flags & RX_ICASE)
    o |= PCRE2_CASELESS;
  if (!(flags & RX_NL_DOT))
    o |= PCRE2_DOTALL;
  o |= (flags & RX_NL_ANCHOR) ? PCRE2_MULTILINE : PCRE2_DOLLAR_ENDONLY;
  return o;
}

/* Frees least recently used slots until the others hold at most
 * RX_CACHE_BYTES of pattern text; returns a free slot (keep stays). */
static rx_t *rx_slot_for(rx_thread_t *t, size_t need)
{
  for (;;) {
    size_t bytes = need;
    rx_t *free_slot = NULL, *lru = NULL;
    for (int i = 0; i < RX_CACHE_SLOTS; i++) {
      rx_t *s = &t->t_slots[i];
      if (!s->r_pat) {
        free_slot = free_slot ? free_slot : s;
        continue;
      }
      bytes += s->r_len;
      if (!lru || s->r_used < lru->r_used)
        lru = s;
    }
    if (free_slot && bytes <= RX_CACHE_BYTES)
      return free_slot;
    if (!lru)
      return free_slot;
    rx_slot_clear(lru);
  }
}

rx_t *rx_get(const str_t *pat_in, unsigned flags, err_t *e)
{
  rx_thread_t *t = rx_thread(e);
  if (!t)
    return NULL;
  /* an empty string may come without a pointer */
  str_t pat_v = {pat_in->s_ptr ? pat_in->s_ptr : "", pat_in->s_len};
  const str_t *pat = &pat_v;
  flags &= ~RX_GLOBAL;
  for (int i = 0; i < RX_CACHE_SLOTS; i++) {
    rx_t *s = &t->t_slots[i];
    if (s->r_pat && s->r_flags == flags && s->r_len == pat->s_len &&
        memcmp(s->r_pat, pat->s_ptr, pat->s_len) == 0) {
      s->r_used = ++t->t_tick;
      return s;
    }
  }
  if (pat->s_len > RX_MAX_PATTERN) {
    err_set(e, SQLSTATE_INVALID_REGEX,
            "invalid regular expression: regular expression is too long (more than %u bytes)",
            RX_MAX_PATTERN);
    return NULL;
  }
  if (memchr(pat->s_ptr, 0, pat->s_len)) {
    err_set(e, SQLSTATE_INVALID_REGEX, "invalid regular expression: NUL byte");
    return NULL;
  }
  char *text;
  size_t tlen;
  unsigned final;
  if (rx_translate(pat->s_ptr, pat->s_len, flags, &text, &tlen, &final, e) != CZ_OK)
    return NULL;
  int code;
  PCRE2_SIZE off;
  pcre2_code *re =
      pcre2_compile((PCRE2_SPTR)text, tlen, rx_options(final), &code, &off, t->t_cctx);
  free(text);
  if (!re) {
    char msg[256];
    if (pcre2_get_error_message(code, (PCRE2_UCHAR *)msg, sizeof msg) < 0)
      snprintf(msg, sizeof msg, "error %d", code);
    if (code == PCRE2_ERROR_HEAPLIMIT || code == PCRE2_ERROR_NOMEMORY)
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory compiling a regular expression");
    else
      err_set(e, SQLSTATE_INVALID_REGEX, "invalid regular expression: %s", msg);
    return NULL;
  }
  rx_t *s = rx_slot_for(t, pat->s_len);
  char *key = malloc(pat->s_len + 1);
  if (!key) {
    pcre2_code_free(re);
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
    return NULL;
  }
  memcpy(key, pat->s_ptr, pat->s_len);
  key[pat->s_len] = 0;
  uint32_t groups = 0;
  pcre2_pattern_info(re, PCRE2_INFO_CAPTURECOUNT, &groups);
  s->r_pat = key;
  s->r_len = pat->s_len;
  s->r_flags = flags;
  s->r_code = re;
  s->r_groups = (int)groups;
  s->r_used = ++t->t_tick;
  return s;
}

int rx_groups(const rx_t *r)
{
  return r->r_groups;
}

static int rx_match_error(xctx_t *c, int rc, err_t *e)
{
  if (rc == PCRE2_ERROR_CALLOUT || rc == PCRE2_ERROR_NOMEMORY) {
    /* the callout saw the cancel flag or the budget; the allocator marks
     * the budget it could not charge */
    if (xc_check_interrupt(c, e) != CZ_OK)
      return -1;
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory matching a regular expression");
    return -1;
  }
  if (rc == PCRE2_ERROR_MATCHLIMIT)
    err_set(e, SQLSTATE_STATEMENT_TOO_COMPLEX,
            "regular expression is too complex to match: more than %u backtracking steps "
            "(the regular-expression match limit)", RX_MATCH_LIMIT);
  else if (rc == PCRE2_ERROR_DEPTHLIMIT)
    err_set(e, SQLSTATE_STATEMENT_TOO_COMPLEX,
            "regular expression is too complex to match: backtracking nested deeper than %u "
            "(the regular-expression depth limit)", RX_DEPTH_LIMIT);
  else if (rc == PCRE2_ERROR_HEAPLIMIT)
    err_set(e, SQLSTATE_STATEMENT_TOO_COMPLEX,
            "regular expression is too complex to match: more than %u kB of backtracking memory "
            "(the regular-expression heap limit)", RX_HEAP_LIMIT_KB);
  else if (rc <= PCRE2_ERROR_UTF8_ERR1 && rc >= PCRE2_ERROR_UTF8_ERR21)
    err_set(e, SQLSTATE_CHARACTER_NOT_IN_REPERTOIRE, "invalid byte sequence for encoding \"UTF8\"");
  else {
    char msg[256];
    if (pcre2_get_error_message(rc, (PCRE2_UCHAR *)msg, sizeof msg) < 0)
      snprintf(msg, sizeof msg, "error %d", rc);
    err_set(e, SQLSTATE_INTERNAL, "regular expression match failed: %s", msg);
  }
  return -1;
}

int rx_match(xctx_t *c, rx_t *r, const char *s, size_t len, size_t start, bool checked,
             int64_t *ov, err_t *e)
{
  rx_thread_t *t = rx_thread(e);
  if (!t)
    return -1;
  if (!s)
    s = ""; /* an empty subject may come without a pointer */
  int pairs = r->r_groups + 1;
  if (t->t_md && t->t_md_pairs < pairs) {
    pcre2_match_data_free(t->t_md);
    t->t_md = NULL;
  }
  if (!t->t_md) {
    int want = pairs < 16 ? 16 : pairs;
    t->t_c = c; /* (small: never charged) */
    t->t_md = pcre2_match_data_create((uint32_t)want, t->t_gctx);
    if (!t->t_md) {
      err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
      return -1;
    }
    t->t_md_pairs = want;
  }
  t->t_c = c; /* t_calls runs on across matches: many short ones are checked too */
  int rc = pcre2_match(r->r_code, (PCRE2_SPTR)s, len, start, checked ? PCRE2_NO_UTF_CHECK : 0,
                       t->t_md, t->t_mctx);
  if (rc >= 0) {
    /* rc: pairs set (0: all that fit; the match data always has room) */
    int set_pairs = rc == 0 ? pairs : rc;
    PCRE2_SIZE *v = pcre2_get_ovector_pointer(t->t_md);
    for (int k = 0; k < pairs; k++) {
      bool set = k < set_pairs && v[2 * k] != PCRE2_UNSET;
      ov[2 * k] = set ? (int64_t)v[2 * k] : -1;
      ov[2 * k + 1] = set ? (int64_t)v[2 * k + 1] : -1;
    }
  }
  if (t->t_big > 0) {
    /* give back (and uncharge) the big backtracking heap now, while the
     * budget it was charged to is alive */
    pcre2_match_data_free(t->t_md);
    t->t_md = NULL;
  }
  t->t_c = NULL;
  if (rc >= 0)
    return 1;
  if (rc == PCRE2_ERROR_NOMATCH)
    return 0;
  return rx_match_error(c, rc, e);
}
