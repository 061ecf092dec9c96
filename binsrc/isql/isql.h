/* isql — the interactive SQL client isql-cz: private header shared by its files.
 *
 * Design notes: the program is a pipeline of small parts, one per file, each
 * usable alone so the unit tests can drive it without a server:
 *   iq_args.c   command line → iq_opts_t (Virtuoso positional and -h/-p/-U form)
 *   iq_input.c  sources of lines: files, -c strings, stdin, a tty with readline
 *   iq_split.c  text → statements ending with a top-level ';' (lexical rules
 *               of PostgreSQL: quotes, E'' escapes, $tag$ quotes, comments)
 *   iq_cmd.c    client-side script commands (ECHO, SET TIMING …, EXIT)
 *   iq_print.c  a PGresult → aligned table; errors with their position
 *   iq_run.c    one statement through PQexec, COPY data, timing, status
 *   iq_conn.c   connecting, with a password prompt on a tty
 *   isql_main.c the loop tying them together and the exit status
 * The prefix is iq_. Memory is plain malloc: the client holds one statement
 * and one result at a time, so there is no tree of lifetimes to manage.
 */
#ifndef CZ_ISQL_H
#define CZ_ISQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <libpq-fe.h>

#define IQ_PROGRAM "isql-cz"
#define IQ_VERSION "0.1.0"
/* Cadenza's default ServerPort (ini/cadenza.ini); $PGPORT overrides it. */
#define IQ_DEFAULT_PORT "5480"

/* Exit statuses (README "Exit status"). */
#define IQ_EXIT_OK 0
#define IQ_EXIT_STMT_FAILED 1 /* a statement of a script failed */
#define IQ_EXIT_CANNOT_START 2 /* bad arguments, unreadable file, no connection */

/* ---- growable text buffer (iq_buf.c) ----------------------------------- */

typedef struct iq_buf_s {
  char *b_data; /* always NUL-terminated once anything was appended */
  size_t b_len;
  size_t b_cap;
} iq_buf_t;

void iq_buf_append(iq_buf_t *b, const char *s, size_t n);
void iq_buf_puts(iq_buf_t *b, const char *s);
void iq_buf_putc(iq_buf_t *b, char c);
/* Removes the first n bytes, keeping the rest. */
void iq_buf_consume(iq_buf_t *b, size_t n);
void iq_buf_clear(iq_buf_t *b);
void iq_buf_free(iq_buf_t *b);
/* malloc that exits the program with a message when memory runs out: a
 * command-line client has nothing better to do then. */
void *iq_xmalloc(size_t n);
void *iq_xrealloc(void *p, size_t n);
char *iq_xstrdup(const char *s);

/* ---- options (iq_args.c) ----------------------------------------------- */

typedef enum iq_src_kind_e {
  IQ_SRC_FILE,   /* -f path or the positional file; "-" means stdin */
  IQ_SRC_STRING, /* -c "sql" or EXEC=sql */
  IQ_SRC_STDIN   /* no file and no -c */
} iq_src_kind_t;

typedef struct iq_src_spec_s {
  iq_src_kind_t ss_kind;
  const char *ss_text; /* the path or the SQL text (points into argv) */
} iq_src_spec_t;

typedef struct iq_opts_s {
  const char *o_host;     /* NULL: $PGHOST, else localhost */
  const char *o_port;     /* NULL: $PGPORT, else IQ_DEFAULT_PORT */
  const char *o_user;     /* NULL: libpq's default ($PGUSER, login name) */
  const char *o_password; /* NULL: $PGPASSWORD, else a prompt on a tty */
  const char *o_dbname;   /* NULL: libpq's default (the user name) */
  iq_src_spec_t *o_srcs;  /* in command-line order */
  int o_nsrcs;
  bool o_echo;        /* -e: print each statement before running it */
  bool o_quiet;       /* -q: no banner, no "Done." lines */
  bool o_stop_on_error; /* -b: stop at the first failed statement */
  bool o_no_prompt;     /* -w: never ask for a password (scripts, tests) */
  bool o_show_version;  /* -v */
  bool o_show_help;     /* --help */
} iq_opts_t;

