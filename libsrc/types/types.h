/* types — the SQL data types, scalar values (datums), column vectors and
 * batches, and the text and binary forms of values on the wire.
 *
 * Design notes (types/README.md has the details):
 * - A type is an id plus modifiers (length, precision, scale). Several ids
 *   share one physical representation in vectors: all integers, DATE and
 *   TIMESTAMP are int64, REAL and DOUBLE PRECISION are double, CHAR, VARCHAR
 *   and TEXT are (pointer, length) strings, BYTEA too. Operators therefore
 *   switch on the physical kind (ty_phys), not on the type id.
 * - NUMERIC is exact: a scaled 128-bit integer with a per-value scale (at
 *   most 38 digits). Arithmetic that would overflow is 22003.
 * - DATE is days since 2000-01-01, TIMESTAMP microseconds since
 *   2000-01-01 00:00:00 (PostgreSQL's epochs, so binary wire values pass
 *   through unchanged).
 * - A vector holds up to v_cap values of one type and a null flag per row.
 *   String bytes are not owned by the vector: they live in an arena that
 *   outlives the batch (the query's or the batch's).
 * - A batch is a set of equally long vectors: the unit the executor passes
 *   between operators (DESIGN.md §2.9).
 */
#ifndef CZ_TYPES_H
#define CZ_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/util.h"

/* ---- types ------------------------------------------------------------- */

typedef enum ty_id_e {
  TY_UNKNOWN = 0, /* a bare NULL or an untyped string literal before binding */
  TY_BOOL,
  TY_INT2,
  TY_INT4,
  TY_INT8,
  TY_FLOAT4,
  TY_FLOAT8,
  TY_NUMERIC,
  TY_CHAR,       /* blank-padded, fixed length t_len */
  TY_VARCHAR,
  TY_TEXT,
  TY_BYTEA,
  TY_DATE,
  TY_TIMESTAMP,
  TY_INTERVAL,   /* months, days and microseconds kept apart (ty_iv_t) */
  TY_TIMESTAMPTZ, /* µs since 2000-01-01 00:00:00 UTC; shown in the session's zone */
  TY_TIME,        /* µs since midnight, 0 .. 24:00:00 */
  TY_TIMETZ,      /* time of day and a UTC offset, packed so that int64 order is
                   * PostgreSQL's timetz order (ty_timetz_pack) */
  TY_JSON,        /* the text as written, validated (ty_json.c) */
  TY_JSONB,       /* jsonb's canonical text: keys sorted and unique, numbers
                   * as numeric prints them (ty_jsonb.c) */
  TY_COUNT_
} ty_id_t;

/* How values of a type are held in vectors and datums. */
typedef enum ty_phys_e {
  TP_BOOL,  /* uint8_t 0/1 */
  TP_I64,   /* int64_t: integers, DATE, TIMESTAMP[TZ], TIME[TZ] */
  TP_F64,   /* double: REAL, DOUBLE PRECISION */
  TP_NUM,   /* num_t */
  TP_STR,   /* str_t: CHAR, VARCHAR, TEXT, BYTEA, JSON, JSONB */
  TP_IV     /* ty_iv_t: INTERVAL */
} ty_phys_t;

/* The most dimensions an array may have (PostgreSQL's MAXDIM). */
#define TY_ARRAY_MAXDIM 6

typedef struct ty_s {
  ty_id_t t_id;
  int32_t t_len;    /* CHAR(n)/VARCHAR(n) length in characters; -1 none */
  int16_t t_prec;   /* NUMERIC(p,s); -1 when unconstrained; TIMESTAMP(p) and
                     * INTERVAL(p): fraction digits, -1 none */
  int16_t t_scale;  /* NUMERIC's scale; INTERVAL's fields (PostgreSQL's range
                     * mask, TY_IV_F_*: `interval day to second`), 0 all;
                     * TEXT: 0, or a composite value's shape in the statement's
                     * binder (> 0, sql_bind_record.c), or for int2vector /
                     * oidvector values minus their element's ty_id_t (< 0: they
                     * are subscripted, though not arrays) */
  ty_id_t t_elem;   /* an array, held as PostgreSQL's text form (t_id TY_TEXT): its
                     * element type (any number of dimensions, as PostgreSQL's int[]);
                     * TY_UNKNOWN for every value that is not an array. The binder
                     * sets and reads it (ARRAY[…], ARRAY(…), casts, catalog array
                     * columns) so that array-ness follows a value through
                     * subqueries, set operations and CTEs; storage and the wire
                     * see text */
} ty_t;

