/* iq_cmd — recognises the client's own script commands in a statement.
 *
 * Design notes: a command is a whole statement (the splitter already cut it
 * at its ';'), matched case-insensitively word by word. Only the forms listed
 * in the README are taken; any other statement, including every other SET,
 * goes to the server as SQL. A statement that starts like one of our SET
 * commands but has a bad value is reported here (IQ_CMD_BAD) rather than
 * sent, since the server would only say "unrecognized parameter".
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "isql.h"

/* A cursor over the statement text. */
typedef struct cmd_lex_s {
  const char *cl_p;
} cmd_lex_t;

static void skip_blanks(cmd_lex_t *l)
{
  while (isspace((unsigned char)*l->cl_p))
    l->cl_p++;
}

/* Reads a word of letters, digits and '_' into w (truncated to wsz-1). */
static bool read_word(cmd_lex_t *l, char *w, size_t wsz)
{
  size_t n = 0;
  skip_blanks(l);
  if (!isalnum((unsigned char)*l->cl_p) && *l->cl_p != '_' && *l->cl_p != '-')
    return false;
  if (*l->cl_p == '-')
    w[n++] = *l->cl_p++;
  while (isalnum((unsigned char)*l->cl_p) || *l->cl_p == '_') {
    if (n + 1 < wsz)
      w[n++] = *l->cl_p;
    l->cl_p++;
  }
  w[n] = '\0';
  return n > 0;
}

static bool at_end(cmd_lex_t *l)
{
  skip_blanks(l);
  return *l->cl_p == '\0';
}

static void set_bad(iq_cmd_t *cmd, const char *msg)
{
  cmd->cm_kind = IQ_CMD_BAD;
  cmd->cm_text = iq_xstrdup(msg);
}

/* ECHO's argument: when it is only quoted strings separated by blanks they
 * are printed unquoted and joined ('it''s' gives it's); anything else is
 * printed as written. */
static char *echo_text(const char *p)
{
  iq_buf_t b = {0};
  const char *q = p;

  while (isspace((unsigned char)*p))
    p++;
  q = p;
  if (*q == '\0')
    return iq_xstrdup("");
  while (*q == '\'' || *q == '"') {
    char quote = *q++;
    for (;;) {
      if (*q == '\0')
        goto literal;
      if (*q == quote) {
        if (q[1] == quote) {
          iq_buf_putc(&b, quote);
          q += 2;
          continue;
        }
        q++;
        break;
      }
      iq_buf_putc(&b, *q++);
    }
    while (isspace((unsigned char)*q))
      q++;
    if (*q == '\0')
      return b.b_data ? b.b_data : iq_xstrdup("");
  }
literal:
  iq_buf_free(&b);
  return iq_xstrdup(p);
}

static int on_off(const char *w)
{
  if (!strcasecmp(w, "on") || !strcasecmp(w, "true") || !strcmp(w, "1"))
    return 1;
  if (!strcasecmp(w, "off") || !strcasecmp(w, "false") || !strcmp(w, "0"))
    return 0;
  return -1;
}

static bool parse_long(const char *w, long *out)
{
  char *end;
  long v;
  errno = 0;
  v = strtol(w, &end, 10);
  if (errno || *end || end == w)
    return false;
  *out = v;
  return true;
}

/* SET <name> [=|TO] <value> for the client's own settings. */
static void parse_set(cmd_lex_t *l, iq_cmd_t *cmd)
{
  char name[32], val[32] = "";
  int flag;

  if (!read_word(l, name, sizeof name))
    return;
  if (strcasecmp(name, "echo") && strcasecmp(name, "timing") &&
      strcasecmp(name, "errors") && strcasecmp(name, "maxrows") &&
      strcasecmp(name, "on_error_stop"))
    return; /* a server setting */
  skip_blanks(l);
  if (*l->cl_p == '=')
    l->cl_p++;
  if (read_word(l, val, sizeof val) && !strcasecmp(val, "to") && !at_end(l))
    read_word(l, val, sizeof val); /* SET x TO y, as SQL spells it */
  if (!val[0] || !at_end(l)) {
    char msg[128];
    snprintf(msg, sizeof msg, "SET %s: missing or malformed value", name);
    set_bad(cmd, msg);
    return;
  }
  if (!strcasecmp(name, "maxrows")) {
    if (!parse_long(val, &cmd->cm_number) || cmd->cm_number < 0) {
      set_bad(cmd, "SET MAXROWS takes a number of rows (0 = no limit)");
      return;
    }
    cmd->cm_kind = IQ_CMD_SET_MAXROWS;
    return;
  }
  if (!strcasecmp(name, "errors")) {
    if (!strcasecmp(val, "exit"))
      cmd->cm_flag = true;
    else if (!strcasecmp(val, "continue"))
      cmd->cm_flag = false;
    else {
      set_bad(cmd, "SET ERRORS takes EXIT or CONTINUE");
      return;
    }
    cmd->cm_kind = IQ_CMD_SET_ERRORS_EXIT;
    return;
  }
  if ((flag = on_off(val)) < 0) {
    char msg[128];
    snprintf(msg, sizeof msg, "SET %s takes ON or OFF", name);
    set_bad(cmd, msg);
    return;
  }
  cmd->cm_flag = flag == 1;
  if (!strcasecmp(name, "echo"))
    cmd->cm_kind = IQ_CMD_SET_ECHO;
  else if (!strcasecmp(name, "timing"))
    cmd->cm_kind = IQ_CMD_SET_TIMING;
  else
    cmd->cm_kind = IQ_CMD_SET_ERRORS_EXIT;
}

void iq_cmd_parse(const char *stmt, iq_cmd_t *cmd)
{
  cmd_lex_t l = {stmt};
  char word[16];

  memset(cmd, 0, sizeof *cmd);
  cmd->cm_kind = IQ_CMD_NONE;
  if (!read_word(&l, word, sizeof word))
    return;
  if (!strcasecmp(word, "echo") || !strcasecmp(word, "echoln")) {
    if (*l.cl_p && !isspace((unsigned char)*l.cl_p) && *l.cl_p != '\'' && *l.cl_p != '"')
      return;
    cmd->cm_kind = strlen(word) == 4 ? IQ_CMD_ECHO : IQ_CMD_ECHOLN;
    cmd->cm_text = echo_text(l.cl_p);
    return;
  }
  if (!strcasecmp(word, "exit") || !strcasecmp(word, "quit")) {
    char num[24];
    if (at_end(&l)) {
      cmd->cm_kind = IQ_CMD_EXIT;
      cmd->cm_number = -1; /* keep the status earned so far */
      return;
    }
    if (read_word(&l, num, sizeof num) && at_end(&l) && parse_long(num, &cmd->cm_number) &&
        cmd->cm_number >= 0 && cmd->cm_number <= 255) {
      cmd->cm_kind = IQ_CMD_EXIT;
      return;
    }
    set_bad(cmd, "EXIT takes an optional status from 0 to 255");
    return;
  }
  if (!strcasecmp(word, "set"))
    parse_set(&l, cmd);
}

void iq_cmd_free(iq_cmd_t *cmd)
{
  free(cmd->cm_text);
  cmd->cm_text = NULL;
}