/* Parses argv into o (whose o_srcs the caller frees with iq_opts_free).
 * Returns 0, or -1 with a message for the user in msg. */
int iq_args_parse(int argc, char **argv, iq_opts_t *o, char *msg, size_t msgsz);
void iq_opts_free(iq_opts_t *o);
void iq_args_usage(FILE *out);

/* ---- statement splitter (iq_split.c) ----------------------------------- */

/* Where the scanner stands between two bytes of input. */
typedef enum iq_lex_e {
  IQ_LEX_TOP,           /* ordinary SQL text */
  IQ_LEX_SQUOTE,        /* inside '…' ('' is a quote) */
  IQ_LEX_ESTRING,       /* inside E'…' (also \' and \\) */
  IQ_LEX_DQUOTE,        /* inside "…" ("" is a quote) */
  IQ_LEX_LINE_COMMENT,  /* after -- up to the end of the line */
  IQ_LEX_BLOCK_COMMENT, /* inside a block comment (they nest, as in PostgreSQL) */
  IQ_LEX_DOLLAR         /* inside $tag$ … $tag$ */
} iq_lex_t;

typedef struct iq_split_s {
  iq_buf_t sp_buf;      /* text fed and not yet returned as a statement */
  size_t sp_scan;       /* bytes of sp_buf already scanned */
  iq_lex_t sp_lex;
  int sp_comment_depth; /* nesting of block comments */
  int sp_paren_depth;   /* a ';' inside parentheses does not end a statement */
  bool sp_escape;       /* in an E'' string, the previous byte was a backslash */
  char *sp_tag;         /* the $tag$ (with both dollars) of a dollar quote */
  size_t sp_start;      /* offset of the statement's first significant byte */
  bool sp_started;      /* a significant byte has been seen */
  int sp_line;          /* line number of the byte at sp_scan */
  int sp_start_line;    /* line number of sp_start */
  bool sp_eof;          /* no more input will come */
} iq_split_t;

typedef struct iq_stmt_s {
  char *st_text;    /* malloc'd, without the ';' and outer blanks */
  int st_line;      /* line of the statement's first byte in its source */
  iq_lex_t st_open; /* at end of input: what was left open, else TOP */
} iq_stmt_t;

void iq_split_init(iq_split_t *s, int first_line);
void iq_split_free(iq_split_t *s);
/* Appends input; any chunking gives the same statements. */
void iq_split_feed(iq_split_t *s, const char *text, size_t len);
/* Marks the end of input: the text after the last ';' becomes a statement. */
void iq_split_finish(iq_split_t *s);
/* Takes the next complete statement. Returns false when more input is
 * needed (or none is left after iq_split_finish). Empty statements (";;",
 * comments only) are skipped. The caller frees st_text. */
bool iq_split_next(iq_split_t *s, iq_stmt_t *out);
/* True when fed text holds something significant not yet returned: the
 * prompt then says the statement continues. */
bool iq_split_pending(const iq_split_t *s);
/* Drops everything fed but not returned (after an interrupt). */
void iq_split_reset(iq_split_t *s);
/* A short name for what is open, for messages: "quoted string" … */
const char *iq_lex_name(iq_lex_t lex);

/* ---- script commands (iq_cmd.c) ---------------------------------------- */

typedef enum iq_cmd_kind_e {
  IQ_CMD_NONE,     /* not a client command: send the statement to the server */
  IQ_CMD_ECHO,     /* ECHO text: print without a newline */
  IQ_CMD_ECHOLN,   /* ECHOLN text: print with a newline */
  IQ_CMD_SET_ECHO,
  IQ_CMD_SET_TIMING,
  IQ_CMD_SET_ERRORS_EXIT, /* cm_flag: true = EXIT, false = CONTINUE */
  IQ_CMD_SET_MAXROWS,
  IQ_CMD_EXIT,
  IQ_CMD_BAD       /* looked like a client command but was malformed */
} iq_cmd_kind_t;

