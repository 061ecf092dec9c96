/* iq_run — runs one statement: a client command, or SQL through PQexec.
 *
 * Design notes: each statement goes to the server alone, so every error is
 * tied to one statement and one line of the script. What the user sees per
 * statement: the echo (SET ECHO ON), then a table and "N Rows.", or "Done."
 * for other commands, or an error, each with " -- T msec." while timing is
 * on, and a blank line. Timing covers the round trip up to the complete
 * result, not the printing. Errors and notices go to stderr, after stdout is
 * flushed so that both streams sent to one file keep their order.
 * Ctrl-C while a statement runs asks the server to cancel it (PQcancel is
 * safe in a signal handler); at other times it ends the program as usual.
 */
#include <ctype.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "isql.h"

/* SQLSTATEs of errors the client finds itself. */
#define IQ_SQLSTATE_SYNTAX "42601"
#define IQ_SQLSTATE_BAD_VALUE "22023"
#define IQ_SQLSTATE_CONNECTION "08006"

static PGcancel *volatile g_cancel; /* the statement Ctrl-C cancels, if any */

static void on_sigint(int sig)
{
  char errbuf[256];
  (void)sig;
  if (g_cancel)
    PQcancel(g_cancel, errbuf, sizeof errbuf);
}

static uint64_t now_ns(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* " -- 12 msec." when timing is on. */
static void print_status(iq_session_t *ss, const char *what, uint64_t ns)
{
  if (ss->ss_timing)
    fprintf(ss->ss_out, "%s -- %llu msec.\n\n", what, (unsigned long long)(ns / 1000000u));
  else
    fprintf(ss->ss_out, "%s\n\n", what);
}

static void client_error(iq_session_t *ss, iq_input_t *in, const char *sqlstate,
                         const char *msg, const iq_stmt_t *st)
{
  fflush(ss->ss_out);
  iq_print_error(stderr, sqlstate, msg, NULL, NULL, 0, st->st_text, st->st_line,
                 iq_input_interactive(in) ? NULL : iq_input_name(in));
  fputc('\n', stderr);
  ss->ss_failures++;
}

static void server_error(iq_session_t *ss, iq_input_t *in, const PGresult *res,
                         const iq_stmt_t *st)
{
  const char *primary = PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY);
  const char *pos = PQresultErrorField(res, PG_DIAG_STATEMENT_POSITION);
  const char *msg = primary ? primary : PQresultErrorMessage(res);

  if (!msg || !*msg)
    msg = PQerrorMessage(ss->ss_conn);
  fflush(ss->ss_out);
  iq_print_error(stderr, PQresultErrorField(res, PG_DIAG_SQLSTATE), msg,
                 PQresultErrorField(res, PG_DIAG_MESSAGE_DETAIL),
                 PQresultErrorField(res, PG_DIAG_MESSAGE_HINT), pos ? atol(pos) : 0,
                 st->st_text, st->st_line, iq_input_interactive(in) ? NULL : iq_input_name(in));
  fputc('\n', stderr);
  ss->ss_failures++;
}

/* COPY … FROM STDIN: the data are the lines that follow the statement in
 * its input, up to a line "\." or the end of the input. */
static void copy_in(iq_session_t *ss, iq_input_t *in)
{
  char *line;
  bool tty = iq_input_interactive(in);

  if (tty)
    fputs("Enter data to be copied, ending with a line holding only \\.\n", ss->ss_out);
  while ((line = iq_input_line(in, tty ? ">> " : NULL)) != NULL) {
    if (!strcmp(line, "\\.")) {
      free(line);
      break;
    }
    if (PQputCopyData(ss->ss_conn, line, (int)strlen(line)) != 1 ||
        PQputCopyData(ss->ss_conn, "\n", 1) != 1) {
      free(line);
      break; /* the error comes back in the final result */
    }
    free(line);
  }
  PQputCopyEnd(ss->ss_conn, NULL);
}

/* Whether the statement is COPY … FROM STDIN: when the server rejects it
 * before asking for data, the data lines that follow are skipped rather
 * than run as SQL. Words are compared case-insensitively; a "from stdin"
 * inside a quoted name would fool it, which costs only a wrong skip of
 * lines up to a "\." that such a script would not contain. */
static bool is_copy_from_stdin(const char *text)
{
  char prev[8] = "", word[8];
  const char *p = text;
  bool first = true;

  while (*p) {
    size_t n = 0;
    while (*p && !isalpha((unsigned char)*p))
      p++;
    while (isalpha((unsigned char)*p)) {
      if (n + 1 < sizeof word)
        word[n++] = (char)tolower((unsigned char)*p);
      p++;
    }
    word[n] = '\0';
    if (!n)
      break;
    if (first && strcmp(word, "copy"))
      return false;
    first = false;
    if (!strcmp(prev, "from") && !strcmp(word, "stdin"))
      return true;
    memcpy(prev, word, sizeof word);
  }
  return false;
}

/* Reads and drops COPY data lines up to "\." (see is_copy_from_stdin). */
static void skip_copy_data(iq_input_t *in)
{
  char *line;
  while ((line = iq_input_line(in, NULL)) != NULL) {
    bool end = !strcmp(line, "\\.");
    free(line);
    if (end)
      break;
  }
}

