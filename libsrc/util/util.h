/* util — the ground floor: arenas and per-query memory budgets, error
 * values, logging, ini files, hashing, bitmaps, time, the registry of the
 * server's own files, the fatal-signal handler and SCRAM password
 * verifiers. Every other module includes only this header from here.
 *
 * Design notes: lower layers return an int status (CZ_OK, or CZ_ERR with an
 * err_t filled in) and never jump. Arenas form a tree (server > session >
 * transaction > query > batch); memory is released by resetting or destroying
 * an arena, never piecemeal (but for arena_free of a chunk of its own, for
 * tables that double). See util/README.md.
 */
#ifndef CZ_UTIL_H
#define CZ_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/sqlstate.h"

#define CZ_OK 0
#define CZ_ERR (-1)

#define CZ_MIN(a, b) ((a) < (b) ? (a) : (b))
#define CZ_MAX(a, b) ((a) > (b) ? (a) : (b))
#define CZ_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#if defined(__GNUC__)
#define CZ_LIKELY(x) __builtin_expect(!!(x), 1)
#define CZ_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define CZ_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CZ_LIKELY(x) (x)
#define CZ_UNLIKELY(x) (x)
#define CZ_PRINTF(f, a)
#endif

/* ---- errors ------------------------------------------------------------ */

/* An error value: a SQLSTATE, a message for a person and, where it helps, a
 * 1-based character position in the statement text (0 = none). */
typedef struct err_s {
  char er_sqlstate[6]; /* five characters and a NUL, SQLSTATE_SUCCESSFUL_COMPLETION when clear */
  int er_pos;
  char er_msg[512];
  char er_detail[256]; /* PostgreSQL's DETAIL field ("" none): err_detail after err_set */
  char er_hint[256];   /* its HINT field ("" none): err_hint after err_set */
} err_t;

/* SQLSTATEs used by the lower layers. */

void err_clear(err_t *e);
/* Fills e (when e is not NULL) and returns CZ_ERR, so callers can write
 * `return err_set(e, SQLSTATE_IO_ERROR, "read %s: %s", path, strerror(errno));` */
int err_set(err_t *e, const char *sqlstate, const char *fmt, ...) CZ_PRINTF(3, 4);
int err_setv(err_t *e, const char *sqlstate, const char *fmt, va_list ap);
/* Prepends context: "<context>: <old message>", keeping the SQLSTATE. */
int err_prefix(err_t *e, const char *fmt, ...) CZ_PRINTF(2, 3);
bool err_is(const err_t *e, const char *sqlstate);
/* Set the DETAIL / HINT of the error err_set just filled (the wire
 * protocol's 'D' and 'H' fields); return CZ_ERR like err_set.
 * err_add_fields sets both from plain strings (either may be NULL). */
int err_detail(err_t *e, const char *fmt, ...) CZ_PRINTF(2, 3);
int err_hint(err_t *e, const char *fmt, ...) CZ_PRINTF(2, 3);
int err_add_fields(err_t *e, const char *detail, const char *hint);

/* ---- arenas ------------------------------------------------------------ */

typedef struct arena_s arena_t;

/* A child arena is destroyed with its parent. parent may be NULL. */
arena_t *arena_create(arena_t *parent, const char *name);
/* 16-byte aligned; never returns NULL (aborts with a log line when the
 * system is out of memory, as jemalloc would). */
void *arena_alloc(arena_t *a, size_t n);
void *arena_zalloc(arena_t *a, size_t n);
char *arena_strdup(arena_t *a, const char *s);
char *arena_sprintf(arena_t *a, const char *fmt, ...) CZ_PRINTF(2, 3);
/* Releases every allocation of a and resets (not destroys) its children. */
void arena_reset(arena_t *a);
/* Destroys a, its children, and unlinks it from its parent. */
void arena_destroy(arena_t *a);
/* Bytes handed out by a and its children since creation or the last reset. */
size_t arena_bytes_used(const arena_t *a);

