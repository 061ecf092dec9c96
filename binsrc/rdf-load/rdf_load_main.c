/* rdf-load — the bulk loader from the command line, with a progress
 * display: lists a folder's files (ld_dir), runs loaders in parallel
 * sessions (rdf_loader_run), and prints once a second the triples loaded,
 * triples/s, files done and an ETA read from the server's load list.
 *
 * Design notes: a client of libpq only (as isql-cz): the loading is the
 * server's (rdf/README.md "Bulk loader"); this program calls the SQL
 * functions and reads pg_rdf.rdf_load_list. Each loader thread has its own
 * connection; the display reads committed progress (the server writes a
 * file's counters about once a second). Connection settings are libpq's
 * (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGDATABASE, or -d CONNINFO).
 *
 * Usage: rdf-load [-d CONNINFO] [-j LOADERS] [-g GRAPH] [-m MASK] [-k] DIR
 *   -k  skip malformed statements (else a malformed file stops and fails)
 * Exit status 0 when every file of this run loaded without error.
 */
#include <libpq-fe.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define RL_MAX_LOADERS 64

typedef struct rl_opts_s {
  const char *ro_conninfo;
  const char *ro_graph;
  const char *ro_mask;
  const char *ro_dir;
  int ro_loaders;
  int ro_skip;
} rl_opts_t;

typedef struct rl_loader_s {
  const rl_opts_t *lo_opts;
  pthread_t lo_thread;
  int lo_ok;                   /* rdf_loader_run answered */
  int lo_joined;
  char lo_error[512];
} rl_loader_t;

static double rl_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static PGconn *rl_connect(const rl_opts_t *o)
{
  PGconn *c = PQconnectdb(o->ro_conninfo ? o->ro_conninfo : "");
  if (PQstatus(c) != CONNECTION_OK) {
    fprintf(stderr, "rdf-load: %s", PQerrorMessage(c));
    PQfinish(c);
    return NULL;
  }
  return c;
}

static void *rl_loader(void *arg)
{
  rl_loader_t *l = arg;
  PGconn *c = rl_connect(l->lo_opts);
  if (!c) {
    snprintf(l->lo_error, sizeof l->lo_error, "could not connect");
    return NULL;
  }
  PGresult *r = PQexec(c, l->lo_opts->ro_skip ? "SELECT rdf_loader_run(true)"
                                              : "SELECT rdf_loader_run(false)");
  if (PQresultStatus(r) == PGRES_TUPLES_OK)
    l->lo_ok = 1;
  else
    snprintf(l->lo_error, sizeof l->lo_error, "%s", PQresultErrorMessage(r));
  PQclear(r);
  PQfinish(c);
  return NULL;
}

/* The run's files: total, done, failed, triples, bytes read and to read. */
typedef struct rl_state_s {
  long long rs_files, rs_done, rs_failed, rs_triples, rs_read, rs_bytes;
} rl_state_t;

static int rl_poll(PGconn *c, const char *dir, rl_state_t *s)
{
  const char *params[1] = {dir};
  PGresult *r = PQexecParams(
      c,
      "SELECT count(*), count(*) FILTER (WHERE ll_state = 2),"
      " count(*) FILTER (WHERE ll_error IS NOT NULL), coalesce(sum(ll_triples), 0),"
      " coalesce(sum(CASE WHEN ll_state = 2 THEN ll_bytes ELSE ll_read END), 0),"
      " coalesce(sum(ll_bytes), 0)"
      " FROM pg_rdf.rdf_load_list WHERE starts_with(ll_file, $1)",
      1, NULL, params, NULL, NULL, 0);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    fprintf(stderr, "rdf-load: %s", PQresultErrorMessage(r));
    PQclear(r);
    return -1;
  }
  long long *f[6] = {&s->rs_files, &s->rs_done, &s->rs_failed, &s->rs_triples, &s->rs_read,
                     &s->rs_bytes};
  for (int i = 0; i < 6; i++)
    *f[i] = atoll(PQgetvalue(r, 0, i));
  PQclear(r);
  return 0;
}