ty_phys_t ty_phys(ty_id_t id);
/* The type with no modifiers: ty_plain(TY_INT4). */
ty_t ty_plain(ty_id_t id);
/* Lower-case SQL name as PostgreSQL's format_type prints it:
 * "integer", "character varying(20)", "numeric(10,2)". Allocated in a. */
char *ty_name(arena_t *a, ty_t t);

/* PostgreSQL's view of a type, for RowDescription, pg_type and
 * pg_attribute: the type OID (16 bool, 21 int2, 23 int4, 20 int8, 700
 * float4, 701 float8, 1700 numeric, 1042 bpchar, 1043 varchar, 25 text,
 * 17 bytea, 1082 date, 1114 timestamp, 705 unknown), typmod (-1 none;
 * VARCHAR(n) n+4; NUMERIC(p,s) ((p<<16)|s)+4) and typlen (-1 variable). */
uint32_t ty_pg_oid(ty_t t);
int32_t ty_pg_typmod(ty_t t);
int16_t ty_pg_typlen(ty_t t);
/* The OID a result column is described with: an array (a TEXT value with
 * t_elem, held in PostgreSQL's text form) as its array type (1007 int4[],
 * 1009 text[] …), so that clients parse it into a list (binary results
 * in array_send's layout: ty_array_format_binary); anything else
 * ty_pg_oid. */
uint32_t ty_pg_array_oid(ty_t t);
/* The inverse, for parameter types a client declares; false when unknown. */
bool ty_from_pg_oid(uint32_t oid, int32_t typmod, ty_t *out);

/* ---- scalar values ----------------------------------------------------- */

/* An exact decimal: n_val * 10^-n_scale. */
typedef struct num_s {
  __int128 n_val;
  int16_t n_scale;  /* 0..38 */
} num_t;

#define NUM_MAX_DIGITS 38

/* An INTERVAL as PostgreSQL keeps it: three parts, because a month and a
 * day have no fixed length (a month added to Jan 31 is Feb 28, a day is
 * 23 h across a DST change in zoned types). Ordering and equality use the
 * justified length (a month as 30 days, a day as 24 h): ty_iv_span. */
typedef struct ty_iv_s {
  int64_t iv_us;      /* microseconds */
  int32_t iv_days;
  int32_t iv_months;
} ty_iv_t;

typedef struct str_s {
  const char *s_ptr;  /* not NUL-terminated; not owned */
  uint32_t s_len;     /* bytes */
} str_t;

/* One value of a known type. d_null says it is NULL; otherwise the member
 * of the type's physical kind holds it. */
typedef struct datum_s {
  bool d_null;
  union {
    uint8_t d_bool;
    int64_t d_i64;
    double d_f64;
    num_t d_num;
    str_t d_str;
    ty_iv_t d_iv;
  };
} datum_t;

/* ---- vectors and batches ----------------------------------------------- */

typedef struct vec_s {
  ty_t v_type;
  int v_cap;          /* rows allocated */
  uint8_t *v_null;    /* v_cap flags, 1 = NULL; always allocated */
  union {             /* v_cap values of ty_phys(v_type.t_id) */
    uint8_t *v_bool;
    int64_t *v_i64;
    double *v_f64;
    num_t *v_num;
    str_t *v_str;
    ty_iv_t *v_iv;
    void *v_data;
  };
} vec_t;

typedef struct batch_s {
  int b_n;            /* rows filled, <= each column's v_cap */
  int b_ncols;
  vec_t *b_cols;
} batch_t;

