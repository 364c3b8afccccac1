/* app.h — the process-wide objects every handler reaches through its request. */
#ifndef BITMAPD_APP_H
#define BITMAPD_APP_H

#include <event2/event.h>
#include <time.h>

#include "core/common.h"

struct config;
struct db;
struct store;

struct app {
    const struct config *cfg;
    struct event_base *base;
    struct db *db;
    struct store *store;
    time_t started;
};

#endif