/* ---- the server's own files (fileguard.c) ------------------------------
 *
 * No SQL function may read or write the files the server runs on. Each
 * module registers a file where it opens it (what: static text naming it,
 * "the transaction log") and releases it where it closes it. */
struct stat;
void fg_protect_fd(int fd, const char *path, const char *what);
void fg_protect_path(const char *path, const char *what);
void fg_release_fd(int fd);
/* A file the server replaces by renaming a new one over it (the
 * statistics file): known by its resolved path only — its identity
 * changes at every save, and the inode a save frees may be given to any
 * other file. fg_release_name drops it. */
void fg_protect_name(const char *path, const char *what);
void fg_release_name(const char *path);
/* What the file is when it is one of the server's (same st_dev/st_ino as
 * sb, or same resolved path as real; either may be NULL), else NULL. */
const char *fg_protected(const struct stat *sb, const char *real);
int fg_count(void); /* registered files, for tests */

/* ---- locks on the files a server writes (filelock.c) -------------------
 *
 * An exclusive, non-blocking flock held while the descriptor stays open:
 * 55006 "<what> <path> is in use by another process" when another process
 * (or another open in this one) holds it. The kernel releases it when the
 * process ends, however it ends, so a stale lock never blocks a start. */
int flk_lock_exclusive(int fd, const char *path, const char *what, err_t *e);
void flk_unlock(int fd);

/* ---- fatal signals (crash.c) ------------------------------------------
 *
 * crash_install (the server program, once, before its threads start) logs
 * SIGSEGV, SIGBUS, SIGFPE, SIGILL and SIGABRT with a backtrace and the
 * statements being run, then re-raises them. Threads started by
 * thread_start get an alternate signal stack (crash_thread_init). The
 * engine brackets each statement with crash_stmt_enter/leave; text must
 * stay valid until the matching leave. */
typedef struct crash_stmt_s {
  const char *cs_text;
  size_t cs_len;
} crash_stmt_t;
int crash_install(err_t *e);
void crash_thread_init(void);
crash_stmt_t crash_stmt_enter(const char *text, size_t len);
void crash_stmt_leave(crash_stmt_t prev);

/* ---- memory budgets ------------------------------------------------------
 * A budget is what one execution may hold: every chunk an arena mallocs is
 * charged to the arena's budget (NULL = none) and uncharged when freed.
 * Children inherit their parent's budget at creation. Charging past the
 * limit does not fail (arena_alloc cannot) but marks the budget exceeded;
 * the executor fails the query at its next check point. arena_try_alloc
 * fails a request that would pass the limit before making it. */
typedef struct mem_budget_s {
  _Atomic int64_t mb_used;      /* bytes of chunks charged now */
  _Atomic int64_t mb_peak;      /* highest mb_used: decides whether to purge */
  int64_t mb_limit;             /* 0 = unlimited */
  _Atomic int mb_exceeded;      /* MEM_OVER_* why the query must stop; 0 = fine */
  struct mem_budget_s *mb_parent; /* charged too (the server's budget for all
                                   queries); NULL = none. Never marked itself:
                                   passing its limit marks the child
                                   MEM_OVER_SERVER */
} mem_budget_t;

#define MEM_OVER_LIMIT 1        /* charged past mb_limit */
#define MEM_OVER_SYSTEM 2       /* malloc failed (the emergency reserve was used) */
#define MEM_OVER_SERVER 3       /* charged past the parent's limit (all queries together) */

void mem_budget_init(mem_budget_t *b, int64_t limit);
/* Makes every later charge to b count against parent too (set before
 * anything is charged to b). */
void mem_budget_set_parent(mem_budget_t *b, mem_budget_t *parent);
/* Bytes b may still take: the least of its own room and its parent's;
 * INT64_MAX without limits. */
int64_t mem_budget_room(const mem_budget_t *b);
/* MEM_OVER_* or 0. */
int mem_budget_exceeded(const mem_budget_t *b);
/* Charges every chunk of a's subtree to b (NULL: to nothing), uncharging
 * the budget each chunk was charged to before. */
