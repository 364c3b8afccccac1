/* test_reqparse.c — request parsing: ids, query integers, If-Match, JSON id arrays. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>

#include "http/reqparse.h"

static void test_decimal(void **state)
{
    int64_t v;
    assert_true(reqparse_decimal("0", INT64_MAX, &v));
    assert_int_equal(v, 0);
    assert_true(reqparse_decimal("9223372036854775807", INT64_MAX, &v));
    assert_int_equal(v, INT64_MAX);
    assert_false(reqparse_decimal("9223372036854775808", INT64_MAX, &v));
    assert_false(reqparse_decimal("99999999999999999999", INT64_MAX, &v));
    assert_false(reqparse_decimal("184467440737095516160", INT64_MAX, &v));
    assert_true(reqparse_decimal("4294967295", 4294967295LL, &v));
    assert_false(reqparse_decimal("4294967296", 4294967295LL, &v));
    const char *bad[] = {"", "-1", "+1", " 1", "1 ", "1e3", "0x10", "12abc", "1.0", NULL};
    for (int i = 0; bad[i]; i++) assert_false(reqparse_decimal(bad[i], INT64_MAX, &v));
    assert_false(reqparse_decimal(NULL, INT64_MAX, &v));
}

static void test_int(void **state)
{
    int64_t v;
    assert_true(reqparse_int("-5", -10, 10, &v));
    assert_int_equal(v, -5);
    assert_false(reqparse_int("-11", -10, 10, &v));
    assert_false(reqparse_int("0", 1, 10, &v));
    assert_false(reqparse_int("--1", -10, 10, &v));
    assert_false(reqparse_int("-", -10, 10, &v));
}

static void test_if_match(void **state)
{
    int64_t v;
    assert_true(reqparse_if_match("\"17\"", &v));
    assert_int_equal(v, 17);
    assert_true(reqparse_if_match("17", &v));
    assert_true(reqparse_if_match("W/\"3\"", &v));
    assert_int_equal(v, 3);
    assert_false(reqparse_if_match("\"\"", &v));
    assert_false(reqparse_if_match("\"abc\"", &v));
    assert_false(reqparse_if_match("\"1\", \"2\"", &v));
}

static void test_ids(void **state)
{
    json_error_t e;
    int64_t *ids;
    size_t n, bad;
    json_t *j = json_loads("[5, 3, 5, 0, 4294967295]", 0, &e);
    assert_int_equal(reqparse_ids(j, 0, 4294967295LL, 10, &ids, &n, &bad), IDS_OK);
    assert_int_equal(n, 4);
    assert_int_equal(ids[0], 0);
    assert_int_equal(ids[1], 3);
    assert_int_equal(ids[2], 5);
    assert_int_equal(ids[3], 4294967295LL);
    free(ids);
    assert_int_equal(reqparse_ids(j, 0, 4294967295LL, 4, &ids, &n, &bad), IDS_TOO_MANY);
    json_decref(j);

    const char *bads[] = {"[1, -1]", "[1, 4294967296]", "[1, 2.0]", "[1, \"2\"]", "[1, null]",
                          "[1, true]", "[1, [2]]", NULL};
    for (int i = 0; bads[i]; i++) {
        j = json_loads(bads[i], 0, &e);
        assert_non_null(j);
        assert_int_equal(reqparse_ids(j, 0, 4294967295LL, 10, &ids, &n, &bad), IDS_BAD_ELEMENT);
        assert_int_equal(bad, 1);
        json_decref(j);
    }
    j = json_loads("{\"a\": 1}", 0, &e);
    assert_int_equal(reqparse_ids(j, 0, 10, 10, &ids, &n, &bad), IDS_NOT_ARRAY);
    json_decref(j);
    j = json_loads("[]", 0, &e);
    assert_int_equal(reqparse_ids(j, 0, 10, 10, &ids, &n, &bad), IDS_OK);
    assert_int_equal(n, 0);
    free(ids);
    json_decref(j);
}

/* jansson refuses integers past int64 instead of wrapping them. */
static void test_json_overflow_refused(void **state)
{
    json_error_t e;
    assert_null(json_loads("[9223372036854775808]", 0, &e));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decimal),   cmocka_unit_test(test_int), cmocka_unit_test(test_if_match),
        cmocka_unit_test(test_ids),       cmocka_unit_test(test_json_overflow_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
