/* unread_rules.h — the rules of seed 001's unread counts, as functions of plain values
 * (no HTTP, no database), unit-tested in tests/test_unread_rules.c. The handlers
 * (unread_broadcasts.c, unread_reddots.c, unread_feed.c) load the values, call these
 * and answer. What the tables decide in one statement (a cursor never moves back, a
 * red dot shows while its setting number is above the user's click, a feed's counts
 * against the snapshots) is in sql/070_unread.sql. */
#ifndef BITMAPD_UNREAD_RULES_H
#define BITMAPD_UNREAD_RULES_H

#include <roaring/roaring.h>

#include "core/common.h"

/* Members of bm that are <= x (0 for x < 0). */
uint64_t unread_count_upto(const roaring_bitmap_t *bm, int64_t x);

/* Broadcasts in list after a user's cursor last_seen (-1: recorded before any
 * broadcast, so every one counts). A user with no cursor (never seen, or cleared
 * when idle) has 0 unread: the seed counts only what appeared since a user's first
 * visit. */
uint64_t unread_broadcasts_after(const roaring_bitmap_t *list, bool has_cursor, int64_t last_seen);

/* Where POST …/broadcasts/seen moves a cursor: to id when given, else to the newest
 * broadcast, else (no broadcast yet) to -1, which records the user so that every
 * later broadcast counts. The store keeps the greater of this and the old cursor. */
int64_t unread_seen_target(const roaring_bitmap_t *list, bool has_id, int64_t id);

/* Red dot names: 1 .. UNREAD_REDDOT_NAME_MAX characters of [A-Za-z0-9_.:-]. */
#define UNREAD_REDDOT_NAME_MAX 64
bool unread_reddot_name_valid(const char *s, size_t len) WUR;

#endif