void arena_set_budget(arena_t *a, mem_budget_t *b);
mem_budget_t *arena_budget(const arena_t *a);
/* For memory a library allocates outside the arenas on a query's behalf
 * (PCRE2's match heap): charges n bytes to b, or returns false with
 * nothing charged (and b marked exceeded) when that would pass its limit.
 * mem_budget_uncharge gives them back; b NULL charges nothing. */
bool mem_budget_try_charge(mem_budget_t *b, size_t n);
void mem_budget_uncharge(mem_budget_t *b, size_t n);
/* As arena_alloc, but NULL (nothing allocated, the budget marked) when the
 * request would take a's budget past its limit or malloc fails: for
 * requests whose size grows with the data or a user controls (row stores,
 * hash tables, copied strings, string functions, aggregates). */
void *arena_try_alloc(arena_t *a, size_t n);
void *arena_try_zalloc(arena_t *a, size_t n);
/* Gives back p, an allocation of n bytes from a, at once when it has a
 * chunk of its own (n above 4 KB, or any n in the sanitizer build);
 * otherwise does nothing, and p lives until the arena is reset. For tables
 * that double: the old copy need not stay charged while the query goes
 * on. p may be NULL; n must be the size p was allocated with. */
void arena_free(arena_t *a, void *p, size_t n);
/* As arena_reset, but the kept chunk goes too: an arena that held one
 * execution's state stops holding memory between executions. */
void arena_release(arena_t *a);
/* An arena whose contents live for one execution (an operator's state and
 * batch in a cached plan): arena_release_scratch(root) releases every such
 * arena in root's subtree (and their children) when the execution ends. */
arena_t *arena_create_scratch(arena_t *parent, const char *name);
void arena_release_scratch(arena_t *root);

/* Process memory (util/mem.c). mem_reserve_init sets aside an emergency
 * reserve that arena allocations fall back on when malloc fails; it is
 * re-established by mem_reserve_restore once the query that used it ended.
 * mem_return_to_os hands freed memory back to the system (jemalloc purge,
 * or malloc_trim) after a query that used much of it. */
void mem_reserve_init(size_t bytes);
bool mem_reserve_release(void);
void mem_reserve_restore(void);
void mem_return_to_os(void);

/* ---- password verifiers: SCRAM-SHA-256 (scram_verifier.c, scram_crypto.c)
 *
 * PostgreSQL's stored verifier format and the RFC 5802/7677 primitives.
 * Here, below the catalog and the wire protocol, because both use them:
 * the catalog stores verifiers (CREATE ROLE, ALTER ROLE … PASSWORD), net
 * runs the exchange (net/scram.c). */

#define SCRAM_MECHANISM "SCRAM-SHA-256"
#define SCRAM_KEY_LEN 32          /* SHA-256 */
#define SCRAM_SALT_LEN 16         /* what scram_make_verifier uses */
#define SCRAM_MAX_SALT_LEN 64     /* what a stored verifier may carry */
#define SCRAM_DEFAULT_ITERATIONS 4096
#define SCRAM_VERIFIER_MAX 256    /* room for any verifier string */

/* Builds PostgreSQL's stored form
 * "SCRAM-SHA-256$<iter>:<salt b64>$<StoredKey b64>:<ServerKey b64>" into
 * out[SCRAM_VERIFIER_MAX], with a random salt. */
int scram_make_verifier(const char *password, int iterations, char *out, err_t *e);
/* The same with a given salt (for tests and for reproducing a verifier). */
int scram_make_verifier_salt(const char *password, const uint8_t *salt, size_t salt_len,
                             int iterations, char *out, err_t *e);

typedef struct scram_verifier_s {
  int sv_iterations;
  uint8_t sv_salt[SCRAM_MAX_SALT_LEN];
  size_t sv_salt_len;
  uint8_t sv_stored_key[SCRAM_KEY_LEN];
  uint8_t sv_server_key[SCRAM_KEY_LEN];
} scram_verifier_t;

int scram_parse_verifier(const char *s, scram_verifier_t *v, err_t *e);

/* Primitives (scram_crypto.c). */

