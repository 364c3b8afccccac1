/* test_router.c — route matching: captures, 404 vs 405 with Allow, and the
 * path shapes a client can get wrong. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "http/router.h"
#include "app/routes.h"

static void h(struct http_ctx *c) { (void)c; }

static const struct route table[] = {
    {"GET", "/healthz", h, "healthz"},
    {"POST", "/v1/users/{user}/pushes", h, "push"},
    {"GET", "/v1/users/{user}/messages/{msg}", h, "message"},
    {"DELETE", "/v1/users/{user}/messages/{msg}", h, "retract"},
    {"GET", "/v1/users/{user}/messages", h, "list"},
};

static enum route_result m(const char *method, const char *path, struct route_match *out)
{
    return router_match(table, sizeof(table) / sizeof(table[0]), method, path, out);
}

static void test_captures(void **state)
{
    struct route_match rm;
    assert_int_equal(m("GET", "/v1/users/42/messages/7", &rm), ROUTE_FOUND);
    assert_string_equal(rm.route->name, "message");
    assert_int_equal(rm.nparams, 2);
    assert_string_equal(rm.params[0], "42");
    assert_string_equal(rm.params[1], "7");
    assert_int_equal(m("GET", "/v1/users/42/messages", &rm), ROUTE_FOUND);
    assert_string_equal(rm.route->name, "list");
    assert_int_equal(rm.nparams, 1);
}

static void test_not_found(void **state)
{
    struct route_match rm;
    const char *bad[] = {"/", "/v1", "/v1/users/42", "/v1/users/42/", "/v1/users//pushes",
                         "/v1/users/42/pushes/", "/v1/users/42/nothing", "/healthz/x", "//healthz",
                         "/v1/users/42/messages/7/8"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(m("GET", bad[i], &rm), ROUTE_NOT_FOUND);
}

static void test_method_not_allowed(void **state)
{
    struct route_match rm;
    assert_int_equal(m("PUT", "/v1/users/1/pushes", &rm), ROUTE_BAD_METHOD);
    assert_string_equal(rm.allow, "POST");
    assert_int_equal(m("POST", "/v1/users/1/messages/2", &rm), ROUTE_BAD_METHOD);
    assert_string_equal(rm.allow, "GET, DELETE");
}

static void test_long_segment_is_marked_truncated(void **state)
{
    struct route_match rm;
    char path[256] = "/v1/users/";
    memset(path + strlen(path), '9', 100);
    strcpy(path + 10 + 100, "/pushes");
    assert_int_equal(m("POST", path, &rm), ROUTE_FOUND);
    assert_true(rm.param_truncated[0]);
    assert_int_equal(strlen(rm.params[0]), ROUTE_PARAM_MAX - 1);
}

static void test_real_table_is_consistent(void **state)
{
    size_t n;
    const struct route *r = app_routes(&n);
    struct route_match rm;
    assert_true(n >= 8);
    /* every route is reachable by its own pattern with sample ids */
    for (size_t i = 0; i < n; i++) {
        char path[256] = "";
        const char *p = r[i].pattern;
        while (*p) {
            if (*p == '{') {
                strcat(path, strncmp(p, "{period}", 8) == 0 ? "2026-01" : "1");
                p = strchr(p, '}') + 1;
            } else {
                strncat(path, p, 1);
                p++;
            }
        }
        assert_int_equal(router_match(r, n, r[i].method, path, &rm), ROUTE_FOUND);
        assert_ptr_equal(rm.route, &r[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_captures),
        cmocka_unit_test(test_not_found),
        cmocka_unit_test(test_method_not_allowed),
        cmocka_unit_test(test_long_segment_is_marked_truncated),
        cmocka_unit_test(test_real_table_is_consistent),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