/* Allocates a vector of cap rows in a (nulls cleared). */
int vec_init(vec_t *v, arena_t *a, ty_t type, int cap, err_t *e);
/* Bytes one value of a physical type takes in a vector. */
size_t ty_phys_size(ty_phys_t p);
batch_t *batch_create(arena_t *a, int ncols, const ty_t *types, int cap, err_t *e);
/* Row i of v as a datum (strings still point where the vector's do). */
void vec_get(const vec_t *v, int i, datum_t *out);
/* Stores d at row i (strings are not copied). */
void vec_set(vec_t *v, int i, const datum_t *d);

/* ---- comparison and hashing ------------------------------------------- */

/* Three-way comparison of two non-NULL values of one physical kind (the
 * binder casts operands to a common type first). Strings compare bytewise
 * (the C collation); NUMERIC by value whatever the scales. */
int datum_cmp(ty_phys_t p, const datum_t *a, const datum_t *b);
/* Equal values hash equally (NUMERIC 1.0 and 1.00 too). */
uint64_t datum_hash(ty_phys_t p, const datum_t *d);
/* The same for values of type id: datum_cmp / datum_hash of its physical
 * kind, except jsonb, which orders as PostgreSQL's jsonb btree operator
 * class (ty_jsonb_cmp: null < string < number < boolean < array <
 * object, containers by size first, a top-level scalar before an array of
 * one element) and hashes 1.5 and 1.50 alike. For every operator that
 * orders, groups or compares values whose type it knows. */
int datum_cmp_t(ty_id_t id, const datum_t *a, const datum_t *b);
uint64_t datum_hash_t(ty_id_t id, const datum_t *d);

/* ---- text and binary forms --------------------------------------------- */

/* Parses the text form (what PostgreSQL's input functions accept for the
 * common cases: integers, floats incl. NaN/Infinity, decimals, 't'/'true'/
 * 'yes'/'on'/'1', ISO dates and timestamps, bytea hex '\x…' and escape
 * forms) into *out, checking the type's modifiers (VARCHAR(n) too long
 * is 22001, out of range 22003, bad syntax 22P02, bad date 22007/22008).
 * String results are copied into a. */
int ty_parse_text(ty_t t, const char *s, size_t len, arena_t *a, datum_t *out, err_t *e);
/* Appends the text form PostgreSQL would send (float8 with shortest
 * round-trip digits, numeric with its scale, bool t/f, bytea hex, dates
 * ISO) to out; returns the bytes written, or -1 when cap is too small
 * (call again with a buffer of at least that size: ty_text_max). A NULL
 * datum writes nothing and returns 0 (NULLs are the protocol's business). */
int ty_format_text(ty_t t, const datum_t *d, char *out, size_t cap);
size_t ty_text_max(ty_t t, const datum_t *d);
/* Applies t's modifiers to a value d of t's type, in place: CHAR(n) and
 * VARCHAR(n) length (22001, or silent truncation when truncate, as an
 * explicit cast does; CHAR is blank-padded), NUMERIC(p,s) rounding and
 * range (22003), TIMESTAMP(p) rounding. New strings go to a. */
int ty_apply_mods(ty_t t, datum_t *d, bool truncate, arena_t *a, err_t *e);
/* PostgreSQL's binary send/receive formats (int2/4/8, float4/8 IEEE big
 * endian, bool 1 byte, numeric base-10000 digits, text raw, bytea raw,
 * date int32 days, timestamp int64 µs). 22P03 on a malformed value. */
int ty_parse_binary(ty_t t, const uint8_t *b, size_t len, arena_t *a, datum_t *out, err_t *e);
int ty_format_binary(ty_t t, const datum_t *d, uint8_t *out, size_t cap);
size_t ty_binary_max(ty_t t, const datum_t *d);
/* An array (TEXT with t_elem) in array_send's binary layout, from its text
 * form (ty_array_bin.c): bytes written, -1 when cap is short or the text
 * is no array; ty_binary_max gives the room it needs. */
int ty_array_format_binary(ty_t t, const datum_t *d, uint8_t *out, size_t cap);
size_t ty_array_binary_max(const datum_t *d);

/* ---- calendar (proleptic Gregorian; astronomical years: 0 is 1 BC) ---- */

/* DATE (days since 2000-01-01) from a year, month (1..12), day (not
 * checked: see ty_valid_ymd), and back. */
