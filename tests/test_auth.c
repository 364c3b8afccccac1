/* test_auth.c — the shared-secret comparison and the Bearer header parser. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "core/auth.h"

static void test_secret_equal(void **state)
{
    (void)state;
    assert_true(auth_secret_equal("s3cret", "s3cret", 6));
    assert_false(auth_secret_equal("s3cret", "s3cre", 5));     /* prefix */
    assert_false(auth_secret_equal("s3cret", "s3cretx", 7));   /* longer */
    assert_false(auth_secret_equal("s3cret", "S3cret", 6));    /* case */
    assert_false(auth_secret_equal("s3cret", "s3crep", 6));    /* last byte */
    assert_false(auth_secret_equal("abab", "abababab", 8));    /* the secret repeated */
    assert_false(auth_secret_equal("s3cret", "s3cret\0", 7));  /* a NUL after it */
    assert_false(auth_secret_equal("", "", 0));                /* no secret: nothing matches */
    assert_false(auth_secret_equal("", "x", 1));
    assert_false(auth_secret_equal("x", "", 0));
}

static void test_bearer(void **state)
{
    (void)state;
    assert_true(auth_bearer_ok("tok", "Bearer tok"));
    assert_true(auth_bearer_ok("tok", "bearer tok"));
    assert_true(auth_bearer_ok("tok", "BEARER   tok  "));
    assert_false(auth_bearer_ok("tok", "Bearer"));
    assert_false(auth_bearer_ok("tok", "Bearer "));
    assert_false(auth_bearer_ok("tok", "Bearertok"));
    assert_false(auth_bearer_ok("tok", "Basic dG9rOg=="));
    assert_false(auth_bearer_ok("tok", "Bearer tok2"));
    assert_false(auth_bearer_ok("tok", "Bearer to k"));
    assert_false(auth_bearer_ok("tok", NULL));
    assert_false(auth_bearer_ok("", "Bearer "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_secret_equal),
        cmocka_unit_test(test_bearer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
