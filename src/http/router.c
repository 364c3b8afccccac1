/* router.c — segment-by-segment matching of paths against route patterns. */
#include "http/router.h"

#include <stdio.h>
#include <string.h>

/* Matches one pattern; captures {name} segments into m. */
static bool pattern_match(const char *pat, const char *path, struct route_match *m)
{
    m->nparams = 0;
    while (*pat && *path) {
        if (*pat != '/' || *path != '/') return false;
        pat++;
        path++;
        const char *pe = strchr(pat, '/'), *se = strchr(path, '/');
        size_t plen = pe ? (size_t)(pe - pat) : strlen(pat);
        size_t slen = se ? (size_t)(se - path) : strlen(path);
        if (plen >= 2 && pat[0] == '{' && pat[plen - 1] == '}') {
            if (slen == 0 || m->nparams == ROUTE_MAX_PARAMS) return false;
            size_t copy = slen < ROUTE_PARAM_MAX - 1 ? slen : ROUTE_PARAM_MAX - 1;
            memcpy(m->params[m->nparams], path, copy);
            m->params[m->nparams][copy] = '\0';
            m->param_truncated[m->nparams] = copy < slen;
            m->nparams++;
        } else if (plen != slen || memcmp(pat, path, plen) != 0) {
            return false;
        }
        pat += plen;
        path += slen;
    }
    return *pat == '\0' && *path == '\0';
}

enum route_result router_match(const struct route *table, size_t n, const char *method,
                               const char *path, struct route_match *m)
{
    bool path_known = false;

    memset(m, 0, sizeof(*m));
    for (size_t i = 0; i < n; i++) {
        struct route_match tmp;
        memset(&tmp, 0, sizeof(tmp));
        if (!pattern_match(table[i].pattern, path, &tmp)) continue;
        if (strcmp(table[i].method, method) == 0) {
            *m = tmp;
            m->route = &table[i];
            return ROUTE_FOUND;
        }
        if (!strstr(m->allow, table[i].method)) {
            size_t used = strlen(m->allow);
            snprintf(m->allow + used, sizeof(m->allow) - used, "%s%s", used ? ", " : "", table[i].method);
        }
        path_known = true;
    }
    return path_known ? ROUTE_BAD_METHOD : ROUTE_NOT_FOUND;
}
