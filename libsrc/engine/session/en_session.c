/* en_session — sessions: opening for a role, run-time parameters (GUCs)
 * and their reporting, notices, cancellation, and what the statement
 * runner reads of a session (session.h). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/session/session_int.h"

/* The parameters every session starts with; reported ones go to the
 * client as ParameterStatus. */
static const struct {
  const char *name;
  const char *value;
  bool report;
} en_defaults[] = {
    {"server_version", "15.0", true},
    {"server_encoding", "UTF8", true},
    {"client_encoding", "UTF8", true},
    {"datestyle", "ISO, MDY", true},
    {"intervalstyle", "postgres", true},
    {"timezone", "UTC", true},
    {"integer_datetimes", "on", true},
    {"standard_conforming_strings", "on", true},
    {"is_superuser", "off", true},
    {"session_authorization", "", true},
    {"application_name", "", true},
    {"search_path", "\"$user\", public", false},
    {"extra_float_digits", "1", false},
    {"transaction_isolation", "read committed", false},
    {"default_transaction_isolation", "read committed", false},
    {"transaction_read_only", "off", false},
    {"statement_timeout", "0", false},
    {"lock_timeout", "0", false},
    {"max_identifier_length", "63", false},
    {"server_version_num", "150000", false},
    {"bytea_output", "hex", false},
    {"default_transaction_read_only", "off", false},
    {"default_table_access_method", "heap", false}, /* what pg_class.relam names (pg_am) */
};

/* The case PostgreSQL reports names in (ParameterStatus). */
const char *en_guc_display(const char *name)
{
  if (strcmp(name, "datestyle") == 0)
    return "DateStyle";
  if (strcmp(name, "intervalstyle") == 0)
    return "IntervalStyle";
  if (strcmp(name, "timezone") == 0)
    return "TimeZone";
  return name;
}

static eguc_t *guc_find(esession_t *s, const char *name)
{
  for (eguc_t *g = s->se_gucs; g; g = g->eg_next)
    if (strcasecmp(g->eg_name, name) == 0)
      return g;
  return NULL;
}

const char *en_guc_get(esession_t *s, const char *name)
{
  eguc_t *g = guc_find(s, name);
  return g ? g->eg_value : NULL;
}

static bool guc_parse_ms(const char *value, int64_t *ms);

static void guc_put(esession_t *s, const char *name, const char *value, bool report)
{
  /* lock_timeout is read by every lock wait of the session's transaction
   * (txn_set_lock_timeout): kept as a number beside its text */
  int64_t ms;
  if (strcasecmp(name, "lock_timeout") == 0 && guc_parse_ms(value, &ms))
    s->se_lock_timeout_ms = ms;
  eguc_t *g = guc_find(s, name);
  if (!g) {
    g = arena_zalloc(s->se_arena, sizeof(*g));
    g->eg_name = arena_strdup(s->se_arena, name);
    for (char *p = g->eg_name; *p; p++)
      if (*p >= 'A' && *p <= 'Z')
        *p = (char)(*p - 'A' + 'a');
    g->eg_report = report;
    g->eg_next = s->se_gucs;
    s->se_gucs = g;
  } else if (g->eg_value && strcmp(g->eg_value, value) == 0)
    return;
  /* Values are small and rarely changed: the session arena keeps old ones. */
  g->eg_value = arena_strdup(s->se_arena, value);
  g->eg_changed = true;
}

void en_guc_put_value(esession_t *s, const char *name, const char *value)
{
  guc_put(s, name, value, false);
}


/* A duration setting as PostgreSQL takes it: an integer with an optional
 * unit (us, ms, s, min, h, d; none = ms). false when value is not one. */