int64_t ty_days_from_civil(int64_t y, int m, int d);
void ty_civil_from_days(int64_t days, int64_t *y, int *m, int *d);
bool ty_valid_ymd(int64_t y, int m, int d);
/* DATE to TIMESTAMP (its midnight); the infinities stay infinite. False
 * when the date lies past TIMESTAMP's range (PostgreSQL's 22008 "date out
 * of range for timestamp"): DATE reaches year 5874897, TIMESTAMP 294276. */
bool ty_date_to_ts(int64_t days, int64_t *us);
/* Whether a TIMESTAMP lies in PostgreSQL's range, 4714-11-24 00:00 BC up
 * to 294276-12-31 23:59:59.999999 (the infinities do not). */
bool ty_ts_in_range(int64_t us);

/* ---- TIME, TIMETZ, TIMESTAMPTZ (ty_time.c) ---- */

/* A time zone (ty_tz.c, below). */
typedef struct ty_tz_s ty_tz_t;

/* TIMETZ as one int64: (time + zone * 1e6) << 17 | (zone + 65536), zone
 * in seconds west of UTC as PostgreSQL keeps it (|zone| <= 15:59:59), so
 * that comparing, hashing and sorting the int64 are PostgreSQL's
 * timetz_cmp (by the UTC instant, then by zone). */
int64_t ty_timetz_pack(int64_t time_us, int32_t zone_west);
void ty_timetz_unpack(int64_t v, int64_t *time_us, int32_t *zone_west);
#define TY_TIMETZ_MAX_ZONE (15 * 3600 + 59 * 60 + 59)
#define TY_USECS_DAY INT64_C(86400000000)
/* TIMESTAMPTZ <-> TIMESTAMP in a zone (NULL = UTC): the local time of an
 * instant, and the instant of a local time (a skipped local time takes
 * the offset before the change, a repeated one the offset after it, as
 * PostgreSQL's DetermineTimeZoneOffset). The infinities stay. 22008 when
 * the result leaves the range. */
int ty_tstz_to_local(int64_t tstz, const ty_tz_t *z, int64_t *ts, err_t *e);
int ty_local_to_tstz(int64_t ts, const ty_tz_t *z, int64_t *tstz, err_t *e);
/* TIMESTAMPTZ plus sign * interval in zone z: months and days on the local
 * calendar (wall-clock time kept across DST), the time part as elapsed
 * time, as PostgreSQL's timestamptz_pl_interval. */
int ty_tstz_add_iv(int64_t t, const ty_iv_t *v, int sign, const ty_tz_t *z, int64_t *out, err_t *e);
/* Rounds µs to prec (0..5) fraction digits, half away from zero: TIMESTAMP(p). */
int64_t ty_ts_round(int64_t us, int prec);
/* TIME to TIMETZ: the zone's offset today, as PostgreSQL's time_timetz. */
int64_t ty_time_to_timetz(int64_t time_us, const ty_tz_t *z);
/* TIME plus µs, wrapping around midnight (time_pl_interval). */
int64_t ty_time_add_us(int64_t time_us, int64_t us);

/* ---- time zones (ty_tz.c) ---- */

/* A zone of the system's database (/usr/share/zoneinfo), a POSIX TZ
 * string or a fixed offset. Loaded once per process and never freed. */
#define TY_TZ_NAME_MAX 64
/* An IANA name (case-insensitive: 'europe/berlin'), or a POSIX TZ string
 * ('EST5EDT', '<+05>-05', '+05:30' = UTC-05:30, as PostgreSQL reads it);
 * NULL when neither. */
const ty_tz_t *ty_tz_find(const char *name);
/* A fixed offset in seconds east of UTC (SET TIME ZONE 5; INTERVAL zones),
 * named as PostgreSQL names it: <+05>-05. */
const ty_tz_t *ty_tz_fixed(int32_t east_secs);
/* A fixed-offset abbreviation of PostgreSQL's Default set ('CEST',
 * 'utc'), case-insensitive: its offset east of UTC. */