/* Standard base64 with padding. encode writes 4*ceil(n/3) chars and a NUL. */
size_t scram_b64_encoded_len(size_t n);
void scram_b64_encode(const uint8_t *in, size_t n, char *out);
/* Strict: only the alphabet, padding only at the end, length a multiple of
 * four. Returns the decoded length, or -1. out needs 3*len/4 bytes. */
long scram_b64_decode(const char *in, size_t len, uint8_t *out);
char *scram_b64_arena(arena_t *a, const uint8_t *in, size_t n);

/* SaltedPassword = Hi(password, salt, i); ClientKey, StoredKey, ServerKey. */
int scram_salted_password(const char *password, const uint8_t *salt, size_t salt_len,
                          int iterations, uint8_t out[SCRAM_KEY_LEN], err_t *e);
void scram_hmac(const uint8_t key[SCRAM_KEY_LEN], const void *msg, size_t len,
                uint8_t out[SCRAM_KEY_LEN]);
void scram_sha256(const void *msg, size_t len, uint8_t out[SCRAM_KEY_LEN]);
int scram_random(uint8_t *out, size_t n, err_t *e);
/* A random nonce of printable characters (base64 of 18 random bytes). */
const char *scram_random_nonce(arena_t *a, err_t *e);
/* True when s is a valid nonce: printable ASCII except ','. */
bool scram_nonce_valid(const char *s, size_t len);

/* ---- logging ----------------------------------------------------------- */

typedef enum log_level_e {
  LOG_ERROR = 0,
  LOG_WARN = 1,
  LOG_INFO = 2,
  LOG_DEBUG = 3
} log_level_t;

void log_set_level(log_level_t level);
log_level_t log_get_level(void);
/* Sends log lines to path (appending) as well as stderr; NULL = stderr only. */
int log_open_file(const char *path, err_t *e);
void log_close_file(void);
/* The log file's descriptor (-1 when none), for the fatal-signal handler
 * only: it writes without the lock, the process being about to die. */
int log_file_fd(void);
void log_write(log_level_t level, const char *fmt, ...) CZ_PRINTF(2, 3);
#define log_error(...) log_write(LOG_ERROR, __VA_ARGS__)
#define log_warn(...) log_write(LOG_WARN, __VA_ARGS__)
#define log_info(...) log_write(LOG_INFO, __VA_ARGS__)
#define log_debug(...) \
  do { if (log_get_level() >= LOG_DEBUG) log_write(LOG_DEBUG, __VA_ARGS__); } while (0)

/* ---- ini files --------------------------------------------------------- */

/* Virtuoso-style: `[Section]` headers, `Key = Value` lines, `;` or `#`
 * comments. Section and key names compare case-insensitively; values keep
 * their case with surrounding blanks trimmed. A later duplicate key wins. */
typedef struct ini_s ini_t;

ini_t *ini_load(const char *path, err_t *e);
ini_t *ini_parse(const char *text, size_t len, err_t *e);
void ini_free(ini_t *ini);
/* NULL when absent. */
const char *ini_get(const ini_t *ini, const char *section, const char *key);
/* The value, or dflt when absent. Returns CZ_ERR (F0000, naming section and
 * key) when present but not a number. ini_get_size accepts K, M, G suffixes
 * (powers of 1024). ini_get_bool accepts 1/0, yes/no, on/off, true/false. */
int ini_get_int(const ini_t *ini, const char *section, const char *key,
                int64_t dflt, int64_t *out, err_t *e);
int ini_get_size(const ini_t *ini, const char *section, const char *key,
                 int64_t dflt, int64_t *out, err_t *e);
int ini_get_bool(const ini_t *ini, const char *section, const char *key,
                 bool dflt, bool *out, err_t *e);

/* ---- text helpers ------------------------------------------------------ */

/* Code point cp (at most 0x10FFFF) as UTF-8 into out (room for 4 bytes);
 * the byte count. */
