/* pgbin.c — PostgreSQL's binary format for the store's parameters and results
 * (pgbin.h). */
#include "store/pgbin.h"

#include <arpa/inet.h>
#include <string.h>
#include <stdlib.h>


static void pa_grow(struct pgarr *a, size_t more);

static inline void pa_reserve(struct pgarr *a, size_t more)
{
    if (!a->oom && a->len + more > a->cap) pa_grow(a, more);
}

static void pa_grow(struct pgarr *a, size_t more)
{
    size_t cap = a->cap ? a->cap : 256;
    while (cap < a->len + more) cap *= 2;
    uint8_t *nb = realloc(a->buf, cap);
    if (!nb) {
        a->oom = true;
        return;
    }
    a->buf = nb;
    a->cap = cap;
}

static void pa_put32(struct pgarr *a, uint32_t v)
{
    pa_reserve(a, 4);
    if (a->oom) return;
    v = htonl(v);
    memcpy(a->buf + a->len, &v, 4);
    a->len += 4;
}

static void pa_bytes(struct pgarr *a, const void *p, size_t n)
{
    pa_reserve(a, n);
    if (a->oom) return;
    memcpy(a->buf + a->len, p, n);
    a->len += n;
}

/* one-dimensional array header: ndim, has-null flag, element type, length, lower bound;
 * room for the n elements of a fixed-size type (and the length words of others) is
 * taken at once */
void pa_begin(struct pgarr *a, uint32_t oid, size_t n, bool has_null)
{
    memset(a, 0, sizeof(*a));
    pa_reserve(a, 20 + n * (oid == OID_INT8 ? 12 : oid == OID_INT4 ? 8 : 4));
    pa_put32(a, 1);
    pa_put32(a, has_null ? 1 : 0);
    pa_put32(a, oid);
    pa_put32(a, (uint32_t)n);
    pa_put32(a, 1);
}

void pa_elem(struct pgarr *a, const void *p, size_t n)
{
    if (!p) {
        pa_put32(a, 0xFFFFFFFFu); /* NULL */
        return;
    }
    pa_put32(a, (uint32_t)n);
    pa_bytes(a, p, n);
}

void pa_int8(struct pgarr *a, int64_t v)
{
    uint32_t w[3] = {htonl(8), htonl((uint32_t)((uint64_t)v >> 32)), htonl((uint32_t)v)};
    pa_bytes(a, w, sizeof(w));
}

void pa_int8_or_null(struct pgarr *a, int64_t v)
{
    if (v < 0)
        pa_put32(a, 0xFFFFFFFFu);
    else
        pa_int8(a, v);
}

void pa_int4(struct pgarr *a, int32_t v)
{
    uint32_t w[2] = {htonl(4), htonl((uint32_t)v)};
    pa_bytes(a, w, sizeof(w));
}

struct db_param pa_param(const struct pgarr *a)
{
    struct db_param p = {a->buf, (int)a->len, 1};
    return p;
}


int32_t pgbin_int4(const PGresult *res, int row, int col)
{
    const uint8_t *p = (const uint8_t *)PQgetvalue(res, row, col);
    return (int32_t)(((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3]);
}

size_t pgbin_array_len(const PGresult *res, int row, int col)
{
    const uint8_t *p = (const uint8_t *)PQgetvalue(res, row, col);
    uint32_t v[5];
    if (PQgetisnull(res, row, col) || PQgetlength(res, row, col) < 20) return 0;
    memcpy(v, p, sizeof(v));
    return ntohl(v[0]) == 1 ? ntohl(v[3]) : 0; /* checked again by pgbin_array_elems */
}

long pgbin_array_elems(const uint8_t *p, size_t n, const uint8_t **ptr, size_t *len, size_t max)
{
    size_t at = 12, count = 0;
    uint32_t ndim, dim;

    if (n < 12) return -1;
    ndim = ntohl(*(const uint32_t *)(const void *)p);
    if (ndim == 0) return 0;
    if (ndim != 1 || n < 20) return -1;
    memcpy(&dim, p + 12, 4);
    dim = ntohl(dim);
    at = 20;
    if (dim > max) return -1;
    for (; count < dim; count++) {
        uint32_t l;
        if (n - at < 4) return -1;
        memcpy(&l, p + at, 4);
        l = ntohl(l);
        at += 4;
        if (l == 0xFFFFFFFFu || l > n - at) return -1;
        ptr[count] = p + at;
        len[count] = l;
        at += l;
    }
    return at == n ? (long)count : -1;
}

int64_t pgbin_be64(const uint8_t *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v = v << 8 | p[i];
    return (int64_t)v;
}
