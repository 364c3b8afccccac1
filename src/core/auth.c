/* auth.c — constant-time comparison of presented credentials with the
 * configured shared secret. */
#include "core/auth.h"

#include <string.h>
#include <strings.h>

bool auth_secret_equal(const char *secret, const void *got, size_t gotlen)
{
    const unsigned char *g = got;
    size_t sl = strlen(secret);
    /* every byte of the candidate is compared against some byte of the secret, so
     * the loop's length is the candidate's and its path never depends on content */
    volatile unsigned char diff = (unsigned char)(sl != gotlen);
    for (size_t i = 0; i < gotlen; i++) diff |= (unsigned char)(g[i] ^ (unsigned char)secret[sl ? i % sl : 0]);
    return diff == 0 && sl > 0;
}

bool auth_bearer_ok(const char *secret, const char *header)
{
    static const char scheme[] = "Bearer";
    if (!header || strncasecmp(header, scheme, sizeof(scheme) - 1) != 0) return false;
    const char *p = header + sizeof(scheme) - 1;
    if (*p != ' ' && *p != '\t') return false;
    while (*p == ' ' || *p == '\t') p++;
    size_t n = strlen(p);
    while (n > 0 && (p[n - 1] == ' ' || p[n - 1] == '\t')) n--;
    return auth_secret_equal(secret, p, n);
}