bool ty_tz_abbrev(const char *name, size_t len, int32_t *east);
/* The i-th built-in abbreviation (false past the end): its name as
 * PostgreSQL lists it (upper case, into name: at least 8 bytes), offset
 * east, whether it is a DST one. */
bool ty_tz_abbrev_at(int i, char *name, int32_t *east, bool *isdst);
/* Calls fn with every zone name of the database (files that are TZif
 * zones, without leap seconds; "posixrules" and "Factory" left out), in
 * directory order. */
void ty_tz_each_name(void (*fn)(void *ctx, const char *name), void *ctx);
/* The system's zone (/etc/timezone, the /etc/localtime link), else UTC. */
const ty_tz_t *ty_tz_system(void);
/* The name SHOW timezone prints ("UTC" for NULL). */
const char *ty_tz_name(const ty_tz_t *z);
/* The UTC offset (seconds east) at a UTC instant in Unix seconds; the
 * abbreviation and DST flag when asked. */
int32_t ty_tz_offset_at(const ty_tz_t *z, int64_t unix_secs, const char **abbr, bool *isdst);
/* The UTC offset to read a local time (Unix seconds as if UTC) with. */
int32_t ty_tz_offset_local(const ty_tz_t *z, int64_t local_secs);
/* The same for µs since 2000-01-01 (TIMESTAMPTZ, TIMESTAMP). */
int32_t ty_tz_offset_us(const ty_tz_t *z, int64_t utc_us);
int32_t ty_tz_local_offset_us(const ty_tz_t *z, int64_t local_us);
/* Reads a TZif file's bytes (v1 or v2+, footer rule) into a new zone
 * (malloc'ed; for tests and the loader). 22023 when malformed. */
int ty_tz_parse_tzif(const uint8_t *b, size_t len, const char *name, ty_tz_t **out, err_t *e);
/* The zone of the session this thread works for (NULL = UTC): the text
 * forms of TIMESTAMPTZ/TIMETZ, casts and now() read it. Whoever runs a
 * session's work on a thread sets it; parallel workers copy it. */
void ty_tz_use(const ty_tz_t *z);
const ty_tz_t *ty_tz_current(void);

/* ---- NUMERIC arithmetic (22003 on overflow, 22012 on division by 0) ---- */

int num_from_i64(int64_t v, num_t *out);
/* scale < 0: as PostgreSQL's float8 -> numeric (through 15 significant
 * digits, so 0.1 stays 0.1); else rounded to scale. NaN and infinities
 * are errors (no NUMERIC NaN here). */
int num_from_f64(double v, int scale, num_t *out, err_t *e);
double num_to_f64(const num_t *n);
/* Rounds half away from zero to scale; 22003 when it no longer fits. */
int num_rescale(const num_t *n, int scale, num_t *out, err_t *e);
int num_add(const num_t *a, const num_t *b, num_t *out, err_t *e);
int num_sub(const num_t *a, const num_t *b, num_t *out, err_t *e);
int num_mul(const num_t *a, const num_t *b, num_t *out, err_t *e);
/* Quotient with PostgreSQL's result scale rule (at least 16 significant
 * digits, at least the larger input scale). */
int num_div(const num_t *a, const num_t *b, num_t *out, err_t *e);
/* Remainder with the dividend's sign (a - trunc(a/b)*b), at the larger
 * scale; 22012 when b is 0. */
int num_mod(const num_t *a, const num_t *b, num_t *out, err_t *e);
int num_cmp(const num_t *a, const num_t *b);
/* The base-10000 weight of the first non-zero group of digits and that
 * group's value (as PostgreSQL's NumericVar holds a non-zero value): the
 * input of its result-scale rules. */
void num_weight(const num_t *n, int *weight, int *first_group);
/* Square root with PostgreSQL's result scale (at least 16 significant
 * digits, at least the input's scale), rounded; 2201F for a negative. */
int num_sqrt(const num_t *a, num_t *out, err_t *e);

/* ---- INTERVAL (ty_interval.c; 22008 "interval out of range" unless said) ---- */

/* The fields of `interval year to month` & co. as PostgreSQL's typmod
 * range bits (INTERVAL_MASK), kept in ty_t.t_scale (0 = all fields). */
