/* test_isql_cmd — isql-cz's client commands (ECHO, SET …, EXIT) and its
 * command line (Virtuoso's positional form and the -h/-p/-U form). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cz_test.h"
#include "isql/isql.h"

static iq_cmd_kind_t kind_of(const char *stmt, iq_cmd_t *cmd)
{
  iq_cmd_parse(stmt, cmd);
  return cmd->cm_kind;
}

static void test_cmd_echo_and_echoln(void **state)
{
  iq_cmd_t c;
  (void)state;
  assert_int_equal(kind_of("ECHO hello world", &c), IQ_CMD_ECHO);
  assert_string_equal(c.cm_text, "hello world");
  iq_cmd_free(&c);
  assert_int_equal(kind_of("echoln 'it''s' \"done\"", &c), IQ_CMD_ECHOLN);
  assert_string_equal(c.cm_text, "it'sdone");
  iq_cmd_free(&c);
  assert_int_equal(kind_of("EchoLn", &c), IQ_CMD_ECHOLN);
  assert_string_equal(c.cm_text, "");
  iq_cmd_free(&c);
  /* Mixed text is printed as written. */
  assert_int_equal(kind_of("ECHO 'a' b", &c), IQ_CMD_ECHO);
  assert_string_equal(c.cm_text, "'a' b");
  iq_cmd_free(&c);
  /* Words that only start like ECHO are SQL. */
  assert_int_equal(kind_of("echoes", &c), IQ_CMD_NONE);
  assert_int_equal(kind_of("echo(1)", &c), IQ_CMD_NONE);
}

static void test_cmd_set_client_settings(void **state)
{
  iq_cmd_t c;
  (void)state;
  assert_int_equal(kind_of("SET ECHO ON", &c), IQ_CMD_SET_ECHO);
  assert_true(c.cm_flag);
  assert_int_equal(kind_of("set timing off", &c), IQ_CMD_SET_TIMING);
  assert_false(c.cm_flag);
  assert_int_equal(kind_of("SET TIMING = on", &c), IQ_CMD_SET_TIMING);
  assert_true(c.cm_flag);
  assert_int_equal(kind_of("SET ERRORS=EXIT", &c), IQ_CMD_SET_ERRORS_EXIT);
  assert_true(c.cm_flag);
  assert_int_equal(kind_of("SET ERRORS CONTINUE", &c), IQ_CMD_SET_ERRORS_EXIT);
  assert_false(c.cm_flag);
  assert_int_equal(kind_of("SET ON_ERROR_STOP TO 1", &c), IQ_CMD_SET_ERRORS_EXIT);
  assert_true(c.cm_flag);
  assert_int_equal(kind_of("SET MAXROWS 25", &c), IQ_CMD_SET_MAXROWS);
  assert_int_equal(c.cm_number, 25);
  assert_int_equal(kind_of("set maxrows 0", &c), IQ_CMD_SET_MAXROWS);
  assert_int_equal(c.cm_number, 0);
}

static void test_cmd_other_set_goes_to_the_server(void **state)
{
  iq_cmd_t c;
  (void)state;
  assert_int_equal(kind_of("SET search_path TO public", &c), IQ_CMD_NONE);
  assert_int_equal(kind_of("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", &c), IQ_CMD_NONE);
  assert_int_equal(kind_of("SET timezone = 'UTC'", &c), IQ_CMD_NONE);
  assert_int_equal(kind_of("select 1", &c), IQ_CMD_NONE);
  assert_int_equal(kind_of("'quoted'", &c), IQ_CMD_NONE);
}

static void test_cmd_bad_values_are_reported(void **state)
{
  iq_cmd_t c;
  (void)state;
  assert_int_equal(kind_of("SET TIMING maybe", &c), IQ_CMD_BAD);
  assert_non_null(strstr(c.cm_text, "ON or OFF"));
  iq_cmd_free(&c);
  assert_int_equal(kind_of("SET MAXROWS -3", &c), IQ_CMD_BAD);
  iq_cmd_free(&c);
  assert_int_equal(kind_of("SET ERRORS sometimes", &c), IQ_CMD_BAD);
  iq_cmd_free(&c);
  assert_int_equal(kind_of("SET ECHO", &c), IQ_CMD_BAD);
  iq_cmd_free(&c);
  assert_int_equal(kind_of("SET ECHO ON now", &c), IQ_CMD_BAD);
  iq_cmd_free(&c);
  assert_int_equal(kind_of("EXIT 300", &c), IQ_CMD_BAD);
  iq_cmd_free(&c);
}

static void test_cmd_exit_and_quit(void **state)
{
  iq_cmd_t c;
  (void)state;
  assert_int_equal(kind_of("EXIT", &c), IQ_CMD_EXIT);
  assert_int_equal(c.cm_number, -1);
  assert_int_equal(kind_of("quit", &c), IQ_CMD_EXIT);
  assert_int_equal(kind_of("exit 3", &c), IQ_CMD_EXIT);
  assert_int_equal(c.cm_number, 3);
}

