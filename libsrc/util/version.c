/* version — the version string the build was made from. */
#include "util/util.h"

const char *cz_version(void) { return "cadenza 0.1.0"; }
