/* spill_file — the temporary files of spilling operators: creation in the
 * server's temporary folder, buffered row writes and batch reads, the
 * per-execution registry that deletes them when the query ends, and the
 * MaxTempSpace limit.
 *
 * Design notes: a file is created with O_EXCL under a name no other
 * server process uses (pid and a counter) and deleted by spill_close;
 * spill_end deletes whatever an execution left (an error or a cancel in
 * the middle of a spill), and spill_configure removes what a crashed
 * server left. One buffer per file (SPILL_BUF bytes, charged to the
 * query's budget) serves writing, then reading; it is given back between
 * the two (spill_rewind), so that many files written and waiting to be
 * read (a sort's runs) hold no memory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "exec/exec_int.h"
#include "exec/spill.h"

#define SPILL_BUF (16 * 1024)

/* The registry of one execution, on its root context (q_spill). */
typedef struct spill_reg_s {
  pthread_mutex_t sr_lock;      /* sr_files and sr_bytes: workers share the registry */
  spill_t *sr_files;            /* open files, linked */
  int64_t sr_bytes;             /* bytes written to them */
} spill_reg_t;

struct spill_s {
  spill_reg_t *sp_reg;
  mem_budget_t *sp_budget;      /* the buffer is charged here */
  spill_t *sp_next, *sp_prev;
  int sp_fd;
  int sp_ncols;
  const ty_t *sp_types;
  char *sp_buf;
  size_t sp_len;                /* writing: bytes buffered; reading: bytes in buffer */
  size_t sp_pos;                /* reading: next byte */
  int64_t sp_size;              /* bytes in the file */
  int64_t sp_rows;
  bool sp_reading;
  char sp_path[];
};

static char *spill_folder;
static int64_t spill_max_temp;
static atomic_uint_fast64_t spill_seq;

static bool spill_ours(const char *name)
{
  size_t n = strlen(name);
  return strncmp(name, "cz-", 3) == 0 && n > 9 && strcmp(name + n - 6, ".spill") == 0;
}

int spill_configure(const char *dir, int64_t max_temp, err_t *e)
{
  free(spill_folder);
  spill_folder = strdup(dir);
  if (!spill_folder)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory");
  spill_max_temp = max_temp > 0 ? max_temp : 0;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST)
    return err_set(e, SQLSTATE_IO_ERROR, "could not create the temporary folder %s: %s", dir,
                   strerror(errno));
  struct stat st;
  if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
    return err_set(e, SQLSTATE_IO_ERROR, "TempDirectory %s is not a folder", dir);
  /* Files of an earlier server that ended without deleting them (a crash,
   * a kill): no execution of ours has begun yet. */
  DIR *d = opendir(dir);
  if (!d)
    return err_set(e, SQLSTATE_IO_ERROR, "could not read the temporary folder %s: %s", dir,
                   strerror(errno));
  int removed = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!spill_ours(de->d_name))
      continue;
    char path[4096];
    snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
    if (unlink(path) == 0)
      removed++;
  }
  closedir(d);
  if (removed)
    log_info("removed %d temporary files left in %s", removed, dir);
  return CZ_OK;
}

const char *spill_dir(void)
{
  return spill_folder;
}

static qctx_t *spill_root(qctx_t *q)
{
  while (q->q_parent)
    q = q->q_parent;
  return q;
}

static int spill_io_error(const spill_t *f, const char *what, int err, err_t *e)
{
  if (err == ENOSPC || err == EDQUOT)
    return err_set(e, SQLSTATE_DISK_FULL, "could not %s temporary file %s: %s", what,
                   f->sp_path, strerror(err));
  return err_set(e, SQLSTATE_IO_ERROR, "could not %s temporary file %s: %s", what, f->sp_path,
                 strerror(err));
}

int spill_reg_ensure(qctx_t *q, err_t *e)
{
  qctx_t *root = spill_root(q);
  if (root->q_spill)
    return CZ_OK;
  spill_reg_t *reg = arena_try_zalloc(root->q_arena, sizeof(*reg));
  if (!reg)
    return op_alloc_error(root->q_arena, e);
  pthread_mutex_init(&reg->sr_lock, NULL);
  root->q_spill = reg;
  return CZ_OK;
}

