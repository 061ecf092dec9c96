/* rdf_input — the bytes a reader parses: a file or a memory block, plain
 * or gzip, told apart by the first two bytes (1f 8b), never by the name.
 *
 * Design notes: reading is by 256 KB blocks of the raw file, inflated on
 * demand, so memory stays constant however big the file. Concatenated
 * gzip members (what `cat a.gz b.gz` and parallel gzip tools produce) are
 * read one after another. rp_bytes_in counts raw bytes (compressed ones
 * for gzip), so a progress display can compare it with the file size.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rdf/rdf_int.h"

#define RDF_RAW_BLOCK (256 * 1024)

static int rdf_input_start(rdf_input_t *in, rdf_progress_t *prog, err_t *e)
{
  in->ri_prog = prog ? prog : &in->ri_own_prog;
  in->ri_raw = malloc(RDF_RAW_BLOCK);
  if (!in->ri_raw)
    return err_set(e, SQLSTATE_OUT_OF_MEMORY, "out of memory reading %s", in->ri_name);
  return CZ_OK;
}

/* Refills ri_raw from the file or memory. */
static int rdf_input_fill(rdf_input_t *in, err_t *e)
{
  in->ri_raw_pos = 0;
  in->ri_raw_len = 0;
  if (in->ri_fd < 0) {
    size_t n = in->ri_mem_len - in->ri_mem_pos;
    if (n > RDF_RAW_BLOCK)
      n = RDF_RAW_BLOCK;
    memcpy(in->ri_raw, in->ri_mem + in->ri_mem_pos, n);
    in->ri_mem_pos += n;
    in->ri_raw_len = n;
  } else {
    ssize_t n;
    do
      n = read(in->ri_fd, in->ri_raw, RDF_RAW_BLOCK);
    while (n < 0 && errno == EINTR);
    if (n < 0)
      return err_set(e, SQLSTATE_IO_ERROR, "read %s: %s", in->ri_name, strerror(errno));
    in->ri_raw_len = (size_t)n;
  }
  if (in->ri_raw_len == 0)
    in->ri_raw_eof = true;
  __atomic_fetch_add(&in->ri_prog->rp_bytes_in, in->ri_raw_len, __ATOMIC_RELAXED);
  return CZ_OK;
}

/* Looks at the first bytes to choose plain or gzip. */
static int rdf_input_sniff(rdf_input_t *in, err_t *e)
{
  if (rdf_input_fill(in, e) != CZ_OK)
    return CZ_ERR;
  /* A file of one byte 0x1f is plain text that happens to start so. */
  if (in->ri_raw_len >= 2 && in->ri_raw[0] == 0x1f && in->ri_raw[1] == 0x8b) {
    in->ri_gz = true;
    memset(&in->ri_z, 0, sizeof(in->ri_z));
    if (inflateInit2(&in->ri_z, 15 + 16) != Z_OK)
      return err_set(e, SQLSTATE_OUT_OF_MEMORY, "cannot start inflating %s", in->ri_name);
    in->ri_z_open = true;
  }
  return CZ_OK;
}

int rdf_input_open_file(rdf_input_t *in, const char *path, rdf_progress_t *prog, err_t *e)
{
  memset(in, 0, sizeof(*in));
  in->ri_name = path;
  in->ri_fd = open(path, O_RDONLY | O_CLOEXEC);
  if (in->ri_fd < 0)
    return err_set(e, SQLSTATE_IO_ERROR, "open %s: %s", path, strerror(errno));
  if (rdf_input_start(in, prog, e) != CZ_OK)
    return CZ_ERR;
  struct stat sb;
  if (fstat(in->ri_fd, &sb) == 0 && S_ISREG(sb.st_mode))
    in->ri_prog->rp_file_size = (uint64_t)sb.st_size;
#ifdef POSIX_FADV_SEQUENTIAL
  posix_fadvise(in->ri_fd, 0, 0, POSIX_FADV_SEQUENTIAL);
#endif
  return rdf_input_sniff(in, e);
}

int rdf_input_open_mem(rdf_input_t *in, const char *name, const void *data, size_t len,
                       rdf_progress_t *prog, err_t *e)
{
  memset(in, 0, sizeof(*in));
  in->ri_name = name;
  in->ri_fd = -1;
  in->ri_mem = data;
  in->ri_mem_len = len;
  if (rdf_input_start(in, prog, e) != CZ_OK)
    return CZ_ERR;
  in->ri_prog->rp_file_size = len;
  return rdf_input_sniff(in, e);
}

static long rdf_input_inflate(rdf_input_t *in, void *buf, size_t cap, err_t *e)
{
  z_stream *z = &in->ri_z;
  z->next_out = buf;
  z->avail_out = (uInt)cap;
  while (z->avail_out == cap && !in->ri_eof) {
    if (in->ri_raw_pos == in->ri_raw_len && !in->ri_raw_eof &&
        rdf_input_fill(in, e) != CZ_OK)
      return -1;
    if (in->ri_raw_pos == in->ri_raw_len) {
      /* The file ended: fine between members, an error inside one. */
      if (z->total_in > 0 || z->avail_in)
        return err_set(e, SQLSTATE_INVALID_TEXT, "%s: truncated gzip data", in->ri_name), -1;
      in->ri_eof = true;
      break;
    }
    z->next_in = in->ri_raw + in->ri_raw_pos;
    z->avail_in = (uInt)(in->ri_raw_len - in->ri_raw_pos);
    int rc = inflate(z, Z_NO_FLUSH);
    in->ri_raw_pos = in->ri_raw_len - z->avail_in;
    if (rc == Z_STREAM_END) {
      /* Another member may follow: start over on the remaining bytes. */
      inflateReset(z);
      z->total_in = 0;
    } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
      return err_set(e, SQLSTATE_INVALID_TEXT, "%s: corrupt gzip data (%s)", in->ri_name,
                     z->msg ? z->msg : "inflate failed"),
             -1;
    }
  }
  return (long)(cap - z->avail_out);
}

long rdf_input_read(rdf_input_t *in, void *buf, size_t cap, err_t *e)
{
  if (in->ri_eof || cap == 0)
    return 0;
  if (in->ri_gz)
    return rdf_input_inflate(in, buf, cap, e);
  if (in->ri_raw_pos == in->ri_raw_len) {
    if (in->ri_raw_eof || rdf_input_fill(in, e) != CZ_OK)
      return in->ri_raw_eof ? 0 : -1;
    if (in->ri_raw_len == 0) {
      in->ri_eof = true;
      return 0;
    }
  }
  size_t n = in->ri_raw_len - in->ri_raw_pos;
  if (n > cap)
    n = cap;
  memcpy(buf, in->ri_raw + in->ri_raw_pos, n);
  in->ri_raw_pos += n;
  return (long)n;
}

void rdf_input_close(rdf_input_t *in)
{
  if (in->ri_z_open)
    inflateEnd(&in->ri_z);
  if (in->ri_fd >= 0)
    close(in->ri_fd);
  free(in->ri_raw);
  in->ri_raw = NULL;
  in->ri_fd = -1;
  in->ri_z_open = false;
}
