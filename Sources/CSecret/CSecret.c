#include "CSecret.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* glib and libsecret types, declared here as the headers (glib 2.74, libsecret 0.20) define
   them; only what the calls below touch. */
typedef int gboolean;
typedef char gchar;
typedef unsigned int guint;
typedef unsigned int GQuark;
typedef void *gpointer;
typedef const void *gconstpointer;
typedef struct _GHashTable GHashTable;
typedef struct _GCancellable GCancellable;
typedef struct _GDBusConnection GDBusConnection;
enum { G_BUS_TYPE_SESSION = 2 };
typedef guint (*GHashFunc)(gconstpointer key);
typedef gboolean (*GEqualFunc)(gconstpointer a, gconstpointer b);

typedef struct {
    GQuark domain;
    int code;
    gchar *message;
} GError;

typedef enum {
    SECRET_SCHEMA_ATTRIBUTE_STRING = 0,
    SECRET_SCHEMA_ATTRIBUTE_INTEGER = 1,
    SECRET_SCHEMA_ATTRIBUTE_BOOLEAN = 2,
} SecretSchemaAttributeType;

typedef struct {
    const gchar *name;
    SecretSchemaAttributeType type;
} SecretSchemaAttribute;

typedef enum {
    SECRET_SCHEMA_NONE = 0,
    SECRET_SCHEMA_DONT_MATCH_NAME = 1 << 1,
} SecretSchemaFlags;

typedef struct {
    const gchar *name;
    SecretSchemaFlags flags;
    SecretSchemaAttribute attributes[32];
    int reserved;
    gpointer reserved1, reserved2, reserved3, reserved4, reserved5, reserved6, reserved7;
} SecretSchema;

struct ms_libsecret {
    void *handle;
    gboolean (*storev_sync)(const SecretSchema *, GHashTable *, const gchar *collection, const gchar *label,
                            const gchar *password, GCancellable *, GError **);
    gchar *(*lookupv_sync)(const SecretSchema *, GHashTable *, GCancellable *, GError **);
    gboolean (*clearv_sync)(const SecretSchema *, GHashTable *, GCancellable *, GError **);
    void (*password_free)(gchar *);
    GHashTable *(*hash_table_new)(GHashFunc, GEqualFunc);
    GHashFunc str_hash;
    GEqualFunc str_equal;
    gboolean (*hash_table_insert)(GHashTable *, gpointer key, gpointer value);
    void (*hash_table_unref)(GHashTable *);
    void (*error_free)(GError *);
    const gchar *(*quark_to_string)(GQuark);
    GDBusConnection *(*bus_get_sync)(int bus_type, GCancellable *, GError **);
    void (*set_exit_on_close)(GDBusConnection *, gboolean);
    gboolean (*connection_is_closed)(GDBusConnection *);
    void (*object_unref)(gpointer);
};