static bool guc_parse_ms(const char *value, int64_t *ms)
{
  static const struct {
    const char *unit;
    double ms;
  } units[] = {{"", 1}, {"us", 0.001}, {"ms", 1}, {"s", 1000}, {"min", 60000},
               {"h", 3600000}, {"d", 86400000}};
  const char *p = value;
  while (*p == ' ')
    p++;
  char *end;
  double v = strtod(p, &end);
  if (end == p)
    return false;
  while (*end == ' ')
    end++;
  size_t n = strlen(end);
  while (n > 0 && end[n - 1] == ' ')
    n--;
  for (size_t i = 0; i < CZ_ARRAY_LEN(units); i++) {
    if (strlen(units[i].unit) == n && strncmp(end, units[i].unit, n) == 0) {
      double r = v * units[i].ms;
      if (!(r >= 0 && r <= 2147483647.0))
        return false;
      *ms = (int64_t)(r + 0.5);
      return true;
    }
  }
  return false;
}

/* max_parallel_workers_per_gather as PostgreSQL names it: the workers a
 * parallel part of this session's plans asks for, its own thread aside
 * (the default: [Parameters] ThreadsPerQuery - 1). */
static bool guc_parse_workers(const char *value, int *out)
{
  char *end;
  long v = strtol(value, &end, 10);
  while (*end == ' ')
    end++;
  if (end == value || *end || v < 0 || v > 1024)
    return false;
  *out = (int)v;
  return true;
}

int esession_threads(esession_t *s)
{
  const char *v = en_guc_get(s, "max_parallel_workers_per_gather");
  int workers;
  return v && guc_parse_workers(v, &workers) ? workers + 1 : s->se_eng->en_threads;
}

int64_t esession_statement_timeout_ms(esession_t *s)
{
  const char *v = en_guc_get(s, "statement_timeout");
  int64_t ms = 0;
  return v && guc_parse_ms(v, &ms) ? ms : 0;
}

/* TimeZone as PostgreSQL's check_timezone reads it: INTERVAL '…' (SET
 * TIME ZONE INTERVAL, east of UTC), a number of hours east of UTC, else a
 * zone name or POSIX string; empty (DEFAULT, RESET) or LOCAL the server's
 * zone. The value kept (and shown, and reported) is the zone's name. */
static int guc_set_timezone(esession_t *s, const char *value, err_t *e)
{
  const ty_tz_t *z = NULL;
  char *end;
  const char *shown = value;
  char txt[256];
  if (value[0] == '\0' || strcasecmp(value, "local") == 0 || strcasecmp(value, "default") == 0) {
    z = s->se_eng->en_tz;
  } else if (strncmp(value, "interval\x01", 9) == 0) {
    /* interval\x01<text>\x01<prec>\x01<fields>: see set_rest in sql_gram.y */
    int prec = -1, fields = 0;
    const char *p = value + 9, *q = strchr(p, '\x01');
    size_t n = q ? (size_t)(q - p) : strlen(p);
    snprintf(txt, sizeof(txt), "%.*s", (int)n, p);
    shown = txt;
    if (q)
      sscanf(q + 1, "%d\x01%d", &prec, &fields);
    ty_t it = ty_plain(TY_INTERVAL);
    it.t_prec = (int16_t)prec;
    it.t_scale = (int16_t)fields;
    ty_iv_t iv;
    if (ty_iv_parse(it, txt, strlen(txt), &iv, e) != CZ_OK)
      return CZ_ERR;
    if (iv.iv_months != 0 || iv.iv_days != 0 || iv.iv_us / 1000000 > 24 * 3600 * 7 ||
        iv.iv_us / 1000000 < -24 * 3600 * 7) {
      char ivt[TY_IV_TEXT_MAX];
      int n = ty_iv_format(&iv, ivt);
      return err_set(e, SQLSTATE_INVALID_PARAMETER,
                     "invalid value for parameter \"TimeZone\": \"INTERVAL '%.*s'\"%s", n, ivt,
                     iv.iv_months ? ": cannot specify months in time zone interval"
                     : iv.iv_days ? ": cannot specify days in time zone interval"
                                  : "");
    }
    z = ty_tz_fixed((int32_t)(iv.iv_us / 1000000));
  } else {
    double hours = strtod(value, &end);
    if (end != value && *end == '\0') {
      if (!(hours > -168 && hours < 168))
        return err_set(e, SQLSTATE_INVALID_PARAMETER,
                       "invalid value for parameter \"TimeZone\": \"%s\"", value);
      z = ty_tz_fixed((int32_t)(hours * 3600));
    } else {
      z = ty_tz_find(value);
    }
  }
  if (!z)
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid value for parameter \"TimeZone\": \"%s\"",
                   shown);
  s->se_tz = z;
  ty_tz_use(z);
  guc_put(s, "timezone", ty_tz_name(z), false);
  return CZ_OK;
}

