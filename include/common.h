/* common.h — small macros shared by every module. */
#ifndef BITMAPD_COMMON_H
#define BITMAPD_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Functions that can fail are marked so that callers cannot ignore the result. */
#define WUR __attribute__((warn_unused_result))

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

#endif
