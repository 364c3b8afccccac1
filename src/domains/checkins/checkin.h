/* checkin.h — daily check-ins (seed 002) over HTTP. One bitmap per user for all
 * time, key "checkin:{user}", whose members are the day numbers (days since
 * 1970-01-01, see calendar.h) of the dates the user checked in, in the time zone
 * of [checkin] time_zone. Writes go through wpath; reads through bmload. */
#ifndef BITMAPD_CHECKIN_H
#define BITMAPD_CHECKIN_H

#include "http/http.h"

/* POST /v1/users/{user}/checkins {"date": "YYYY-MM-DD"} (date optional: today) */
void checkin_post(struct http_ctx *c);
/* GET /v1/users/{user}/checkins[?month=YYYY-MM | ?year=YYYY] */
void checkin_get(struct http_ctx *c);
/* GET /v1/users/{user}/checkins/streak[?date=YYYY-MM-DD] */
void checkin_streak(struct http_ctx *c);

/* Writes the key of user's check-ins ("checkin:{user}") into buf (at least
 * CHECKIN_KEY_MAX bytes) and returns its length. */
#define CHECKIN_KEY_MAX 32
size_t checkin_key(char *buf, int64_t user);

#endif