void esession_use(esession_t *s)
{
  ty_tz_use(s->se_tz);
}

int en_guc_set(esession_t *s, const char *name, const char *value, bool from_client, err_t *e)
{
  if (strcasecmp(name, "timezone") == 0)
    return guc_set_timezone(s, value, e);
  if (strcasecmp(name, "transaction_isolation") == 0 ||
      strcasecmp(name, "default_transaction_isolation") == 0)
    return en_iso_guc_set(s, name, value, e);
  char norm[64];
  int64_t ms;
  if ((strcasecmp(name, "statement_timeout") == 0 || strcasecmp(name, "lock_timeout") == 0) &&
      !guc_parse_ms(value, &ms))
    return err_set(e, SQLSTATE_INVALID_PARAMETER, "invalid value for parameter \"%s\": \"%s\"",
                   name, value);
  int workers;
  if (strcasecmp(name, "max_parallel_workers_per_gather") == 0 &&
      !guc_parse_workers(value, &workers))
    return err_set(e, SQLSTATE_INVALID_PARAMETER,
                   "invalid value for parameter \"%s\": \"%s\" (an integer 0 to 1024)", name,
                   value);
  if (strcasecmp(name, "client_encoding") == 0) {
    if (strcasecmp(value, "UTF8") != 0 && strcasecmp(value, "UTF-8") != 0 &&
        strcasecmp(value, "UNICODE") != 0)
      return err_set(e, SQLSTATE_INVALID_PARAMETER,
                     "invalid value for parameter \"client_encoding\": \"%s\" (only UTF8)", value);
    value = "UTF8";
  } else if (strcasecmp(name, "datestyle") == 0) {
    /* Output is always ISO; remember the order the client asked for. */
    snprintf(norm, sizeof(norm), "ISO, %s", strcasestr(value, "DMY") ? "DMY" : "MDY");
    value = norm;
  } else if (strcasecmp(name, "server_version") == 0 || strcasecmp(name, "server_encoding") == 0 ||
             strcasecmp(name, "is_superuser") == 0 || strcasecmp(name, "integer_datetimes") == 0) {
    if (from_client)
      return CZ_OK;  /* startup packets may echo these: ignored */
    return err_set(e, SQLSTATE_CANT_CHANGE_RUNTIME_PARAM, "parameter \"%s\" cannot be changed", name);
  } else if (strcasecmp(name, "standard_conforming_strings") == 0) {
    if (strcasecmp(value, "on") != 0 && strcasecmp(value, "true") != 0)
      return err_set(e, SQLSTATE_FEATURE_NOT_SUPPORTED,
                     "standard_conforming_strings cannot be turned off");
    value = "on";
  }
  guc_put(s, name, value, false);
  return CZ_OK;
}

