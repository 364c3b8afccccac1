/* log.h — one structured line per event: ts=… level=… msg="…" key=value…
 * The level is checked before any formatting happens. */
#ifndef BITMAPD_LOG_H
#define BITMAPD_LOG_H

#include "core/common.h"

enum log_level { LOG_LEVEL_ERROR = 0, LOG_LEVEL_WARN, LOG_LEVEL_INFO, LOG_LEVEL_DEBUG };

extern enum log_level log_current_level;

/* Parses "error|warn|info|debug"; false for anything else. */
bool log_parse_level(const char *s, enum log_level *out) WUR;

/* Writes len bytes of src into dst (size n, always NUL-terminated, cut short if
 * needed) so that they can stand inside a quoted log value: backslash, double
 * quote and every byte outside printable ASCII become \\, \" and \xHH. Keys are
 * binary-safe and clients choose them; unescaped they could forge log fields. */
const char *log_quote(char *dst, size_t n, const void *src, size_t len);

void log_write(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define LOG_AT(lvl, ...)                                                                           \
    do {                                                                                           \
        if ((lvl) <= log_current_level) log_write((lvl), __VA_ARGS__);                             \
    } while (0)
#define log_error(...) LOG_AT(LOG_LEVEL_ERROR, __VA_ARGS__)
#define log_warn(...) LOG_AT(LOG_LEVEL_WARN, __VA_ARGS__)
#define log_info(...) LOG_AT(LOG_LEVEL_INFO, __VA_ARGS__)
#define log_debug(...) LOG_AT(LOG_LEVEL_DEBUG, __VA_ARGS__)

#endif