typedef struct iq_cmd_s {
  iq_cmd_kind_t cm_kind;
  bool cm_flag;    /* ON/OFF, EXIT/CONTINUE */
  long cm_number;  /* MAXROWS n; EXIT n */
  char *cm_text;   /* ECHO/ECHOLN text, BAD message (malloc'd, may be NULL) */
} iq_cmd_t;

/* Recognises a client command in a whole statement (case-insensitive). */
void iq_cmd_parse(const char *stmt, iq_cmd_t *cmd);
void iq_cmd_free(iq_cmd_t *cmd);

/* ---- result printer (iq_print.c) --------------------------------------- */

typedef struct iq_print_opts_s {
  long po_maxrows; /* rows printed at most; 0 = all */
} iq_print_opts_t;

/* Prints a PGRES_TUPLES_OK result as an aligned table: header line, a line
 * of dashes, the rows (at most po_maxrows). NULL prints as NULL, numbers
 * align right, values with newlines span several lines. Returns the rows
 * printed. */
long iq_print_table(FILE *out, const PGresult *res, const iq_print_opts_t *po);
/* Display width of UTF-8 text: one column per code point. */
size_t iq_text_width(const char *s, size_t len);

/* Where an error points: the 1-based character position of the server's
 * error in the statement, mapped to a line of the source and a column. */
typedef struct iq_errloc_s {
  int el_line;         /* line in the source */
  size_t el_col;       /* 0-based display column within that line */
  const char *el_text; /* start of that line inside the statement text */
  size_t el_len;       /* its length in bytes, without the newline */
} iq_errloc_t;

/* Returns false when pos is 0 or beyond the text. */
bool iq_error_locate(const char *stmt, int stmt_line, long pos, iq_errloc_t *loc);
/* Prints "*** Error SQLSTATE: message", the position, DETAIL and HINT. */
void iq_print_error(FILE *out, const char *sqlstate, const char *message,
                    const char *detail, const char *hint, long pos,
                    const char *stmt, int stmt_line, const char *src_name);

/* ---- input sources (iq_input.c) ---------------------------------------- */

typedef struct iq_input_s iq_input_t;

/* A file ("-" = stdin), returns NULL with msg filled when it cannot open. */
iq_input_t *iq_input_open_file(const char *path, char *msg, size_t msgsz);
iq_input_t *iq_input_open_string(const char *text, int index);
/* Standard input: interactive (prompt, readline when the library is
 * present) when it is a terminal. */
iq_input_t *iq_input_open_stdin(void);
/* The next line without its newline, malloc'd; NULL at end of input.
 * prompt is shown only when the input is interactive. */
char *iq_input_line(iq_input_t *in, const char *prompt);
bool iq_input_interactive(const iq_input_t *in);
/* Lines handed out so far: the main loop learns from it how many lines a
 * COPY took as data, so that line numbers after it stay true. */
long iq_input_lines_read(const iq_input_t *in);
/* "file x.sql", "stdin", "-c string 1": for error messages. */
const char *iq_input_name(const iq_input_t *in);
void iq_input_close(iq_input_t *in);

/* ---- running statements (iq_run.c) ------------------------------------- */

typedef struct iq_session_s {
  PGconn *ss_conn;
  FILE *ss_out;
  bool ss_echo;
  bool ss_timing;
  bool ss_quiet;
  bool ss_stop_on_error;
  long ss_maxrows;
  long ss_failures;  /* statements that failed so far */
  bool ss_exit;      /* EXIT; was run, or the connection is gone */
  int ss_exit_code;  /* EXIT n, or IQ_EXIT_CANNOT_START when the link broke */
} iq_session_t;

/* Runs one statement from input in (its COPY data comes from in too).
 * Returns false when it failed. */
bool iq_run_statement(iq_session_t *ss, iq_input_t *in, const iq_stmt_t *st);

/* ---- connecting (iq_conn.c) -------------------------------------------- */

/* Connects as o says; on failure prints why and returns NULL. */
PGconn *iq_connect(const iq_opts_t *o);

#endif /* CZ_ISQL_H */
