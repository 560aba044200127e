#include <sqlite3.h>

// SQLite counts every allocation it makes under one process-wide mutex when its memory statistics
// are on (SQLITE_CONFIG_MEMSTATUS; Debian's build leaves them on). An import writes mail.sqlite and
// search.sqlite on two threads while FTS5 allocates for every token: both threads then queue on
// that one mutex (an Enron import made ~200,000 futex calls, most of them from sqlite3Malloc).
// Nothing in MailSearch reads those statistics (sqlite3_memory_used, a soft heap limit), so they
// are turned off before SQLite initializes: this runs when the program is loaded, before main and
// before any database is opened (sqlite3_config refuses once SQLite is initialized).
__attribute__((constructor)) static void ms_sqlite_setup(void) {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}
