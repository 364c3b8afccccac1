/* test_log.c — log_quote: client-chosen bytes cannot forge log fields or lines. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "core/log.h"

static void test_quote(void **state)
{
    char out[64];
    (void)state;
    assert_string_equal(log_quote(out, sizeof(out), "message:push:7", 14), "message:push:7");
    assert_string_equal(log_quote(out, sizeof(out), "a\" level=error x=\"", 18), "a\\\" level=error x=\\\"");
    assert_string_equal(log_quote(out, sizeof(out), "a\nts=1", 6), "a\\x0ats=1");
    assert_string_equal(log_quote(out, sizeof(out), "k\0z", 3), "k\\x00z");
    assert_string_equal(log_quote(out, sizeof(out), "\\\xff", 2), "\\\\\\xff");
}

static void test_quote_truncates_whole_escapes(void **state)
{
    char out[6];
    (void)state;
    /* "ab" fits, the 4-byte escape of \x01 would not: it is left out, not cut */
    assert_string_equal(log_quote(out, sizeof(out), "ab\x01zz", 5), "ab");
    assert_string_equal(log_quote(out, 1, "abc", 3), "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quote),
        cmocka_unit_test(test_quote_truncates_whole_escapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