int esession_open(engine_t *eng, const char *role, const char *database, esession_t **out,
                  err_t *e)
{
  (void)database;
  cat_snapshot_t *snap = cat_snapshot(eng->en_cat);
  const cat_role_t *r = cat_find_role(snap, role);
  if (!r) {
    cat_snapshot_release(snap);
    return err_set(e, SQLSTATE_INVALID_AUTHORIZATION, "role \"%s\" does not exist", role);
  }
  arena_t *a = arena_create(NULL, "session");
  esession_t *s = arena_zalloc(a, sizeof(*s));
  s->se_eng = eng;
  s->se_arena = a;
  s->se_notice_arena = arena_create(a, "notices");
  s->se_role = arena_strdup(a, role);
  s->se_role_oid = r->cr_oid;
  s->se_superuser = r->cr_superuser;
  s->se_status = 'I';
  s->se_iso = 1; /* read committed, as the defaults below say */
  s->se_snap = snap;
  for (size_t i = 0; i < CZ_ARRAY_LEN(en_defaults); i++)
    guc_put(s, en_defaults[i].name, en_defaults[i].value, en_defaults[i].report);
  if (eng->en_lock_timeout_ms > 0) {  /* [Parameters] LockTimeout */
    char lt[32];
    snprintf(lt, sizeof lt, "%lldms", (long long)eng->en_lock_timeout_ms);
    guc_put(s, "lock_timeout", lt, false);
  }
  char workers[16];
  snprintf(workers, sizeof workers, "%d", eng->en_threads > 1 ? eng->en_threads - 1 : 0);
  guc_put(s, "max_parallel_workers_per_gather", workers, false);
  guc_put(s, "is_superuser", s->se_superuser ? "on" : "off", true);
  guc_put(s, "session_authorization", role, true);
  s->se_tz = eng->en_tz;
  guc_put(s, "timezone", ty_tz_name(s->se_tz), true);
  ty_tz_use(s->se_tz);
  s->se_pgcat = en_pgcat_session_open(a, database, role);
  s->se_database = arena_strdup(a, database && *database ? database : role);
  en_apply_role_settings(s);
  pthread_mutex_lock(&eng->en_mu);
  eng->en_nsessions++;
  pthread_mutex_unlock(&eng->en_mu);
  *out = s;
  return CZ_OK;
}

static void drop_temp_schema(esession_t *s);

void esession_close(esession_t *s)
{
  if (!s)
    return;
  en_cursor_close_all(s);
  en_prepared_free_all(s);
  if (s->se_tx)
    txn_rollback(s->se_tx, NULL);
  s->se_tx = NULL;
  if (s->se_temp_schema)
    drop_temp_schema(s);
  if (s->se_snap)
    cat_snapshot_release(s->se_snap);
  pthread_mutex_lock(&s->se_eng->en_mu);
  s->se_eng->en_nsessions--;
  pthread_mutex_unlock(&s->se_eng->en_mu);
  arena_destroy(s->se_arena);
}

char esession_tx_status(const esession_t *s)
{
  return s->se_status;
}

void esession_report_params(esession_t *s, bool only_changed, eparam_fn_t fn, void *ctx)
{
  /* The list is newest first; report in the order they were defined. */
  eguc_t *stack[128];
  int n = 0;
  for (eguc_t *g = s->se_gucs; g && n < (int)CZ_ARRAY_LEN(stack); g = g->eg_next)
    stack[n++] = g;
  while (n-- > 0) {
    eguc_t *g = stack[n];
    if (g->eg_report && (!only_changed || g->eg_changed))
      fn(ctx, en_guc_display(g->eg_name), g->eg_value);
    g->eg_changed = false;
  }
}

int esession_set_param(esession_t *s, const char *name, const char *value, err_t *e)
{
  /* Startup packets carry what the client wants; names we do not know
   * are kept (PostgreSQL ignores extensions' unknown GUCs). */
  int rc = en_guc_set(s, name, value, true, e);
  if (rc == CZ_OK) {
    eguc_t *g = guc_find(s, name);
    if (g && (strcasecmp(name, "application_name") == 0 || strcasecmp(name, "client_encoding") == 0 ||
              strcasecmp(name, "datestyle") == 0 || strcasecmp(name, "timezone") == 0 ||
              strcasecmp(name, "intervalstyle") == 0))
      g->eg_report = true;
  }
  return rc;
}

void esession_cancel(esession_t *s)
{
  s->se_cancel = true;
}

/* A new notice at the end of s's queue; the caller fills en_notice. */
static enotice_t *notice_append(esession_t *s, const char *severity)
{
  enotice_t *n = arena_zalloc(s->se_notice_arena, sizeof(*n));
  snprintf(n->en_severity, sizeof(n->en_severity), "%s", severity);
  if (s->se_notices_tail)
    s->se_notices_tail->en_next = n;
  else
    s->se_notices = n;
  s->se_notices_tail = n;
  return n;
}