/* Runs iq_args_parse on a NULL-terminated list of arguments. */
static int parse(iq_opts_t *o, char *msg, const char *a0, ...)
{
  char *argv[32];
  int argc = 0;
  va_list ap;
  argv[argc++] = (char *)"isql-cz";
  va_start(ap, a0);
  for (const char *a = a0; a; a = va_arg(ap, const char *))
    argv[argc++] = (char *)a;
  va_end(ap);
  argv[argc] = NULL;
  return iq_args_parse(argc, argv, o, msg, 256);
}

static void test_args_virtuoso_positional_form(void **state)
{
  iq_opts_t o;
  char msg[256];
  char addr[] = "db.example:1111";
  (void)state;
  assert_int_equal(parse(&o, msg, "1111", "dba", "secret", "load.sql", NULL), 0);
  assert_string_equal(o.o_host, "localhost");
  assert_string_equal(o.o_port, "1111");
  assert_string_equal(o.o_user, "dba");
  assert_string_equal(o.o_password, "secret");
  assert_int_equal(o.o_nsrcs, 1);
  assert_int_equal(o.o_srcs[0].ss_kind, IQ_SRC_FILE);
  assert_string_equal(o.o_srcs[0].ss_text, "load.sql");
  iq_opts_free(&o);

  assert_int_equal(parse(&o, msg, addr, "dba", "pw", "EXEC=select 1", "-e", NULL), 0);
  assert_string_equal(o.o_host, "db.example");
  assert_string_equal(o.o_port, "1111");
  assert_true(o.o_echo);
  assert_int_equal(o.o_nsrcs, 1);
  assert_int_equal(o.o_srcs[0].ss_kind, IQ_SRC_STRING);
  assert_string_equal(o.o_srcs[0].ss_text, "select 1");
  iq_opts_free(&o);

  /* A port alone: stdin, the user from the environment. */
  assert_int_equal(parse(&o, msg, "5480", NULL), 0);
  assert_string_equal(o.o_port, "5480");
  assert_null(o.o_user);
  assert_int_equal(o.o_nsrcs, 0);
  iq_opts_free(&o);
}

static void test_args_option_form(void **state)
{
  iq_opts_t o;
  char msg[256];
  (void)state;
  assert_int_equal(parse(&o, msg, "-h", "srv", "-p", "5433", "-U", "u", "-P", "p", "-d", "db",
                         "-c", "select 1;", "-f", "a.sql", "-c", "select 2;", "-q", "-b", "b.sql",
                         NULL),
                   0);
  assert_string_equal(o.o_host, "srv");
  assert_string_equal(o.o_port, "5433");
  assert_string_equal(o.o_user, "u");
  assert_string_equal(o.o_password, "p");
  assert_string_equal(o.o_dbname, "db");
  assert_true(o.o_quiet);
  assert_true(o.o_stop_on_error);
  assert_false(o.o_echo);
  assert_int_equal(o.o_nsrcs, 4); /* -c, -f, -c in order, then the file */
  assert_int_equal(o.o_srcs[0].ss_kind, IQ_SRC_STRING);
  assert_string_equal(o.o_srcs[1].ss_text, "a.sql");
  assert_string_equal(o.o_srcs[2].ss_text, "select 2;");
  assert_int_equal(o.o_srcs[3].ss_kind, IQ_SRC_FILE);
  assert_string_equal(o.o_srcs[3].ss_text, "b.sql");
  iq_opts_free(&o);

  assert_int_equal(parse(&o, msg, "--help", NULL), 0);
  assert_true(o.o_show_help);
  iq_opts_free(&o);
  assert_int_equal(parse(&o, msg, "-v", NULL), 0);
  assert_true(o.o_show_version);
  iq_opts_free(&o);
}

static void test_args_errors(void **state)
{
  iq_opts_t o;
  char msg[256];
  (void)state;
  assert_int_equal(parse(&o, msg, "-p", "99999", NULL), -1);
  assert_non_null(strstr(msg, "bad port"));
  iq_opts_free(&o);
  assert_int_equal(parse(&o, msg, "-x", NULL), -1);
  assert_non_null(strstr(msg, "unknown option"));
  iq_opts_free(&o);
  assert_int_equal(parse(&o, msg, "-f", NULL), -1);
  assert_non_null(strstr(msg, "needs a value"));
  iq_opts_free(&o);
  assert_int_equal(parse(&o, msg, "-p", "5480", "1111", "dba", NULL), -1);
  assert_non_null(strstr(msg, "given twice"));
  iq_opts_free(&o);
  assert_int_equal(parse(&o, msg, "-U", "a", "1111", "b", NULL), -1);
  assert_non_null(strstr(msg, "user is given twice"));
  iq_opts_free(&o);
}

int main(void)
{
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_cmd_echo_and_echoln),
      cmocka_unit_test(test_cmd_set_client_settings),
      cmocka_unit_test(test_cmd_other_set_goes_to_the_server),
      cmocka_unit_test(test_cmd_bad_values_are_reported),
      cmocka_unit_test(test_cmd_exit_and_quit),
      cmocka_unit_test(test_args_virtuoso_positional_form),
      cmocka_unit_test(test_args_option_form),
      cmocka_unit_test(test_args_errors),
  };
  return cmocka_run_group_tests_name("isql_cmd", tests, NULL, NULL);
}
