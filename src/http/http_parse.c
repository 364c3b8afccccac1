/* http_parse.c — the helpers handlers turn path parameters, query parameters and
 * body fields into values with (strict parsing in reqparse.c); each answers 400 or 413
 * itself and returns false on bad input. */
#include <string.h>
#include <sys/queue.h>

#include "http/http.h"
#include "http/reqparse.h"

/* ---- parsing helpers ------------------------------------------------------------ */

bool http_param_user_or_reply(struct http_ctx *c, int idx, int64_t *out)
{
    if (c->match.param_truncated[idx] || !reqparse_decimal(c->match.params[idx], USER_ID_MAX, out)) {
        http_reply_error(c, 400, "invalid_id", "user id must be an integer from 0 to %lld",
                         (long long)USER_ID_MAX);
        return false;
    }
    return true;
}

bool http_param_msg_or_reply(struct http_ctx *c, int idx, uint32_t *out)
{
    int64_t v;
    if (c->match.param_truncated[idx] || !reqparse_decimal(c->match.params[idx], MSG_ID_MAX, &v)) {
        http_reply_error(c, 400, "invalid_id", "message id must be an integer from 0 to %lld",
                         MSG_ID_MAX);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

bool http_query_int_or_reply(struct http_ctx *c, const char *name, int64_t min, int64_t max,
                             int64_t *out, bool *present)
{
    const char *s = evhttp_find_header(&c->query, name);

    *present = s != NULL;
    if (s && !reqparse_int(s, min, max, out)) {
        http_reply_error(c, 400, "invalid_parameter", "%s must be an integer from %lld to %lld", name,
                         (long long)min, (long long)max);
        return false;
    }
    return true;
}

bool http_query_only_or_reply(struct http_ctx *c, const char *const *names)
{
    struct evkeyval *kv;
    TAILQ_FOREACH(kv, &c->query, next)
    {
        bool known = false;
        for (const char *const *n = names; *n && !known; n++) known = strcmp(*n, kv->key) == 0;
        if (!known) {
            http_reply_error(c, 400, "invalid_parameter", "unknown query parameter '%.64s'", kv->key);
            return false;
        }
        if (evhttp_find_header(&c->query, kv->key) != kv->value) {
            http_reply_error(c, 400, "invalid_parameter", "query parameter '%.64s' given twice", kv->key);
            return false;
        }
    }
    return true;
}

bool http_body_or_reply(struct http_ctx *c)
{
    if (!c->body) {
        http_reply_error(c, 400, "invalid_json", "this request needs a JSON object body");
        return false;
    }
    return true;
}

bool http_body_fields_or_reply(struct http_ctx *c, const char *const *names)
{
    const char *key;
    json_t *val;
    json_object_foreach(c->body, key, val)
    {
        bool known = false;
        for (const char *const *n = names; *n && !known; n++) known = strcmp(*n, key) == 0;
        if (!known) {
            http_reply_error(c, 400, "invalid_body", "unknown field '%.64s'", key);
            return false;
        }
    }
    return true;
}

bool http_json_ids_or_reply(struct http_ctx *c, const json_t *arr, const char *field, int64_t min,
                            int64_t max, int64_t **out, size_t *n)
{
    size_t bad = 0;
    switch (reqparse_ids(arr, min, max, (size_t)c->app->cfg->http_max_ids, out, n, &bad)) {
    case IDS_OK:
        return true;
    case IDS_NOT_ARRAY:
        http_reply_error(c, 400, "invalid_body", "'%s' must be an array of integers", field);
        return false;
    case IDS_TOO_MANY:
        http_reply_error(c, 413, "too_many_ids", "'%s' has %zu entries; the limit is %d", field,
                         json_array_size(arr), c->app->cfg->http_max_ids);
        return false;
    case IDS_BAD_ELEMENT:
        http_reply_error(c, 400, "invalid_id", "'%s'[%zu] must be an integer from %lld to %lld", field,
                         bad, (long long)min, (long long)max);
        return false;
    case IDS_NO_MEMORY:
    default:
        http_reply_error(c, 500, "internal", "out of memory");
        return false;
    }
}

bool http_body_bool_or_reply(struct http_ctx *c, const char *field, bool *out)
{
    json_t *v = json_object_get(c->body, field);
    *out = false;
    if (!v) return true;
    if (!json_is_boolean(v)) {
        http_reply_error(c, 400, "invalid_body", "'%s' must be true or false", field);
        return false;
    }
    *out = json_is_true(v);
    return true;
}

bool http_body_int_or_reply(struct http_ctx *c, const char *field, int64_t min, int64_t max,
                            bool required, int64_t *out, bool *present)
{
    json_t *v = json_object_get(c->body, field);
    if (present) *present = v != NULL;
    if (!v) {
        if (!required) return true;
        http_reply_error(c, 400, "invalid_body", "'%s' is required", field);
        return false;
    }
    if (!json_is_integer(v) || json_integer_value(v) < min || json_integer_value(v) > max) {
        http_reply_error(c, 400, "invalid_body", "'%s' must be an integer from %lld to %lld", field,
                         (long long)min, (long long)max);
        return false;
    }
    *out = json_integer_value(v);
    return true;
}

bool http_param_int_or_reply(struct http_ctx *c, int idx, const char *what, int64_t max, int64_t *out)
{
    if (c->match.param_truncated[idx] || !reqparse_decimal(c->match.params[idx], max, out)) {
        http_reply_error(c, 400, "invalid_id", "%s must be an integer from 0 to %lld", what, (long long)max);
        return false;
    }
    return true;
}
