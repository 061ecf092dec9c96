/* iq_conn — connecting through libpq, asking for a password when needed.
 *
 * Design notes: the defaults differ from psql's in one way: with no host
 * given anywhere the client goes to localhost over TCP (Cadenza listens on
 * TCP only), and the default port is Cadenza's. A password is asked on the
 * terminal only when the server asks for one and none was given, so
 * scripts run under trust authentication never block on a prompt.
 */
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "isql.h"

/* Reads a password from the controlling terminal with echo off. Returns
 * NULL when there is no terminal. */
static char *ask_password(const char *user)
{
  FILE *tty = fopen("/dev/tty", "r+");
  struct termios old, quiet;
  char buf[1024];
  bool echo_off;
  char *r;

  if (!tty)
    return NULL;
  fprintf(tty, "Password for user %s: ", user ? user : "");
  fflush(tty);
  echo_off = tcgetattr(fileno(tty), &old) == 0;
  if (echo_off) {
    quiet = old;
    quiet.c_lflag &= ~(tcflag_t)ECHO;
    tcsetattr(fileno(tty), TCSAFLUSH, &quiet);
  }
  r = fgets(buf, sizeof buf, tty);
  if (echo_off)
    tcsetattr(fileno(tty), TCSAFLUSH, &old);
  fputc('\n', tty);
  fclose(tty);
  if (!r)
    return NULL;
  buf[strcspn(buf, "\r\n")] = '\0';
  return iq_xstrdup(buf);
}

static PGconn *try_connect(const iq_opts_t *o, const char *host, const char *port,
                           const char *password)
{
  const char *keys[] = {"host", "port", "user", "password", "dbname",
                        "application_name", NULL};
  const char *vals[] = {host, port, o->o_user, password, o->o_dbname, IQ_PROGRAM, NULL};
  /* expand_dbname: -d may hold a conninfo string ("dbname=x sslmode=require"). */
  return PQconnectdbParams(keys, vals, 1);
}

/* NOTICE, WARNING … from the server: one line on stderr, in order with
 * what was printed before. */
static void on_notice(void *arg, const PGresult *res)
{
  const char *sev = PQresultErrorField(res, PG_DIAG_SEVERITY);
  const char *msg = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
  (void)arg;
  fflush(stdout);
  if (msg)
    fprintf(stderr, "%s: %s\n", sev ? sev : "NOTICE", msg);
  else
    fputs(PQresultErrorMessage(res), stderr);
}

PGconn *iq_connect(const iq_opts_t *o)
{
  const char *host = o->o_host ? o->o_host : getenv("PGHOST") ? getenv("PGHOST") : "localhost";
  const char *port = o->o_port ? o->o_port : getenv("PGPORT") ? getenv("PGPORT") : IQ_DEFAULT_PORT;
  PGconn *conn = try_connect(o, host, port, o->o_password);

  if (PQstatus(conn) == CONNECTION_BAD && PQconnectionNeedsPassword(conn) && !o->o_password &&
      !o->o_no_prompt) {
    char *pw = ask_password(o->o_user ? o->o_user : PQuser(conn));
    if (pw) {
      PQfinish(conn);
      conn = try_connect(o, host, port, pw);
      memset(pw, 0, strlen(pw));
      free(pw);
    }
  }
  if (PQstatus(conn) != CONNECTION_OK) {
    const char *m = PQerrorMessage(conn);
    size_t n = strlen(m);
    while (n > 0 && m[n - 1] == '\n')
      n--;
    fprintf(stderr, IQ_PROGRAM ": cannot connect to %s:%s: %.*s\n", host, port, (int)n, m);
    PQfinish(conn);
    return NULL;
  }
  PQsetNoticeReceiver(conn, on_notice, NULL);
  return conn;
}
