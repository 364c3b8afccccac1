-- 0002: period boundaries of the message box. Period P (a calendar month, 'YYYY-MM')
-- holds the message ids from its first_message up to the next period's first_message.
-- bitmapd records a month's boundary from the first push it commits in that month;
-- operators may set or correct one (PUT /v1/periods/{period}, or UPDATE here).
CREATE TABLE bitmapd.inbox_periods (
    period        text   PRIMARY KEY CHECK (period ~ '^[0-9]{4}-(0[1-9]|1[0-2])$'),
    first_message bigint NOT NULL CHECK (first_message BETWEEN 0 AND 4294967295)
);
