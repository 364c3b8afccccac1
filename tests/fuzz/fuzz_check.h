/* fuzz_check.h — what every fuzz target uses to state a property: CHECK(cond, fmt, ...)
 * prints the broken invariant and aborts, so libFuzzer saves the input as a crash.
 * It writes to file descriptor 2 directly, because a target may have pointed the
 * stderr FILE elsewhere to catch library output. */
#ifndef BITMAPD_FUZZ_CHECK_H
#define BITMAPD_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            dprintf(STDERR_FILENO, "\n%s:%d: property violated: %s\n  ", __FILE__, __LINE__,      \
                    #cond);                                                                        \
            dprintf(STDERR_FILENO, __VA_ARGS__);                                                   \
            dprintf(STDERR_FILENO, "\n");                                                          \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

/* For the targets' own reference code: no coverage feedback (and no comparison
 * tracing) from it, so that libFuzzer steers by the project's code and the
 * checks run at full speed. Sanitizers stay on. */
#define FUZZ_NOCOV __attribute__((no_sanitize("coverage")))

/* A bounded cursor over the fuzz input, for targets that read a small program from it.
 * Reading past the end yields zeros, so every input is a complete program. */
struct fuzz_in {
    const unsigned char *p;
    size_t n, pos;
};

static inline unsigned fuzz_u8(struct fuzz_in *in)
{
    return in->pos < in->n ? in->p[in->pos++] : 0;
}

static inline unsigned fuzz_u16(struct fuzz_in *in)
{
    unsigned lo = fuzz_u8(in);
    return lo | fuzz_u8(in) << 8;
}

static inline unsigned long fuzz_u32(struct fuzz_in *in)
{
    unsigned long lo = fuzz_u16(in);
    return lo | (unsigned long)fuzz_u16(in) << 16;
}

static inline int fuzz_done(const struct fuzz_in *in)
{
    return in->pos >= in->n;
}

#endif
