/* iq_input — where script lines come from: files, -c strings, stdin, a tty.
 *
 * Design notes: on a terminal the line editor is GNU readline (or libedit's
 * compatible readline) when the shared library is installed, loaded with
 * dlopen: the client then has line editing and history without a build-time
 * dependency, and works with plain stdio where neither library is present.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "isql.h"

typedef enum in_kind_e { IN_FILE, IN_STRING, IN_TTY } in_kind_t;

struct iq_input_s {
  in_kind_t in_kind;
  FILE *in_fp;         /* IN_FILE, IN_TTY without readline */
  bool in_close;       /* in_fp is ours to close (not stdin) */
  const char *in_text; /* IN_STRING: the rest of the text */
  char in_name[300];   /* for messages */
  long in_lines;       /* lines handed out so far */
};

/* readline and add_history, found at run time (NULL when absent). */
typedef char *(*rl_readline_fn)(const char *prompt);
typedef void (*rl_add_history_fn)(const char *line);
static rl_readline_fn rl_readline;
static rl_add_history_fn rl_add_history;

static void rl_load(void)
{
  static bool tried;
  static const char *libs[] = {"libreadline.so.8", "libreadline.so", "libedit.so.2"};
  if (tried)
    return;
  tried = true;
  if (getenv("ISQL_CZ_NO_READLINE"))
    return;
  for (size_t i = 0; i < sizeof libs / sizeof libs[0]; i++) {
    void *h = dlopen(libs[i], RTLD_NOW | RTLD_LOCAL);
    if (!h)
      continue;
    /* dlsym returns a data pointer; POSIX guarantees it converts. */
    void *f = dlsym(h, "readline"), *g = dlsym(h, "add_history");
    memcpy(&rl_readline, &f, sizeof f);
    memcpy(&rl_add_history, &g, sizeof g);
    if (rl_readline && rl_add_history)
      return;
    rl_readline = NULL;
    rl_add_history = NULL;
    dlclose(h);
  }
}

iq_input_t *iq_input_open_file(const char *path, char *msg, size_t msgsz)
{
  iq_input_t *in;
  FILE *fp;

  if (!strcmp(path, "-"))
    return iq_input_open_stdin();
  fp = fopen(path, "r");
  if (!fp) {
    snprintf(msg, msgsz, "cannot open %s: %s", path, strerror(errno));
    return NULL;
  }
  in = iq_xmalloc(sizeof *in);
  memset(in, 0, sizeof *in);
  in->in_kind = IN_FILE;
  in->in_fp = fp;
  in->in_close = true;
  snprintf(in->in_name, sizeof in->in_name, "file %s", path);
  return in;
}

iq_input_t *iq_input_open_string(const char *text, int index)
{
  iq_input_t *in = iq_xmalloc(sizeof *in);
  memset(in, 0, sizeof *in);
  in->in_kind = IN_STRING;
  in->in_text = text;
  snprintf(in->in_name, sizeof in->in_name, "-c string %d", index);
  return in;
}

iq_input_t *iq_input_open_stdin(void)
{
  iq_input_t *in = iq_xmalloc(sizeof *in);
  memset(in, 0, sizeof *in);
  in->in_fp = stdin;
  in->in_kind = isatty(STDIN_FILENO) ? IN_TTY : IN_FILE;
  snprintf(in->in_name, sizeof in->in_name, "stdin");
  if (in->in_kind == IN_TTY)
    rl_load();
  return in;
}

static char *read_stdio_line(FILE *fp)
{
  char *line = NULL;
  size_t cap = 0;
  ssize_t n = getline(&line, &cap, fp);
  if (n < 0) {
    free(line);
    return NULL;
  }
  while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
    line[--n] = '\0';
  return line;
}

static char *next_line(iq_input_t *in, const char *prompt)
{
  switch (in->in_kind) {
  case IN_STRING: {
    const char *nl;
    size_t n;
    char *line;
    if (!in->in_text)
      return NULL;
    nl = strchr(in->in_text, '\n');
    n = nl ? (size_t)(nl - in->in_text) : strlen(in->in_text);
    line = iq_xmalloc(n + 1);
    memcpy(line, in->in_text, n);
    line[n] = '\0';
    in->in_text = nl ? nl + 1 : NULL;
    return line;
  }
  case IN_TTY:
    if (rl_readline) {
      char *line = rl_readline(prompt ? prompt : "");
      if (line && *line)
        rl_add_history(line);
      return line;
    }
    if (prompt) {
      fputs(prompt, stdout);
      fflush(stdout);
    }
    return read_stdio_line(in->in_fp);
  case IN_FILE:
    return read_stdio_line(in->in_fp);
  }
  return NULL;
}

char *iq_input_line(iq_input_t *in, const char *prompt)
{
  char *line = next_line(in, prompt);
  if (line)
    in->in_lines++;
  return line;
}

long iq_input_lines_read(const iq_input_t *in) { return in->in_lines; }

bool iq_input_interactive(const iq_input_t *in) { return in->in_kind == IN_TTY; }

const char *iq_input_name(const iq_input_t *in) { return in->in_name; }

void iq_input_close(iq_input_t *in)
{
  if (!in)
    return;
  if (in->in_close && in->in_fp)
    fclose(in->in_fp);
  free(in);
}
