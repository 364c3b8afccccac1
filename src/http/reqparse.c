/* reqparse.c — strict parsing of ids and versions: anything but plain digits in
 * range is refused, so "12abc", "+1", "1e3" or 2^63 never become a key. */
#include "http/reqparse.h"

#include <stdlib.h>
#include <string.h>

bool reqparse_decimal(const char *s, int64_t max, int64_t *out)
{
    uint64_t v = 0;
    if (!s || !*s || strlen(s) > 20) return false;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9') return false;
        if (v > (UINT64_MAX - 9) / 10) return false;
        v = v * 10 + (uint64_t)(*p - '0');
    }
    if (v > (uint64_t)max) return false;
    *out = (int64_t)v;
    return true;
}

bool reqparse_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
    int64_t v;
    bool neg = s && s[0] == '-';
    if (!reqparse_decimal(neg ? s + 1 : s, INT64_MAX, &v)) return false;
    if (neg) v = -v;
    if (v < min || v > max) return false;
    *out = v;
    return true;
}

bool reqparse_if_match(const char *h, int64_t *out)
{
    char buf[32];
    size_t len;

    if (strncmp(h, "W/", 2) == 0) h += 2;
    len = strlen(h);
    if (len >= 2 && h[0] == '"' && h[len - 1] == '"') {
        h++;
        len -= 2;
    }
    if (len == 0 || len >= sizeof(buf)) return false;
    memcpy(buf, h, len);
    buf[len] = '\0';
    return reqparse_decimal(buf, INT64_MAX, out);
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

enum ids_error reqparse_ids(const json_t *arr, int64_t min, int64_t max, size_t max_count,
                            int64_t **out, size_t *n, size_t *bad_index)
{
    size_t len, uniq = 0;
    int64_t *ids;

    if (!json_is_array(arr)) return IDS_NOT_ARRAY;
    len = json_array_size(arr);
    if (len > max_count) return IDS_TOO_MANY;
    if (!(ids = malloc((len ? len : 1) * sizeof(*ids)))) return IDS_NO_MEMORY;
    for (size_t i = 0; i < len; i++) {
        json_t *v = json_array_get(arr, i);
        if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
            free(ids);
            *bad_index = i;
            return IDS_BAD_ELEMENT;
        }
        ids[i] = json_integer_value(v);
    }
    qsort(ids, len, sizeof(*ids), cmp_i64);
    for (size_t i = 0; i < len; i++)
        if (uniq == 0 || ids[uniq - 1] != ids[i]) ids[uniq++] = ids[i];
    *out = ids;
    *n = uniq;
    return IDS_OK;
}
