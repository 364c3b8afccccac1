/* log.c — structured log lines on stderr. The caller's format supplies
 * `msg="…" key=value` pairs; this adds the timestamp and the level. */
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>

enum log_level log_current_level = LOG_LEVEL_INFO;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

bool log_parse_level(const char *s, enum log_level *out)
{
    for (size_t i = 0; i < ARRAY_LEN(level_names); i++) {
        if (strcmp(s, level_names[i]) == 0) {
            *out = (enum log_level)i;
            return true;
        }
    }
    return false;
}

const char *log_quote(char *dst, size_t n, const void *src, size_t len)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = src;
    size_t o = 0;
    for (size_t i = 0; i < len && n > 0; i++) {
        char e[4];
        size_t el = 0;
        if (p[i] == '\\' || p[i] == '"') {
            e[el++] = '\\';
            e[el++] = (char)p[i];
        } else if (p[i] < 0x20 || p[i] > 0x7e) {
            e[el++] = '\\';
            e[el++] = 'x';
            e[el++] = hex[p[i] >> 4];
            e[el++] = hex[p[i] & 15];
        } else {
            e[el++] = (char)p[i];
        }
        if (o + el >= n) break;
        memcpy(dst + o, e, el);
        o += el;
    }
    if (n > 0) dst[o] = '\0';
    return dst;
}

void log_write(enum log_level level, const char *fmt, ...)
{
    struct timeval tv;
    struct tm tm;
    char ts[32];
    va_list ap;

    gettimeofday(&tv, NULL);
    gmtime_r(&tv.tv_sec, &tm);
    strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%S", &tm);
    fprintf(stderr, "ts=%s.%03dZ level=%s ", ts, (int)(tv.tv_usec / 1000), level_names[level]);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}