static inline size_t utf8_put(char *out, uint32_t cp)
{
  if (cp < 0x80) {
    out[0] = (char)cp;
    return 1;
  }
  if (cp < 0x800) {
    out[0] = (char)(0xC0 | (cp >> 6));
    out[1] = (char)(0x80 | (cp & 0x3F));
    return 2;
  }
  if (cp < 0x10000) {
    out[0] = (char)(0xE0 | (cp >> 12));
    out[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    out[2] = (char)(0x80 | (cp & 0x3F));
    return 3;
  }
  out[0] = (char)(0xF0 | (cp >> 18));
  out[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
  out[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
  out[3] = (char)(0x80 | (cp & 0x3F));
  return 4;
}

/* The value of hexadecimal digit c, or -1 when c is not one. */
static inline int hex_digit_value(char c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* ---- hashing ----------------------------------------------------------- */

/* A fast 64-bit non-cryptographic hash (wyhash-style multiply-mix), good
 * enough for hash tables and page checksums. Stable across runs and builds:
 * it is stored on disk. */
uint64_t hash64(const void *data, size_t len, uint64_t seed);
/* Mixes one 64-bit integer (page numbers, ids) into a well-spread hash. */
uint64_t hash64_int(uint64_t x);

/* ---- HyperLogLog distinct-value sketch (hll.c) -------------------------- */

/* Flajolet et al.'s HyperLogLog over 64-bit hashes: 2^HLL_BITS one-byte
 * registers (about 3% standard error), with linear counting for small
 * counts. Sketches merge by taking each register's maximum, so a table's
 * sketch can be built in pieces. hll_add may run in many threads at once
 * (registers only grow, by compare-and-swap); it never forgets a value, so
 * deletes are not seen (the catalog caps the estimate by the row count). */
#define HLL_BITS 10
#define HLL_REGS (1 << HLL_BITS)
typedef struct hll_s {
  _Atomic uint8_t hl_reg[HLL_REGS];
} hll_t;
void hll_clear(hll_t *h);
void hll_add(hll_t *h, uint64_t hash);
/* The estimated number of distinct hashes added. */
double hll_estimate(const hll_t *h);
/* into |= from (register-wise maximum). */
void hll_merge(hll_t *into, const hll_t *from);
/* The registers as bytes (persistence) and back. */
void hll_save(const hll_t *h, uint8_t out[HLL_REGS]);
void hll_load(hll_t *h, const uint8_t in[HLL_REGS]);

/* ---- bitmaps ----------------------------------------------------------- */

typedef struct bitmap_s {
  uint64_t *bm_words;
  size_t bm_bits; /* capacity in bits */
} bitmap_t;

/* bitmap_init allocates zeroed words with malloc; bitmap_resize keeps bits
 * and zeroes new ones. */
int bitmap_init(bitmap_t *bm, size_t bits, err_t *e);
int bitmap_resize(bitmap_t *bm, size_t bits, err_t *e);
void bitmap_free(bitmap_t *bm);
static inline bool bitmap_test(const bitmap_t *bm, size_t i)
{
  return (bm->bm_words[i >> 6] >> (i & 63)) & 1;
}
static inline void bitmap_set(bitmap_t *bm, size_t i)
{
  bm->bm_words[i >> 6] |= (uint64_t)1 << (i & 63);
}
static inline void bitmap_clear(bitmap_t *bm, size_t i)
{
  bm->bm_words[i >> 6] &= ~((uint64_t)1 << (i & 63));
}
/* First clear bit at index >= from and < limit, or (size_t)-1. */
size_t bitmap_find_clear(const bitmap_t *bm, size_t from, size_t limit);
/* First set bit at index >= from and < limit, or (size_t)-1. */
size_t bitmap_find_set(const bitmap_t *bm, size_t from, size_t limit);
size_t bitmap_count(const bitmap_t *bm, size_t from, size_t limit);

/* ---- time -------------------------------------------------------------- */

uint64_t time_now_ns(void);   /* CLOCK_MONOTONIC */
uint64_t time_wall_ms(void);  /* CLOCK_REALTIME, ms since the epoch */
void time_sleep_us(uint64_t us);

/* ---- version ----------------------------------------------------------- */

/* "cadenza <version>", for version() and the server log. */
const char *cz_version(void);

#endif /* CZ_UTIL_H */
