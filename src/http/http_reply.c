/* http_reply.c — the replies handlers send, built on http_reply_text() (http.c): JSON
 * with an optional ETag, {"error": …} with a UTF-8-safe message, and the answers to a
 * failed query, write or load. Each frees the request. */
#include <event2/buffer.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/log.h"
#include "http/http.h"

/* ---- replies ------------------------------------------------------------------ */

void http_reply_json(struct http_ctx *c, int status, json_t *obj, int64_t etag)
{
    struct evbuffer *buf = NULL;
    char *text = NULL;

    if (!c->gone) {
        text = obj ? json_dumps(obj, JSON_COMPACT) : NULL;
        if (!text) { /* out of memory, or a value jansson refused */
            static const char fallback[] =
                "{\"error\":{\"code\":\"internal\",\"message\":\"the reply could not be encoded\"}}";
            text = strdup(fallback);
            status = 500;
            etag = -1;
        }
        if (etag >= 0) {
            char tag[32];
            snprintf(tag, sizeof(tag), "\"%lld\"", (long long)etag);
            evhttp_add_header(evhttp_request_get_output_headers(c->req), "ETag", tag);
        }
        if ((buf = evbuffer_new()) != NULL && text) {
            evbuffer_add(buf, text, strlen(text));
            evbuffer_add(buf, "\n", 1);
        }
    }
    json_decref(obj);
    http_reply_text(c, status, "application/json", buf);
    if (buf) evbuffer_free(buf);
    free(text);
}

/* Replaces, in place, every byte that does not belong to a well-formed UTF-8
 * sequence with '?': messages quote client bytes (a path, a query key, a body key
 * cut at 64 bytes), and JSON strings must be UTF-8 (json_pack refuses anything else,
 * which left the error reply without a body). */
static void utf8_scrub(char *s)
{
    unsigned char *p = (unsigned char *)s;
    while (*p) {
        int n = *p < 0x80 ? 0 : (*p & 0xe0) == 0xc0 ? 1 : (*p & 0xf0) == 0xe0 ? 2 : (*p & 0xf8) == 0xf0 ? 3 : -1;
        bool ok = n >= 0 && !(n == 1 && *p < 0xc2) && !(n == 3 && *p > 0xf4);
        for (int i = 1; ok && i <= n; i++) ok = (p[i] & 0xc0) == 0x80;
        if (ok && n == 2) { /* no overlong forms, no UTF-16 surrogates */
            unsigned cp = ((p[0] & 0x0fu) << 12) | ((p[1] & 0x3fu) << 6);
            ok = cp >= 0x800 && (cp < 0xd800 || cp > 0xdfff);
        }
        if (ok && n == 3) {
            unsigned cp = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3fu) << 12);
            ok = cp >= 0x10000 && cp <= 0x10ffff;
        }
        if (!ok) {
            *p++ = '?';
            continue;
        }
        p += n + 1;
    }
}

void http_reply_error(struct http_ctx *c, int status, const char *code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    utf8_scrub(msg);
    if (status >= 500) {
        char quoted[4 * sizeof(msg)];
        log_warn("msg=\"request failed\" route=%s status=%d code=%s detail=\"%s\"",
                 c->route ? c->route->name : "-", status, code, log_quote(quoted, sizeof(quoted), msg, strlen(msg)));
    }
    http_reply_json(c, status, json_pack("{s:{s:s,s:s}}", "error", "code", code, "message", msg), -1);
}

void http_reply_db_failure(struct http_ctx *c, const struct db_result *r)
{
    if (r->status == DB_UNAVAILABLE)
        http_reply_error(c, 503, "db_unavailable", "database unavailable: %s", r->message ? r->message : "");
    else
        http_reply_error(c, 500, "internal", "%s", r->message ? r->message : "query failed");
}

/* ---- failures of the write path and of loads --------------------------------------- */

void http_reply_wp_failure(struct http_ctx *c, enum wp_status st, const char *msg)
{
    switch (st) {
    case WP_UNAVAILABLE:
        http_reply_error(c, 503, "db_unavailable", "database unavailable; %s", msg ? msg : "no connection");
        break;
    case WP_CONFLICTED:
        http_reply_error(c, 503, "conflict_retries_exhausted",
                         "too many concurrent writers to the same key; try again");
        break;
    case WP_CORRUPT:
        http_reply_error(c, 500, "corrupt_bitmap", "%s", msg ? msg : "a stored bitmap is corrupt");
        break;
    default:
        http_reply_error(c, 500, "internal", "%s", msg ? msg : "internal error");
        break;
    }
}

void http_reply_unit_failure(struct http_ctx *c, const struct wp_unit *u)
{
    http_reply_wp_failure(c, u->status, u->status == WP_CORRUPT ? u->error : NULL);
}

void http_reply_bmload_failure(struct http_ctx *c, enum bmload_status st, const char *msg)
{
    switch (st) {
    case BMLOAD_UNAVAILABLE:
        http_reply_error(c, 503, "db_unavailable", "database unavailable: %s", msg ? msg : "");
        break;
    case BMLOAD_CORRUPT:
        http_reply_error(c, 500, "corrupt_bitmap", "%s", msg ? msg : "a stored bitmap is corrupt");
        break;
    default:
        http_reply_error(c, 500, "internal", "%s", msg ? msg : "query failed");
        break;
    }
}