spill_t *spill_open(qctx_t *q, int ncols, const ty_t *types, err_t *e)
{
  if (!spill_folder) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY,
            "query needs more than MaxQueryMem and no temporary folder is configured");
    return NULL;
  }
  qctx_t *root = spill_root(q);
  if (spill_reg_ensure(root, e) != CZ_OK)
    return NULL;
  spill_reg_t *reg = root->q_spill;
  mem_budget_t *b = root->q_budget;
  size_t plen = strlen(spill_folder) + 64;
  spill_t *f = calloc(1, sizeof(*f) + plen);
  if (!f) {
    err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory: the system refused the query more memory");
    return NULL;
  }
  snprintf(f->sp_path, plen, "%s/cz-%ld-%llu.spill", spill_folder, (long)getpid(),
           (unsigned long long)atomic_fetch_add(&spill_seq, 1));
  f->sp_fd = open(f->sp_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (f->sp_fd < 0) {
    spill_io_error(f, "create", errno, e);
    free(f);
    return NULL;
  }
  /* A server file: no SQL function (COPY … TO a guessed name) may touch
   * it while it lives. */
  fg_protect_fd(f->sp_fd, f->sp_path, "a temporary file of the server");
  f->sp_reg = reg;
  f->sp_budget = b;
  f->sp_ncols = ncols;
  f->sp_types = types;
  pthread_mutex_lock(&reg->sr_lock);
  f->sp_next = reg->sr_files;
  if (reg->sr_files)
    reg->sr_files->sp_prev = f;
  reg->sr_files = f;
  pthread_mutex_unlock(&reg->sr_lock);
  return f;
}

/* The buffer, charged to the query's budget when taken. */
static int spill_buf_take(spill_t *f, err_t *e)
{
  if (f->sp_buf)
    return CZ_OK;
  if (!mem_budget_try_charge(f->sp_budget, SPILL_BUF))
    return op_budget_error(f->sp_budget, f->sp_budget->mb_limit, e);
  if (!(f->sp_buf = malloc(SPILL_BUF))) {
    mem_budget_uncharge(f->sp_budget, SPILL_BUF);
    return err_set(e, SQLSTATE_OUT_OF_MEMORY,
                   "out of memory: the system refused the query more memory");
  }
  return CZ_OK;
}

static void spill_buf_drop(spill_t *f)
{
  if (!f->sp_buf)
    return;
  free(f->sp_buf);
  f->sp_buf = NULL;
  mem_budget_uncharge(f->sp_budget, SPILL_BUF);
}

void spill_close(spill_t *f)
{
  if (!f)
    return;
  spill_reg_t *reg = f->sp_reg;
  pthread_mutex_lock(&reg->sr_lock);
  if (f->sp_prev)
    f->sp_prev->sp_next = f->sp_next;
  else
    reg->sr_files = f->sp_next;
  if (f->sp_next)
    f->sp_next->sp_prev = f->sp_prev;
  reg->sr_bytes -= f->sp_size;
  pthread_mutex_unlock(&reg->sr_lock);
  fg_release_fd(f->sp_fd);
  close(f->sp_fd);
  unlink(f->sp_path);
  spill_buf_drop(f);
  free(f);
}

void spill_end(qctx_t *q)
{
  spill_reg_t *reg = q->q_spill;
  if (!reg)
    return;
  while (reg->sr_files)
    spill_close(reg->sr_files);
  pthread_mutex_destroy(&reg->sr_lock);
  q->q_spill = NULL;
}

int64_t spill_bytes(const qctx_t *q)
{
  while (q->q_parent)
    q = q->q_parent;
  const spill_reg_t *reg = q->q_spill;
  return reg ? reg->sr_bytes : 0;
}

int64_t spill_rows(const spill_t *f)
{
  return f->sp_rows;
}

static int spill_flush(spill_t *f, err_t *e)
{
  size_t off = 0;
  while (off < f->sp_len) {
    ssize_t w = write(f->sp_fd, f->sp_buf + off, f->sp_len - off);
    if (w < 0) {
      if (errno == EINTR)
        continue;
      return spill_io_error(f, "write", errno, e);
    }
    off += (size_t)w;
  }
  f->sp_len = 0;
  return CZ_OK;
}