#define TY_IV_F_MONTH (1 << 1)
#define TY_IV_F_YEAR (1 << 2)
#define TY_IV_F_DAY (1 << 3)
#define TY_IV_F_HOUR (1 << 10)
#define TY_IV_F_MINUTE (1 << 11)
#define TY_IV_F_SECOND (1 << 12)
/* The length used for ordering, equality and hashing: (months * 30 +
 * days) * 24 h + µs, exact in 128 bits (PostgreSQL's interval_cmp_value). */
__int128 ty_iv_span(const ty_iv_t *v);
/* PostgreSQL's interval input (its postgres/verbose forms, `1-2`
 * year-month, `1 2:03:04` day-time, ISO 8601 `P1Y2M3DT4H5M6S`, `@ … ago`)
 * with t's fields and precision applied: 22007 bad syntax, 22015 a field
 * out of range, 22008 the interval out of range. */
int ty_iv_parse(ty_t t, const char *s, size_t len, ty_iv_t *out, err_t *e);
/* IntervalStyle postgres: `1 year 2 mons 3 days 04:05:06.5`; returns the
 * bytes written (out >= TY_IV_TEXT_MAX). */
#define TY_IV_TEXT_MAX 96
int ty_iv_format(const ty_iv_t *v, char *out);
/* Truncates to t's fields and rounds to its precision (interval_scale). */
void ty_iv_apply_typmod(ty_t t, ty_iv_t *v);
/* interval_pl / interval_mi / interval_um. */
int ty_iv_add(const ty_iv_t *a, const ty_iv_t *b, ty_iv_t *out, err_t *e);
int ty_iv_sub(const ty_iv_t *a, const ty_iv_t *b, ty_iv_t *out, err_t *e);
int ty_iv_neg(const ty_iv_t *a, ty_iv_t *out, err_t *e);
/* interval * float8 and interval / float8, fractions cascading down
 * (a month's fraction to days at 30 a month, a day's to time); 22012 on
 * division by zero. */
int ty_iv_mul(const ty_iv_t *a, double f, ty_iv_t *out, err_t *e);
int ty_iv_div(const ty_iv_t *a, double f, ty_iv_t *out, err_t *e);
/* justify_hours (24 h to a day), justify_days (30 days to a month),
 * justify_interval (both, signs made to agree). */
int ty_iv_justify_hours(const ty_iv_t *a, ty_iv_t *out, err_t *e);
int ty_iv_justify_days(const ty_iv_t *a, ty_iv_t *out, err_t *e);
int ty_iv_justify(const ty_iv_t *a, ty_iv_t *out, err_t *e);
/* TIMESTAMP plus sign * interval: months first (the day clamped to the
 * month's end), then days, then time; ±infinity stays; 22008 "timestamp
 * out of range". */
int ty_ts_add_iv(int64_t ts, const ty_iv_t *v, int sign, int64_t *out, err_t *e);
/* TIMESTAMP - TIMESTAMP, hours justified into days (timestamp_mi). */
int ty_ts_diff(int64_t a, int64_t b, ty_iv_t *out, err_t *e);
/* age(a, b): the symbolic difference in years, months, days and time. */
int ty_ts_age(int64_t a, int64_t b, ty_iv_t *out, err_t *e);
/* make_interval(years, months, weeks, days, hours, mins, secs). */
int ty_iv_make(int64_t years, int64_t months, int64_t weeks, int64_t days, int64_t hours,
               int64_t mins, double secs, ty_iv_t *out, err_t *e);
/* extract(field FROM interval) for a lower-case field name: the value as
 * NUMERIC (scale 6 for second and epoch, 3 for milliseconds, else 0).
 * 22023 for an unknown unit, 0A000 for one an interval has not (week). */
int ty_iv_extract(const ty_iv_t *v, const char *field, num_t *out, err_t *e);


/* ---- JSON and JSONB (ty_json.c, ty_jsonb.c) ---- */

/* A parsed JSON document: a tree in an arena. */
typedef enum ty_jkind_e {
  TJ_NULL, TJ_STRING, TJ_NUMBER, TJ_BOOL, TJ_ARRAY, TJ_OBJECT
} ty_jkind_t;