static void rl_show(const rl_state_t *s, double secs, int final)
{
  double rate = secs > 0 ? (double)s->rs_triples / secs : 0;
  char eta[32] = "?";
  if (s->rs_read > 0 && s->rs_bytes >= s->rs_read) {
    double left = secs * (double)(s->rs_bytes - s->rs_read) / (double)s->rs_read;
    snprintf(eta, sizeof eta, "%.0f s", left);
  }
  printf("\r%lld triples, %.0f triples/s, files %lld/%lld done (%lld failed), ETA %s%s",
         s->rs_triples, rate, s->rs_done, s->rs_files, s->rs_failed,
         final ? "0 s" : eta, final ? "\n" : "   ");
  fflush(stdout);
}

static int rl_usage(void)
{
  fprintf(stderr, "usage: rdf-load [-d CONNINFO] [-j LOADERS] [-g GRAPH] [-m MASK] [-k] DIR\n");
  return 2;
}

int main(int argc, char **argv)
{
  rl_opts_t o = {.ro_mask = "*", .ro_loaders = 1};
  int ch;
  while ((ch = getopt(argc, argv, "d:j:g:m:k")) != -1) {
    switch (ch) {
    case 'd': o.ro_conninfo = optarg; break;
    case 'j': o.ro_loaders = atoi(optarg); break;
    case 'g': o.ro_graph = optarg; break;
    case 'm': o.ro_mask = optarg; break;
    case 'k': o.ro_skip = 1; break;
    default: return rl_usage();
    }
  }
  if (optind + 1 != argc || o.ro_loaders < 1 || o.ro_loaders > RL_MAX_LOADERS)
    return rl_usage();
  o.ro_dir = argv[optind];
  char real[4096];
  if (!realpath(o.ro_dir, real)) {
    /* the server resolves it on its side; a folder only it sees is fine */
    snprintf(real, sizeof real, "%s", o.ro_dir);
  }
  PGconn *c = rl_connect(&o);
  if (!c)
    return 2;
  const char *params[3] = {real, o.ro_mask, o.ro_graph};
  PGresult *r = PQexecParams(c, "SELECT ld_dir($1, $2, $3)", 3, NULL, params, NULL, NULL, 0);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    fprintf(stderr, "rdf-load: ld_dir: %s", PQresultErrorMessage(r));
    PQclear(r);
    PQfinish(c);
    return 1;
  }
  printf("ld_dir: %s new file(s) listed\n", PQgetvalue(r, 0, 0));
  PQclear(r);
  rl_state_t base;
  if (rl_poll(c, real, &base) != 0) {
    PQfinish(c);
    return 1;
  }
  rl_loader_t ls[RL_MAX_LOADERS];
  memset(ls, 0, sizeof ls);
  double t0 = rl_now();
  for (int i = 0; i < o.ro_loaders; i++) {
    ls[i].lo_opts = &o;
    pthread_create(&ls[i].lo_thread, NULL, rl_loader, &ls[i]);
  }
  /* the display: until every loader has returned */
  rl_state_t s = base;
  for (;;) {
    int running = 0;
    for (int i = 0; i < o.ro_loaders; i++) {
      if (!ls[i].lo_joined && pthread_tryjoin_np(ls[i].lo_thread, NULL) == 0)
        ls[i].lo_joined = 1;
      if (!ls[i].lo_joined)
        running++;
    }
    if (rl_poll(c, real, &s) == 0) {
      rl_state_t d = s;
      d.rs_triples -= base.rs_triples;
      d.rs_done -= base.rs_done;
      rl_show(&d, rl_now() - t0, !running);
    }
    if (!running)
      break;
    sleep(1);
  }
  int rc = 0;
  for (int i = 0; i < o.ro_loaders; i++)
    if (!ls[i].lo_ok) {
      fprintf(stderr, "rdf-load: loader %d: %s", i + 1, ls[i].lo_error);
      rc = 1;
    }
  PGresult *f = PQexecParams(c,
                             "SELECT ll_file, ll_error FROM pg_rdf.rdf_load_list"
                             " WHERE starts_with(ll_file, $1) AND ll_error IS NOT NULL"
                             " ORDER BY ll_file",
                             1, NULL, params, NULL, NULL, 0);
  if (PQresultStatus(f) == PGRES_TUPLES_OK)
    for (int i = 0; i < PQntuples(f); i++) {
      fprintf(stderr, "rdf-load: %s: %s\n", PQgetvalue(f, i, 0), PQgetvalue(f, i, 1));
      rc = 1;
    }
  PQclear(f);
  PQfinish(c);
  return rc;
}
