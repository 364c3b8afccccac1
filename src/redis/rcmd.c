/* rcmd.c — the RESP command API shared by the server (resp.c) and the command files:
 * Redis's argument rules, and the end of a command. */
#include "redis/rcmd.h"

#include <string.h>
#include <strings.h>

bool rarg_eq(const struct rarg *a, const char *lit)
{
    return strlen(lit) == a->len && strcasecmp(a->ptr, lit) == 0 && memchr(a->ptr, 0, a->len) == NULL;
}

bool rarg_ll(const struct rarg *a, long long *out) { return rproto_string2ll(a->ptr, a->len, out); }

void rcmd_finish(struct rcmd *c) { c->finished(c); }
