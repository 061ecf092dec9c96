/* iq_args — the command line: Virtuoso's positional form and the usual
 * -h/-p/-U/-P/-d/-f/-c options, in any mix that does not say a thing twice.
 */
#include <ctype.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "isql.h"

void iq_args_usage(FILE *out)
{
  fputs("Usage: " IQ_PROGRAM " [host:]port [user [password [file | EXEC=sql]...]]\n"
        "       " IQ_PROGRAM " [options] [file]\n"
        "Interactive SQL client for Cadenza (any PostgreSQL-protocol server).\n"
        "Options:\n"
        "  -h host      server host (default $PGHOST, else localhost)\n"
        "  -p port      server port (default $PGPORT, else " IQ_DEFAULT_PORT ")\n"
        "  -U user      user name (default $PGUSER, else the login name)\n"
        "  -P password  password (default $PGPASSWORD, else asked on a terminal)\n"
        "  -d database  database name (default: the user name)\n"
        "  -f file      run the statements of file ('-' = stdin); repeatable\n"
        "  -c sql       run the statements of sql; repeatable\n"
        "  -e           echo each statement before running it\n"
        "  -q           quiet: no banner, no \"Done.\" lines\n"
        "  -b           stop at the first failed statement (SET ERRORS EXIT)\n"
        "  -w           never ask for a password\n"
        "  -v           print the version and exit\n"
        "  --help       print this help and exit\n"
        "Statements end with ';'. Client commands: ECHO text; ECHOLN text;\n"
        "SET ECHO|TIMING ON|OFF; SET ERRORS EXIT|CONTINUE; SET MAXROWS n; EXIT;\n"
        "Exit status: 0 all ran, 1 a statement of a script failed, 2 cannot start\n"
        "(bad arguments, unreadable file, connection failed).\n",
        out);
}

static int fail(char *msg, size_t msgsz, const char *text, const char *arg)
{
  snprintf(msg, msgsz, "%s%s%s", text, arg ? ": " : "", arg ? arg : "");
  return -1;
}

static bool all_digits(const char *s)
{
  if (!*s)
    return false;
  for (; *s; s++)
    if (!isdigit((unsigned char)*s))
      return false;
  return true;
}

static bool valid_port(const char *s)
{
  return all_digits(s) && strlen(s) <= 5 && atoi(s) >= 1 && atoi(s) <= 65535;
}

/* "1111" or "host:1111" (a file name would rarely end in ":digits"). */
static bool looks_like_address(const char *a)
{
  const char *colon = strrchr(a, ':');
  return all_digits(a) || (colon && all_digits(colon + 1));
}

static void add_src(iq_opts_t *o, iq_src_kind_t kind, const char *text)
{
  o->o_srcs = iq_xrealloc(o->o_srcs, sizeof(iq_src_spec_t) * (size_t)(o->o_nsrcs + 1));
  o->o_srcs[o->o_nsrcs].ss_kind = kind;
  o->o_srcs[o->o_nsrcs].ss_text = text;
  o->o_nsrcs++;
}

/* "[host:]port": the first positional argument. It is split at the last
 * ':', so an IPv6 address works too (::1:5480); no host means localhost. */
static int parse_address(iq_opts_t *o, char *arg, char *msg, size_t msgsz)
{
  char *colon = strrchr(arg, ':');
  if (o->o_host || o->o_port)
    return fail(msg, msgsz, "the server address is given twice", arg);
  if (all_digits(arg)) {
    if (!valid_port(arg))
      return fail(msg, msgsz, "bad port", arg);
    o->o_host = "localhost";
    o->o_port = arg;
    return 0;
  }
  if (colon) {
    if (!valid_port(colon + 1))
      return fail(msg, msgsz, "bad port", colon + 1);
    *colon = '\0';
    o->o_host = *arg ? arg : "localhost";
    o->o_port = colon + 1;
    return 0;
  }
  o->o_host = arg;
  return 0;
}

int iq_args_parse(int argc, char **argv, iq_opts_t *o, char *msg, size_t msgsz)
{
  static const struct option longopts[] = {
      {"help", no_argument, NULL, 'H'},       {"host", required_argument, NULL, 'h'},
      {"port", required_argument, NULL, 'p'}, {"username", required_argument, NULL, 'U'},
      {"password", required_argument, NULL, 'P'}, {"dbname", required_argument, NULL, 'd'},
      {"file", required_argument, NULL, 'f'}, {"command", required_argument, NULL, 'c'},
      {"echo", no_argument, NULL, 'e'},       {"quiet", no_argument, NULL, 'q'},
      {"version", no_argument, NULL, 'v'},    {"stop-on-error", no_argument, NULL, 'b'},
      {"no-password", no_argument, NULL, 'w'},
      {NULL, 0, NULL, 0}};
  int c, npos;

  memset(o, 0, sizeof *o);
  optind = 0; /* GNU: start over, so the function can be called again */
  opterr = 0;
  while ((c = getopt_long(argc, argv, ":h:p:U:P:d:f:c:eqvbw?", longopts, NULL)) != -1) {
    switch (c) {
    case 'h':
      if (o->o_host)
        return fail(msg, msgsz, "the host is given twice", optarg);
      o->o_host = optarg;
      break;
    case 'p':
      if (o->o_port)
        return fail(msg, msgsz, "the port is given twice", optarg);
      if (!valid_port(optarg))
        return fail(msg, msgsz, "bad port", optarg);
      o->o_port = optarg;
      break;
    case 'U':
      o->o_user = optarg;
      break;
    case 'P':
      o->o_password = optarg;
      break;
    case 'd':
      o->o_dbname = optarg;
      break;
    case 'f':
      add_src(o, IQ_SRC_FILE, optarg);
      break;
    case 'c':
      add_src(o, IQ_SRC_STRING, optarg);
      break;
    case 'e':
      o->o_echo = true;
      break;
    case 'q':
      o->o_quiet = true;
      break;
    case 'b':
      o->o_stop_on_error = true;
      break;
    case 'w':
      o->o_no_prompt = true;
      break;
    case 'v':
      o->o_show_version = true;
      break;
    case 'H':
      o->o_show_help = true;
      break;
    case ':':
      return fail(msg, msgsz, "option needs a value", argv[optind - 1]);
    case '?':
    default:
      if (optopt == '?') {
        o->o_show_help = true;
        break;
      }
      return fail(msg, msgsz, "unknown option", argv[optind - 1]);
    }
  }
  /* Virtuoso's form, [host:]port user password file…, when the first
   * positional argument is an address; else they are all files. (GNU getopt
   * has moved the positional arguments to the end.) */
  npos = optind;
  if (npos < argc && looks_like_address(argv[npos])) {
    if (parse_address(o, argv[npos++], msg, msgsz) < 0)
      return -1;
    if (npos < argc) {
      if (o->o_user)
        return fail(msg, msgsz, "the user is given twice", argv[npos]);
      o->o_user = argv[npos++];
    }
    if (npos < argc) {
      if (o->o_password)
        return fail(msg, msgsz, "the password is given twice", argv[npos]);
      o->o_password = argv[npos++];
    }
  }
  for (; npos < argc; npos++) {
    if (!strncasecmp(argv[npos], "EXEC=", 5))
      add_src(o, IQ_SRC_STRING, argv[npos] + 5);
    else
      add_src(o, IQ_SRC_FILE, argv[npos]);
  }
  return 0;
}

void iq_opts_free(iq_opts_t *o)
{
  free(o->o_srcs);
  o->o_srcs = NULL;
  o->o_nsrcs = 0;
}