/* COPY … TO STDOUT: the rows go to the output as the server formats them. */
static void copy_out(iq_session_t *ss)
{
  char *buf;
  int n;
  while ((n = PQgetCopyData(ss->ss_conn, &buf, 0)) > 0) {
    fwrite(buf, 1, (size_t)n, ss->ss_out);
    PQfreemem(buf);
  }
}

/* Prints one result; returns false for an error. */
static bool show_result(iq_session_t *ss, iq_input_t *in, const PGresult *res,
                        const iq_stmt_t *st, uint64_t ns)
{
  char what[96];

  switch (PQresultStatus(res)) {
  case PGRES_TUPLES_OK:
  case PGRES_SINGLE_TUPLE: {
    iq_print_opts_t po = {ss->ss_maxrows};
    long total = PQntuples(res);
    long shown = iq_print_table(ss->ss_out, res, &po);
    if (shown < total)
      fprintf(ss->ss_out, "... %ld more rows not shown (SET MAXROWS %ld)\n", total - shown,
              ss->ss_maxrows);
    fputc('\n', ss->ss_out);
    snprintf(what, sizeof what, "%ld Rows.", total);
    print_status(ss, what, ns);
    return true;
  }
  case PGRES_COMMAND_OK:
    if (!ss->ss_quiet)
      print_status(ss, "Done.", ns);
    return true;
  case PGRES_EMPTY_QUERY:
    return true;
  case PGRES_COPY_BOTH: /* replication only: nothing to do with it here */
  case PGRES_BAD_RESPONSE:
  case PGRES_NONFATAL_ERROR:
  case PGRES_FATAL_ERROR:
  default:
    server_error(ss, in, res, st);
    return false;
  }
}

static bool run_sql(iq_session_t *ss, iq_input_t *in, const iq_stmt_t *st)
{
  struct sigaction sa, old;
  uint64_t t0 = now_ns();
  PGresult *res;
  bool ok = true, ok_sent, copied_in = false;

  g_cancel = PQgetCancel(ss->ss_conn);
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);

  res = PQexec(ss->ss_conn, st->st_text);
  ok_sent = res != NULL; /* NULL: libpq could not even send it */
  /* PQexec returns the last result; COPY hands over in the middle, and its
   * final result then comes from PQgetResult. */
  while (res) {
    ExecStatusType status = PQresultStatus(res);
    if (status == PGRES_COPY_IN) {
      copy_in(ss, in);
      copied_in = true;
    } else if (status == PGRES_COPY_OUT) {
      copy_out(ss);
    } else if (!show_result(ss, in, res, st, now_ns() - t0)) {
      ok = false;
    }
    PQclear(res);
    res = PQgetResult(ss->ss_conn);
  }
  if (!ok && !copied_in && !iq_input_interactive(in) && is_copy_from_stdin(st->st_text))
    skip_copy_data(in);
  if (!ok_sent && PQstatus(ss->ss_conn) != CONNECTION_BAD) {
    client_error(ss, in, NULL, PQerrorMessage(ss->ss_conn), st);
    ok = false;
  }
  if (PQstatus(ss->ss_conn) == CONNECTION_BAD) {
    /* libpq has usually said so in the failed result already. */
    if (ok)
      client_error(ss, in, IQ_SQLSTATE_CONNECTION, "the connection to the server was lost", st);
    ss->ss_exit = true;
    ss->ss_exit_code = IQ_EXIT_CANNOT_START;
    ok = false;
  }

  sigaction(SIGINT, &old, NULL);
  {
    PGcancel *c = g_cancel;
    g_cancel = NULL;
    PQfreeCancel(c);
  }
  return ok;
}

bool iq_run_statement(iq_session_t *ss, iq_input_t *in, const iq_stmt_t *st)
{
  iq_cmd_t cmd;
  bool ok = true;

  if (ss->ss_echo)
    fprintf(ss->ss_out, "%s;\n", st->st_text);
  if (st->st_open != IQ_LEX_TOP) {
    char msg[128];
    snprintf(msg, sizeof msg, "unterminated %s at end of input", iq_lex_name(st->st_open));
    client_error(ss, in, IQ_SQLSTATE_SYNTAX, msg, st);
    return false;
  }
  iq_cmd_parse(st->st_text, &cmd);
  switch (cmd.cm_kind) {
  case IQ_CMD_NONE:
    ok = run_sql(ss, in, st);
    break;
  case IQ_CMD_ECHO:
    fputs(cmd.cm_text, ss->ss_out);
    break;
  case IQ_CMD_ECHOLN:
    fprintf(ss->ss_out, "%s\n", cmd.cm_text);
    break;
  case IQ_CMD_SET_ECHO:
    ss->ss_echo = cmd.cm_flag;
    break;
  case IQ_CMD_SET_TIMING:
    ss->ss_timing = cmd.cm_flag;
    break;
  case IQ_CMD_SET_ERRORS_EXIT:
    ss->ss_stop_on_error = cmd.cm_flag;
    break;
  case IQ_CMD_SET_MAXROWS:
    ss->ss_maxrows = cmd.cm_number;
    break;
  case IQ_CMD_EXIT:
    ss->ss_exit = true;
    ss->ss_exit_code = (int)cmd.cm_number;
    break;
  case IQ_CMD_BAD:
    client_error(ss, in, IQ_SQLSTATE_BAD_VALUE, cmd.cm_text, st);
    ok = false;
    break;
  }
  iq_cmd_free(&cmd);
  fflush(ss->ss_out);
  return ok;
}
