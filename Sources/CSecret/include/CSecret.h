#ifndef MAILSEARCH_CSECRET_H
#define MAILSEARCH_CSECRET_H

/// The freedesktop Secret Service through Debian's libsecret-1.so.0, loaded with dlopen when first
/// asked for, never linked: a process on a machine without libsecret (or without a desktop) starts
/// all the same, and only the Secret Service store reports that it is unavailable.
///
/// Only the few functions needed are declared here (no libsecret or glib headers at build time):
/// secret_password_storev_sync, secret_password_lookupv_sync, secret_password_clearv_sync and
/// secret_password_free, with a GHashTable of attributes (g_hash_table_new, g_str_hash,
/// g_str_equal, g_hash_table_insert, g_hash_table_unref), g_error_free and g_quark_to_string; and
/// gio's g_bus_get_sync, g_dbus_connection_set_exit_on_close and g_object_unref, so that losing the
/// session bus never raises SIGTERM in this process (gio's default for its shared connection).
/// Every item is stored under the schema `org.mailsearch.Account` with two string attributes,
/// `account` and `purpose`.

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A loaded libsecret: its handle and the functions found in it (opaque to callers).
typedef struct ms_libsecret ms_libsecret;

/// What went wrong in a call: GError's domain (as its quark's name, e.g. "g-dbus-error-quark",
/// "secret-error-quark", "g-io-error-quark"), code and message; or the loader's own failure
/// (domain "mailsearch-libsecret-missing"). Filled only when a call fails.
typedef struct {
    char domain[64];
    int code;
    char message[512];
} ms_secret_error;

/// dlopen(library) and dlsym of every function needed. NULL when the library or a function is
/// missing (then `error` says which). The result lives as long as the process: never closed.
ms_libsecret *ms_libsecret_open(const char *library, ms_secret_error *error);

/// Stores (or replaces) the secret of (account, purpose) in the default collection, with `label`
/// as the item's label. Returns 1 on success, 0 on failure (then `error` is filled).
int ms_secret_store(ms_libsecret *lib, const char *account, const char *purpose, const char *label,
                    const char *secret, ms_secret_error *error);

/// Looks up the secret of (account, purpose). Returns 1 and sets *secret (free it with
/// ms_secret_free) when found; 1 with *secret = NULL when there is none; 0 on failure.
int ms_secret_lookup(ms_libsecret *lib, const char *account, const char *purpose, char **secret,
                     ms_secret_error *error);

/// Removes the secret of (account, purpose). Returns 1 on success (whether or not there was one),
/// 0 on failure.
int ms_secret_clear(ms_libsecret *lib, const char *account, const char *purpose, ms_secret_error *error);

/// secret_password_free: wipes the secret's memory, then frees it.
void ms_secret_free(ms_libsecret *lib, char *secret);

#ifdef __cplusplus
}
#endif

#endif
