/* auth.h — shared-secret checks for both doors (RESP AUTH, HTTP Bearer), in
 * constant time so that response timing says nothing about the secret. */
#ifndef BITMAPD_AUTH_H
#define BITMAPD_AUTH_H

#include <stddef.h>

#include "core/common.h"

/* True when got (gotlen bytes, may hold NULs) equals the NUL-terminated secret.
 * An empty secret matches nothing. The time taken depends on the lengths only,
 * never on where the bytes first differ. */
bool auth_secret_equal(const char *secret, const void *got, size_t gotlen) WUR;

/* The credentials of an Authorization header value: true when it is
 * "Bearer <token>" (scheme case-insensitive, spaces around the token ignored)
 * and the token equals secret. */
bool auth_bearer_ok(const char *secret, const char *header) WUR;

#endif
