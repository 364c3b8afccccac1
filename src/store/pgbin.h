/* pgbin.h — PostgreSQL's binary format, as the store sends and reads it: arrays built
 * for parameters (bytea[], int8[], int4[]: keys, bits and versions never travel as
 * hex or text), and values read from binary results. */
#ifndef BITMAPD_PGBIN_H
#define BITMAPD_PGBIN_H

#include <libpq-fe.h>

#include "core/common.h"
#include "store/db.h"

#define OID_BYTEA 17
#define OID_INT8 20
#define OID_INT4 23

/* A one-dimensional array parameter under construction; oom once an allocation failed
 * (the caller then sends nothing). */
struct pgarr {
    uint8_t *buf;
    size_t len, cap;
    bool oom;
};

/* Starts an array of n elements of type oid (has_null: some element will be NULL). */
void pa_begin(struct pgarr *a, uint32_t oid, size_t n, bool has_null);
/* An element of n bytes (bytea); p NULL: a NULL element. */
void pa_elem(struct pgarr *a, const void *p, size_t n);
void pa_int8(struct pgarr *a, int64_t v);
void pa_int8_or_null(struct pgarr *a, int64_t v); /* v < 0: NULL */
void pa_int4(struct pgarr *a, int32_t v);
/* The finished array as a binary parameter (borrows a->buf). */
struct db_param pa_param(const struct pgarr *a);

/* An int4 column of a binary result. */
int32_t pgbin_int4(const PGresult *res, int row, int col);
/* A big-endian int8 as it travels. */
int64_t pgbin_be64(const uint8_t *p);
/* The length a one-dimensional array column announces (0 for NULL or no array);
 * checked again by pgbin_array_elems. */
size_t pgbin_array_len(const PGresult *res, int row, int col);
/* The elements of a one-dimensional array in binary format: at most max of them into
 * ptr/len (NULL elements are refused). Returns the count, or -1 when the bytes are not
 * such an array. */
long pgbin_array_elems(const uint8_t *p, size_t n, const uint8_t **ptr, size_t *len, size_t max);

#endif
