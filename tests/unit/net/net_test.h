/* net_test — helpers shared by the net unit tests: a canonical text form of
 * a decoded frontend message, and a driver that decodes a byte stream fed in
 * chunks of chosen sizes. */
#ifndef CZ_NET_TEST_H
#define CZ_NET_TEST_H

#include <stdio.h>

#include "net/net.h"

/* Appends a one-line description of m to out (every field, so that two
 * decodings compare equal exactly when they decoded the same message). */
void nt_describe(const pgw_fe_msg_t *m, FILE *out);

/* Decodes data[0..len) fed in chunks: chunk(i) gives the size of the i-th
 * (1 = byte by byte; 0 = all at once). Returns a malloc'd transcript: one
 * line per message, then "NEED_MORE" or "ERROR <sqlstate> <message>". */
char *nt_decode_stream(const uint8_t *data, size_t len, size_t (*chunk)(void *ctx), void *ctx);

#endif /* CZ_NET_TEST_H */