static int spill_write(spill_t *f, const void *p, size_t n, err_t *e)
{
  spill_reg_t *reg = f->sp_reg;
  if (spill_buf_take(f, e) != CZ_OK)
    return CZ_ERR;
  pthread_mutex_lock(&reg->sr_lock);
  bool over = spill_max_temp > 0 && reg->sr_bytes + (int64_t)n > spill_max_temp;
  if (!over)
    reg->sr_bytes += (int64_t)n;
  pthread_mutex_unlock(&reg->sr_lock);
  if (over)
    return err_set(e, SQLSTATE_TEMP_LIMIT,
                   "temporary file size exceeds MaxTempSpace (%lld bytes)",
                   (long long)spill_max_temp);
  f->sp_size += (int64_t)n;
  const char *s = p;
  while (n > 0) {
    if (f->sp_len == SPILL_BUF && spill_flush(f, e) != CZ_OK)
      return CZ_ERR;
    size_t k = CZ_MIN(n, SPILL_BUF - f->sp_len);
    memcpy(f->sp_buf + f->sp_len, s, k);
    f->sp_len += k;
    s += k;
    n -= k;
  }
  return CZ_OK;
}

int spill_put(spill_t *f, const batch_t *b, int row, err_t *e)
{
  /* One row's fixed-size part is assembled first: one bounds check and
   * copy per row rather than per column. */
  char tmp[512];
  size_t n = 0;
  for (int c = 0; c < f->sp_ncols; c++) {
    if (n + 32 > sizeof(tmp)) {
      if (spill_write(f, tmp, n, e) != CZ_OK)
        return CZ_ERR;
      n = 0;
    }
    datum_t d;
    vec_get(&b->b_cols[c], row, &d);
    tmp[n++] = d.d_null ? 1 : 0;
    if (d.d_null)
      continue;
    switch (ty_phys(f->sp_types[c].t_id)) {
    case TP_BOOL:
      tmp[n++] = (char)d.d_bool;
      break;
    case TP_I64:
      memcpy(tmp + n, &d.d_i64, 8);
      n += 8;
      break;
    case TP_F64:
      memcpy(tmp + n, &d.d_f64, 8);
      n += 8;
      break;
    case TP_NUM:
      memcpy(tmp + n, &d.d_num.n_val, 16);
      memcpy(tmp + n + 16, &d.d_num.n_scale, 2);
      n += 18;
      break;
    case TP_IV:
      memcpy(tmp + n, &d.d_iv, sizeof d.d_iv);
      n += sizeof d.d_iv;
      break;
    case TP_STR:
      memcpy(tmp + n, &d.d_str.s_len, 4);
      n += 4;
      if (d.d_str.s_len) {
        if (spill_write(f, tmp, n, e) != CZ_OK ||
            spill_write(f, d.d_str.s_ptr, d.d_str.s_len, e) != CZ_OK)
          return CZ_ERR;
        n = 0;
      }
      break;
    }
  }
  if (n && spill_write(f, tmp, n, e) != CZ_OK)
    return CZ_ERR;
  f->sp_rows++;
  return CZ_OK;
}

int spill_rewind(spill_t *f, err_t *e)
{
  if (!f->sp_reading && f->sp_buf && spill_flush(f, e) != CZ_OK)
    return CZ_ERR;
  if (lseek(f->sp_fd, 0, SEEK_SET) < 0)
    return spill_io_error(f, "seek in", errno, e);
  spill_buf_drop(f);  /* taken again by the first read */
  f->sp_reading = true;
  f->sp_len = 0;
  f->sp_pos = 0;
  return CZ_OK;
}

/* Copies the next n bytes of the file into p; a file that ends first is
 * damaged (58030). */
