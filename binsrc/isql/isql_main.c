/* isql_main — isql-cz: runs SQL scripts and interactive sessions against
 * Cadenza (or any server speaking the PostgreSQL protocol) through libpq.
 *
 * Design notes: the sources (-f files, -c strings, positional files, else
 * stdin) run in command-line order over one connection, each through its own
 * statement splitter so that line numbers in messages are the source's own.
 * The exit status says whether everything ran: see IQ_EXIT_* in isql.h.
 */
#include <locale.h>
#include <stdlib.h>
#include <string.h>

#include "isql.h"

/* Runs every statement of one source. Returns false when the program must
 * stop (EXIT, lost connection, or an error under SET ERRORS EXIT). */
static bool run_input(iq_session_t *ss, iq_input_t *in)
{
  iq_split_t sp;
  iq_stmt_t st;
  bool tty = iq_input_interactive(in);
  bool go_on = true;

  iq_split_init(&sp, 1);
  while (go_on) {
    char *line = iq_input_line(in, iq_split_pending(&sp) ? "   > " : "SQL> ");
    if (!line) {
      if (tty)
        fputc('\n', ss->ss_out);
      iq_split_finish(&sp);
    } else if (tty && !iq_split_pending(&sp) && !strcmp(line, "\\q")) {
      free(line);
      break; /* psql's habit, for those who type it */
    } else {
      iq_split_feed(&sp, line, strlen(line));
      iq_split_feed(&sp, "\n", 1);
    }
    while (go_on && iq_split_next(&sp, &st)) {
      long before = iq_input_lines_read(in);
      bool ok = iq_run_statement(ss, in, &st);
      /* Lines a COPY read as data count as blank lines for the splitter:
       * the statements after them keep their true line numbers. */
      for (long k = iq_input_lines_read(in) - before; k > 0; k--)
        iq_split_feed(&sp, "\n", 1);
      free(st.st_text);
      if (ss->ss_exit || (!ok && ss->ss_stop_on_error))
        go_on = false;
    }
    if (!line)
      break;
    free(line);
  }
  iq_split_free(&sp);
  return go_on;
}

static void print_banner(PGconn *conn)
{
  const char *ver = PQparameterStatus(conn, "server_version");
  printf("Connected to %s:%s as %s, database %s, server version %s.\n"
         "Statements end with ';'. Type EXIT; to leave.\n\n",
         PQhost(conn), PQport(conn), PQuser(conn), PQdb(conn), ver ? ver : "unknown");
}

int main(int argc, char **argv)
{
  iq_opts_t o;
  iq_session_t ss;
  iq_input_t **ins;
  int nins, status;
  char msg[512];
  bool interactive;

  setlocale(LC_CTYPE, ""); /* column widths of non-ASCII text */
  if (iq_args_parse(argc, argv, &o, msg, sizeof msg) < 0) {
    fprintf(stderr, IQ_PROGRAM ": %s\nTry " IQ_PROGRAM " --help.\n", msg);
    iq_opts_free(&o);
    return IQ_EXIT_CANNOT_START;
  }
  if (o.o_show_help || o.o_show_version) {
    if (o.o_show_help)
      iq_args_usage(stdout);
    else
      printf(IQ_PROGRAM " " IQ_VERSION " (Cadenza), libpq %d.%d\n", PQlibVersion() / 10000,
             PQlibVersion() % 10000);
    iq_opts_free(&o);
    return IQ_EXIT_OK;
  }

  /* Open every source first: a missing file is found before connecting. */
  nins = o.o_nsrcs ? o.o_nsrcs : 1;
  ins = iq_xmalloc(sizeof *ins * (size_t)nins);
  for (int i = 0; i < nins; i++) {
    if (!o.o_nsrcs) {
      ins[i] = iq_input_open_stdin();
    } else if (o.o_srcs[i].ss_kind == IQ_SRC_STRING) {
      ins[i] = iq_input_open_string(o.o_srcs[i].ss_text, i + 1);
    } else if (!(ins[i] = iq_input_open_file(o.o_srcs[i].ss_text, msg, sizeof msg))) {
      fprintf(stderr, IQ_PROGRAM ": %s\n", msg);
      for (int k = 0; k < i; k++)
        iq_input_close(ins[k]);
      free(ins);
      iq_opts_free(&o);
      return IQ_EXIT_CANNOT_START;
    }
  }
  interactive = nins == 1 && iq_input_interactive(ins[0]);

  memset(&ss, 0, sizeof ss);
  ss.ss_conn = iq_connect(&o);
  if (ss.ss_conn) {
    ss.ss_out = stdout;
    ss.ss_echo = o.o_echo;
    ss.ss_timing = true;
    ss.ss_quiet = o.o_quiet;
    ss.ss_stop_on_error = o.o_stop_on_error;
    ss.ss_exit_code = -1;
    if (interactive && !o.o_quiet)
      print_banner(ss.ss_conn);
    for (int i = 0; i < nins; i++)
      if (!run_input(&ss, ins[i]))
        break;
    PQfinish(ss.ss_conn);
  }

  if (!ss.ss_conn)
    status = IQ_EXIT_CANNOT_START;
  else if (ss.ss_exit && ss.ss_exit_code >= 0)
    status = ss.ss_exit_code;
  else if (ss.ss_failures > 0 && !interactive)
    status = IQ_EXIT_STMT_FAILED;
  else
    status = IQ_EXIT_OK;
  for (int i = 0; i < nins; i++)
    iq_input_close(ins[i]);
  free(ins);
  iq_opts_free(&o);
  fflush(stdout);
  return status;
}
