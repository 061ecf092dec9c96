/* types_int.h — what the files of libsrc/types share privately: SQLSTATEs,
 * 256-bit helpers for NUMERIC, calendar conversions, float digit search.
 */
#ifndef CZ_TYPES_INT_H
#define CZ_TYPES_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "types/types.h"


/* PostgreSQL's infinite DATE and TIMESTAMP values. */
#define TY_DATE_NOBEGIN ((int64_t)INT32_MIN)
#define TY_DATE_NOEND ((int64_t)INT32_MAX)
#define TY_TS_NOBEGIN INT64_MIN
#define TY_TS_NOEND INT64_MAX
#define TY_USECS_PER_DAY INT64_C(86400000000)

/* 10^k for k in 0..38 as unsigned 128-bit integers. */
unsigned __int128 ty_pow10_u128(int k);
/* Decimal digits of v (1 for 0). */
int ty_digits_u128(unsigned __int128 v);
/* Writes the decimal digits of v into buf (no NUL); returns the count. */
int ty_u128_to_dec(unsigned __int128 v, char *buf);


/* Decimal text of v into out (>= 21 bytes, NUL-terminated); returns the
 * length. */
int ty_i64_format(int64_t v, char *out);

/* json_in / jsonb_in: the text kept (json, validated) or the canonical
 * text (jsonb), in a (ty_jsonb.c). */
int ty_json_input(bool jsonb, const char *s, size_t len, arena_t *a, str_t *out, err_t *e);

/* ---- floats ------------------------------------------------------------ */

/* Shortest decimal digits that read back as v (finite, non-zero):
 * digits into buf (no point, no trailing zeros, NUL-terminated), *exp10
 * the decimal exponent of the first digit. */
void ty_f64_shortest(double v, char *buf, int *exp10);
void ty_f32_shortest(float v, char *buf, int *exp10);
/* PostgreSQL's float text form; returns bytes written to out (>= 32 bytes). */
int ty_f64_format(double v, char *out);
int ty_f32_format(float v, char *out);
int ty_f64_parse(const char *s, size_t len, bool is_float4, double *out, err_t *e);

/* ---- NUMERIC text ------------------------------------------------------ */

int ty_num_parse(const char *s, size_t len, num_t *out, err_t *e);
/* The same, rounding digits past 38 instead of refusing them (floats). */
int ty_num_parse_rounding(const char *s, size_t len, num_t *out, err_t *e);
int ty_num_format(const num_t *n, char *out);  /* out >= TY_NUM_TEXT_MAX */
#define TY_NUM_TEXT_MAX 48
/* Checks n against NUMERIC(prec, scale) (after rounding to scale), as an
 * assignment does: 22003 "numeric field overflow". */
int ty_num_apply_typmod(const num_t *n, int prec, int scale, num_t *out, err_t *e);
/* Base-10000 weight and first digit of a non-zero value (as PostgreSQL's
 * NumericVar would hold it). */
void ty_num_weight(const num_t *n, int *weight, int *first_digit);

/* ---- dates ------------------------------------------------------------- */

/* What the date/time reader found in a string. */
typedef enum {
  TY_DT_OK,
  TY_DT_SYNTAX,   /* 22007 */
  TY_DT_RANGE,    /* 22008 */
  TY_DT_TZDISP,   /* 22009 time zone displacement out of range */
  TY_DT_BADZONE   /* 22023 time zone "x" not recognized */
} ty_dt_rc_t;

#define TY_DT_ZONE_NONE 0
#define TY_DT_ZONE_FIXED 1  /* dt_zone_east */
#define TY_DT_ZONE_NAMED 2  /* dt_zone: offsets depend on the date */

typedef struct ty_dt_s {
  int64_t dt_year;
  int dt_mon, dt_day, dt_hour, dt_min, dt_sec;
  int64_t dt_usec;
  bool dt_has_time;
  int dt_special;          /* 0, 1 infinity, -1 -infinity, 2 epoch */
  int dt_zone_kind;        /* TY_DT_ZONE_* */
  int32_t dt_zone_east;    /* seconds east of UTC */
  const ty_tz_t *dt_zone;
  const char *dt_zone_name; /* as written, for errors */
  size_t dt_zone_len;
} ty_dt_t;

/* A full date/time ('2024-03-31 02:30:00+02', 'epoch', …). */
ty_dt_rc_t ty_dt_parse(const char *s, size_t len, ty_dt_t *dt);
/* A time of day with an optional zone ('12:00:00+05:30'), or a whole
 * timestamp form whose time part is used. */
ty_dt_rc_t ty_time_dt_parse(const char *s, size_t len, ty_dt_t *dt);
/* Resolves dt_zone_name: a fixed abbreviation (PostgreSQL's Default set:
 * UTC, CET, EST, PDT …) or a zone of the database. */
ty_dt_rc_t ty_dt_zone_name(ty_dt_t *dt);

/* The error for a reader's result on input s for type tname. */
int ty_dt_error(ty_dt_rc_t rc, const ty_dt_t *dt, const char *tname, const char *s, size_t len,
                err_t *e);
/* Seconds east of UTC as PostgreSQL prints them: +01, +05:30, -03:30,
 * +00:53:28; returns the length (out >= 16). */
int ty_tz_offset_format(int32_t east, char *out);
int ty_tstz_parse(const char *s, size_t len, int64_t *out, err_t *e);
int ty_tstz_format(int64_t us, char *out);       /* out >= 64 */
int ty_time_parse(const char *s, size_t len, int64_t *out, err_t *e);
int ty_time_format(int64_t us, char *out);       /* out >= 32 */
int ty_timetz_parse(const char *s, size_t len, int64_t *out, err_t *e);
int ty_timetz_format(int64_t v, char *out);      /* out >= 48 */
/* TIME(p) and TIMETZ(p) rounding (TIME wraps nothing: 23:59:59.9 to 24:00:00). */
int64_t ty_time_round(int64_t us, int prec);

int ty_date_parse(const char *s, size_t len, int64_t *out, err_t *e);
int ty_ts_parse(const char *s, size_t len, int64_t *out, err_t *e);
/* Rounds a TIMESTAMP to prec (0..5) fraction digits. */
int64_t ty_ts_round(int64_t us, int prec);
int ty_date_format(int64_t days, char *out);   /* out >= 32 */
int ty_ts_format(int64_t us, char *out);       /* out >= 48 */

/* ---- strings ----------------------------------------------------------- */

/* Characters in a UTF-8 string (bytes that do not start a sequence are
 * continuation bytes and do not count). */
size_t ty_utf8_chars(const char *s, size_t len);
/* Byte length of the first n characters of s (or len when shorter). */
size_t ty_utf8_prefix(const char *s, size_t len, size_t n);
/* Applies a CHAR(n)/VARCHAR(n) length to s as PostgreSQL's input and
 * assignment do: longer is 22001 unless the excess is only spaces (then
 * truncated), or when truncate is set (explicit casts). CHAR pads with
 * spaces. Result in a when it differs from s. */
int ty_str_apply_len(ty_t t, str_t s, bool truncate, arena_t *a, str_t *out, err_t *e);
int ty_bytea_parse(const char *s, size_t len, arena_t *a, str_t *out, err_t *e);

#endif /* CZ_TYPES_INT_H */
