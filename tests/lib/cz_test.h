/* cz_test — small helpers shared by every unit test program.
 *
 * Design notes: tests that touch files get one private directory per process
 * (removed at exit unless CZ_KEEP_TMP is set, to inspect a failure), and
 * tests that use randomness take their seed from cz_test_seed, which prints
 * it once so that CZ_TEST_SEED=<n> replays a failing run exactly.
 */
#ifndef CZ_TEST_H
#define CZ_TEST_H

#include <stdint.h>

/* A directory /tmp/cz-test-XXXXXX made on first call; the same one after. */
const char *cz_test_tmpdir(void);
/* "<tmpdir>/<name>", malloc'd; the caller frees it. */
char *cz_test_path(const char *name);
/* CZ_TEST_SEED from the environment, else one taken from the clock; the same
 * value for the whole process, printed to stderr on first call. */
uint64_t cz_test_seed(void);

#endif /* CZ_TEST_H */
