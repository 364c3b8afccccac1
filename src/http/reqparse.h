/* reqparse.h — pure parsers for request input (path ids, query integers, If-Match,
 * JSON id arrays). No I/O: the HTTP layer turns their failures into 400/413. */
#ifndef BITMAPD_REQPARSE_H
#define BITMAPD_REQPARSE_H

#include <jansson.h>

#include "core/common.h"

/* Decimal digits only (no sign, spaces or exponent), value in [0, max]. */
bool reqparse_decimal(const char *s, int64_t max, int64_t *out) WUR;

/* An optionally negative decimal in [min, max]. */
bool reqparse_int(const char *s, int64_t min, int64_t max, int64_t *out) WUR;

/* If-Match value: "N", N or W/"N". "*" is handled by the caller. */
bool reqparse_if_match(const char *h, int64_t *out) WUR;

enum ids_error { IDS_OK, IDS_NOT_ARRAY, IDS_TOO_MANY, IDS_BAD_ELEMENT, IDS_NO_MEMORY };

/* A JSON array of integers in [min, max], at most max_count long, returned sorted
 * and de-duplicated (malloc'ed; caller frees). On IDS_BAD_ELEMENT *bad_index says which. */
enum ids_error reqparse_ids(const json_t *arr, int64_t min, int64_t max, size_t max_count,
                            int64_t **out, size_t *n, size_t *bad_index) WUR;

#endif