void es_notice(esession_t *s, const char *severity, const char *sqlstate, const char *fmt, ...)
{
  enotice_t *n = notice_append(s, severity);
  va_list ap;
  va_start(ap, fmt);
  err_setv(&n->en_notice, sqlstate, fmt, ap);
  va_end(ap);
}

void es_notice_err(esession_t *s, const char *severity, const err_t *notice)
{
  notice_append(s, severity)->en_notice = *notice;
}

void esession_drain_notices(esession_t *s, enotice_fn_t fn, void *ctx)
{
  for (enotice_t *n = s->se_notices; n; n = n->en_next)
    fn(ctx, n->en_severity, &n->en_notice);
  s->se_notices = s->se_notices_tail = NULL;
  arena_reset(s->se_notice_arena);
}

void es_refresh_snapshot(esession_t *s)
{
  cat_snapshot_refresh(s->se_eng->en_cat, s->se_tx, &s->se_snap);
}

void esession_set_backend_pid(esession_t *s, int32_t pid)
{
  en_pgcat_set_backend_pid(s->se_pgcat, pid);
}

/* ---- what the runner reads of a session (session.h) ---------------------- */

engine_t *es_engine(const esession_t *s) { return s->se_eng; }
cat_oid_t es_role_oid(const esession_t *s) { return s->se_role_oid; }

const char *es_temp_schema(esession_t *s, bool make)
{
  if (!s->se_temp_schema && make) {
    pthread_mutex_lock(&s->se_eng->en_mu);
    int n = ++s->se_eng->en_temp_seq;
    pthread_mutex_unlock(&s->se_eng->en_mu);
    char name[32];
    snprintf(name, sizeof name, "pg_temp_%d", n);
    s->se_temp_schema = arena_strdup(s->se_arena, name);
  }
  return s->se_temp_schema;
}

/* The temporary views go with the session: the schema and all in it, in
 * a transaction of its own. A failure (a DDL lock held past the wait) is
 * logged; the next start drops what is left. */
static void drop_temp_schema(esession_t *s)
{
  cat_t *c = s->se_eng->en_cat;
  cat_snapshot_t *snap = cat_snapshot(c);
  const cat_schema_t *sc = cat_find_schema(snap, s->se_temp_schema);
  cat_oid_t oid = sc ? sc->cs_oid : 0;
  cat_snapshot_release(snap);
  if (!oid)
    return;
  err_t e;
  err_clear(&e);
  txn_t *tx = txn_begin(s->se_eng->en_db, 0, &e);
  /* the DDL lock may be held by another session's open transaction: a
   * closing session waits for it a while, not for ever (what is left is
   * dropped at the next start) */
  static const volatile int64_t wait_ms = 10000;
  if (tx)
    txn_set_lock_timeout(tx, &wait_ms);
  int rc = tx ? cat_drop_temp_schema(c, tx, oid, &e) : CZ_ERR;
  if (tx)
    rc = rc == CZ_OK ? txn_commit(tx, &e) : txn_rollback(tx, NULL);
  if (rc != CZ_OK)
    log_warn("could not drop the temporary schema %s: %s", s->se_temp_schema, e.er_msg);
}
const char *es_role(const esession_t *s) { return s->se_role; }
cat_snapshot_t *es_snapshot(const esession_t *s) { return s->se_snap; }
txn_t *es_txn(const esession_t *s) { return s->se_tx; }
volatile bool *es_cancel_flag(esession_t *s) { return &s->se_cancel; }
struct en_pgcat_s *es_pgcat(esession_t *s) { return s->se_pgcat; }
struct en_cons_s **es_cons_slot(esession_t *s) { return &s->se_cons; }
arena_t *es_arena(esession_t *s) { return s->se_arena; }

const char *es_setting(esession_t *s, const char *name) { return en_guc_get(s, name); }

int es_set_setting(esession_t *s, const char *name, const char *value, err_t *e)
{
  return en_guc_set(s, name, value, false, e);
}

void es_settings_each(esession_t *s, void (*fn)(void *ctx, const char *name, const char *value),
                      void *ctx)
{
  for (const eguc_t *g = s->se_gucs; g; g = g->eg_next)
    fn(ctx, g->eg_name, g->eg_value);
}