static const SecretSchema schema = {
    "org.mailsearch.Account",
    SECRET_SCHEMA_NONE,
    {
        {"account", SECRET_SCHEMA_ATTRIBUTE_STRING},
        {"purpose", SECRET_SCHEMA_ATTRIBUTE_STRING},
        {NULL, 0},
    },
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

static void set_error(ms_secret_error *error, const char *domain, int code, const char *message) {
    if (!error) return;
    snprintf(error->domain, sizeof error->domain, "%s", domain ? domain : "");
    error->code = code;
    snprintf(error->message, sizeof error->message, "%s", message ? message : "");
}

/* Copies a GError into `error` and frees it. */
static void take_gerror(ms_libsecret *lib, GError *gerror, ms_secret_error *error) {
    if (!gerror) {
        set_error(error, "mailsearch-libsecret", 0, "libsecret failed without saying why");
        return;
    }
    const char *domain = lib->quark_to_string ? lib->quark_to_string(gerror->domain) : NULL;
    set_error(error, domain ? domain : "unknown", gerror->code, gerror->message);
    lib->error_free(gerror);
}

ms_libsecret *ms_libsecret_open(const char *library, ms_secret_error *error) {
    void *handle = dlopen(library, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *why = dlerror();
        set_error(error, "mailsearch-libsecret-missing", 0, why ? why : library);
        return NULL;
    }
    ms_libsecret *lib = calloc(1, sizeof *lib);
    if (!lib) {
        set_error(error, "mailsearch-libsecret-missing", 0, "out of memory");
        return NULL;
    }
    lib->handle = handle;
    /* dlsym on libsecret's handle also searches the libraries it depends on (glib). */
#define FIND(field, name)                                                               \
    do {                                                                                \
        *(void **)(&lib->field) = dlsym(handle, name);                                  \
        if (!lib->field) {                                                              \
            char message[256];                                                          \
            snprintf(message, sizeof message, "%s has no function %s", library, name);  \
            set_error(error, "mailsearch-libsecret-missing", 0, message);               \
            free(lib);                                                                  \
            dlclose(handle);                                                            \
            return NULL;                                                                \
        }                                                                               \
    } while (0)
    FIND(storev_sync, "secret_password_storev_sync");
    FIND(lookupv_sync, "secret_password_lookupv_sync");
    FIND(clearv_sync, "secret_password_clearv_sync");
    FIND(password_free, "secret_password_free");
    FIND(hash_table_new, "g_hash_table_new");
    FIND(str_hash, "g_str_hash");
    FIND(str_equal, "g_str_equal");
    FIND(hash_table_insert, "g_hash_table_insert");
    FIND(hash_table_unref, "g_hash_table_unref");
    FIND(error_free, "g_error_free");
    FIND(quark_to_string, "g_quark_to_string");
    FIND(bus_get_sync, "g_bus_get_sync");
    FIND(set_exit_on_close, "g_dbus_connection_set_exit_on_close");
    FIND(connection_is_closed, "g_dbus_connection_is_closed");
    FIND(object_unref, "g_object_unref");
#undef FIND
    return lib;
}

/* The session bus, before libsecret uses it: gio's shared connection to it has exit-on-close set,
   which raises SIGTERM in this process when the bus goes away (a desktop session ending, a keyring
   restarted with its bus) once the connection's "closed" signal is dispatched in glib's main
   context. Nothing in MailSearch iterates that context today, so it would not fire; turned off all
   the same, so that a server outlives its bus whatever else comes to run glib's main loop.
   libsecret takes the same shared connection. Returns
   0 and fills `error` when no session bus can be reached, or when the shared connection was closed:
   gio keeps handing out the closed one while libsecret's cached service holds it, so a process
   cannot reconnect (domain "mailsearch-bus-closed"). */
static int prepare_bus(ms_libsecret *lib, ms_secret_error *error) {
    GError *gerror = NULL;
    GDBusConnection *bus = lib->bus_get_sync(G_BUS_TYPE_SESSION, NULL, &gerror);
    if (!bus) {
        take_gerror(lib, gerror, error);
        return 0;
    }
    lib->set_exit_on_close(bus, 0);
    gboolean closed = lib->connection_is_closed(bus);
    lib->object_unref(bus);
    if (closed) {
        set_error(error, "mailsearch-bus-closed", 0, "the connection to the session bus was closed");
        return 0;
    }
    return 1;
}

/* The attributes of one item. Keys and values are borrowed: the table must not outlive them. */
static GHashTable *attributes(ms_libsecret *lib, const char *account, const char *purpose) {
    GHashTable *table = lib->hash_table_new(lib->str_hash, lib->str_equal);
    lib->hash_table_insert(table, (gpointer) "account", (gpointer) account);
    lib->hash_table_insert(table, (gpointer) "purpose", (gpointer) purpose);
    return table;
}

int ms_secret_store(ms_libsecret *lib, const char *account, const char *purpose, const char *label,
                    const char *secret, ms_secret_error *error) {
    if (!prepare_bus(lib, error)) return 0;
    GHashTable *table = attributes(lib, account, purpose);
    GError *gerror = NULL;
    gboolean ok = lib->storev_sync(&schema, table, NULL, label, secret, NULL, &gerror);
    lib->hash_table_unref(table);
    if (!ok) {
        take_gerror(lib, gerror, error);
        return 0;
    }
    if (gerror) lib->error_free(gerror);
    return 1;
}

int ms_secret_lookup(ms_libsecret *lib, const char *account, const char *purpose, char **secret,
                     ms_secret_error *error) {
    *secret = NULL;
    if (!prepare_bus(lib, error)) return 0;
    GHashTable *table = attributes(lib, account, purpose);
    GError *gerror = NULL;
    gchar *found = lib->lookupv_sync(&schema, table, NULL, &gerror);
    lib->hash_table_unref(table);
    if (gerror) {
        if (found) lib->password_free(found);
        take_gerror(lib, gerror, error);
        *secret = NULL;
        return 0;
    }
    *secret = found;
    return 1;
}

int ms_secret_clear(ms_libsecret *lib, const char *account, const char *purpose, ms_secret_error *error) {
    if (!prepare_bus(lib, error)) return 0;
    GHashTable *table = attributes(lib, account, purpose);
    GError *gerror = NULL;
    (void) lib->clearv_sync(&schema, table, NULL, &gerror);
    lib->hash_table_unref(table);
    /* FALSE without an error means there was nothing to remove. */
    if (gerror) {
        take_gerror(lib, gerror, error);
        return 0;
    }
    return 1;
}

void ms_secret_free(ms_libsecret *lib, char *secret) {
    if (secret) lib->password_free(secret);
}
