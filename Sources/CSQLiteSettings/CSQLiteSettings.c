#include "CSQLiteSettings.h"
#include <pthread.h>
#include <sqlite3.h>

static pthread_once_t configured = PTHREAD_ONCE_INIT;
static int result = SQLITE_OK;

static void configure(void) {
    result = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

int farelens_sqlite_configure_once(void) {
    pthread_once(&configured, configure);
    return result;
}