static int spill_read(spill_t *f, void *p, size_t n, err_t *e)
{
  char *d = p;
  while (n > 0) {
    if (f->sp_pos == f->sp_len) {
      ssize_t r;
      do
        r = read(f->sp_fd, f->sp_buf, SPILL_BUF);
      while (r < 0 && errno == EINTR);
      if (r < 0)
        return spill_io_error(f, "read", errno, e);
      if (r == 0)
        return err_set(e, SQLSTATE_IO_ERROR, "temporary file %s ends inside a row", f->sp_path);
      f->sp_len = (size_t)r;
      f->sp_pos = 0;
    }
    size_t k = CZ_MIN(n, f->sp_len - f->sp_pos);
    memcpy(d, f->sp_buf + f->sp_pos, k);
    f->sp_pos += k;
    d += k;
    n -= k;
  }
  return CZ_OK;
}

/* Whether the file has another row (refills the buffer). */
static int spill_more(spill_t *f, bool *more, err_t *e)
{
  if (f->sp_pos < f->sp_len) {
    *more = true;
    return CZ_OK;
  }
  if (spill_buf_take(f, e) != CZ_OK)
    return CZ_ERR;
  ssize_t r;
  do
    r = read(f->sp_fd, f->sp_buf, SPILL_BUF);
  while (r < 0 && errno == EINTR);
  if (r < 0)
    return spill_io_error(f, "read", errno, e);
  f->sp_len = (size_t)r;
  f->sp_pos = 0;
  *more = r > 0;
  return CZ_OK;
}

int spill_get(spill_t *f, batch_t *out, arena_t *a, err_t *e)
{
  int cap = out->b_ncols > 0 ? out->b_cols[0].v_cap : 1024;
  int n = 0;
  while (n < cap) {
    bool more = false;
    if (spill_more(f, &more, e) != CZ_OK)
      return CZ_ERR;
    if (!more)
      break;
    for (int c = 0; c < f->sp_ncols; c++) {
      datum_t d;
      memset(&d, 0, sizeof(d));
      char nf;
      if (spill_read(f, &nf, 1, e) != CZ_OK)
        return CZ_ERR;
      d.d_null = nf != 0;
      if (!d.d_null) {
        int rc = CZ_OK;
        switch (ty_phys(f->sp_types[c].t_id)) {
        case TP_BOOL:
          rc = spill_read(f, &d.d_bool, 1, e);
          break;
        case TP_I64:
          rc = spill_read(f, &d.d_i64, 8, e);
          break;
        case TP_F64:
          rc = spill_read(f, &d.d_f64, 8, e);
          break;
        case TP_NUM:
          if ((rc = spill_read(f, &d.d_num.n_val, 16, e)) == CZ_OK)
            rc = spill_read(f, &d.d_num.n_scale, 2, e);
          break;
        case TP_IV:
          rc = spill_read(f, &d.d_iv, sizeof d.d_iv, e);
          break;
        case TP_STR:
          if ((rc = spill_read(f, &d.d_str.s_len, 4, e)) == CZ_OK && d.d_str.s_len) {
            char *s = arena_try_alloc(a, d.d_str.s_len);
            if (!s)
              return op_alloc_error(a, e);
            d.d_str.s_ptr = s;
            rc = spill_read(f, s, d.d_str.s_len, e);
          }
          break;
        }
        if (rc != CZ_OK)
          return CZ_ERR;
      }
      vec_set(&out->b_cols[c], n, &d);
    }
    n++;
  }
  out->b_n = n;
  return CZ_OK;
}

int64_t spill_mem_limit(const qctx_t *q)
{
  while (q->q_parent)
    q = q->q_parent;
  const mem_budget_t *b = q->q_budget;
  if (!b)
    return 0;
  int64_t lim = b->mb_limit;
  if (b->mb_parent && b->mb_parent->mb_limit > 0 && (lim == 0 || b->mb_parent->mb_limit < lim))
    lim = b->mb_parent->mb_limit;
  return lim;
}

bool spill_pressure(const qctx_t *q)
{
  if (!spill_folder)
    return false;
  while (q->q_parent)
    q = q->q_parent;
  int64_t lim = spill_mem_limit(q);
  if (lim <= 0)
    return false;
  /* A quarter of the limit stays free: what operators allocate between
   * two checks (a batch of rows, a doubling table) and what the spilling
   * itself needs (file buffers, the merge's batches). */
  int64_t reserve = lim / 4;
  return mem_budget_room(q->q_budget) < reserve;
}