typedef struct ty_jval_s ty_jval_t;
struct ty_jval_s {
  ty_jkind_t jv_kind;
  bool jv_bool;          /* TJ_BOOL */
  str_t jv_str;          /* TJ_STRING: the decoded characters; TJ_NUMBER: its
                          * text (as written for json, numeric's form for jsonb) */
  str_t jv_raw;          /* the value's text as written in the source */
  int jv_n;              /* TJ_ARRAY elements, TJ_OBJECT pairs */
  str_t *jv_keys;        /* TJ_OBJECT: decoded keys (jsonb: sorted, unique) */
  ty_jval_t **jv_vals;   /* elements, or the pairs' values */
};

/* The deepest nesting of arrays and objects a document may have; deeper
 * is 54001 "stack depth limit exceeded", where PostgreSQL 15 with its
 * default max_stack_depth (2 MB) stops too (between 10,000 and 20,000). */
#define TY_JSON_MAX_DEPTH 12000

/* Checks that s is JSON as PostgreSQL's json_in does (22P02 "invalid
 * input syntax for type json" with its DETAIL; escapes are checked for
 * form only, as json keeps the text). */
int ty_json_validate(const char *s, size_t len, err_t *e);
/* Parses s into a tree in a. jsonb: as jsonb_in reads it — strings
 * decoded (\u0000 is 22P05, unpaired surrogates 22P02), numbers in
 * numeric's form, object keys sorted as jsonb keeps them (shorter first,
 * then bytewise) with the last of equal keys kept. Without jsonb, keys stay
 * in their order (duplicates too) and numbers as written. */
int ty_json_parse(const char *s, size_t len, bool jsonb, arena_t *a, ty_jval_t **out, err_t *e);
/* The text numeric_in/numeric_out make of a JSON number (1.5e3 -> 1500,
 * -0 -> 0, 1E-2 -> 0.01), in a. */
int ty_json_number_canon(const char *s, size_t len, arena_t *a, str_t *out, err_t *e);

/* A growing byte buffer in an arena, for building JSON text. */
typedef struct ty_jbuf_s {
  arena_t *jb_arena;
  char *jb_ptr;
  size_t jb_len, jb_cap;
  bool jb_failed;          /* a growth was refused: the arena's budget or the
                            * system (53200), or past 1 GB (54000), in jb_err;
                            * later additions are dropped */
  err_t jb_err;
} ty_jbuf_t;
void ty_jbuf_init(ty_jbuf_t *b, arena_t *a);
void ty_jbuf_add(ty_jbuf_t *b, const char *s, size_t n);
void ty_jbuf_addc(ty_jbuf_t *b, char c);
/* s as a JSON string: quoted, with escape_json's escapes. */
void ty_jbuf_add_jstring(ty_jbuf_t *b, const char *s, size_t n);

/* The canonical jsonb text of a tree (`{"a": 1, "b": [1, 2]}`): keys as
 * the tree has them (sorted when it came from ty_json_parse(jsonb)). */
void ty_jsonb_print(ty_jbuf_t *b, const ty_jval_t *v);
/* Sorts an object's pairs as jsonb keeps them and drops earlier
 * duplicates (the last value of a key wins). */
void ty_jsonb_sort_keys(ty_jval_t *obj);
/* jsonb's btree order over two trees (PostgreSQL's compareJsonbContainers:
 * object > array > boolean > number > string > null; a raw scalar
 * compares as a one-element array; arrays and objects by size first). */
int ty_jsonb_cmp(const ty_jval_t *a, const ty_jval_t *b);
/* ty_jsonb_cmp of two stored (canonical) jsonb texts; a hash equal for
 * equal values. */
int ty_jsonb_text_cmp(const str_t *a, const str_t *b);
uint64_t ty_jsonb_text_hash(const str_t *s);
/* PostgreSQL's jsonb key order: by length, then bytewise. */
int ty_jsonb_key_cmp(const str_t *a, const str_t *b);
/* numeric order of two canonical numbers (ty_json_number_canon's form). */
int ty_json_number_cmp(const str_t *a, const str_t *b);

#endif /* CZ_TYPES_H */
