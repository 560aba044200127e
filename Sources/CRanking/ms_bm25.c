#include "CRanking.h"

#include <math.h>
#include <string.h>

/// Per-query data, computed on the first row and kept as FTS5 auxiliary data (as bm25() does).
typedef struct Bm25Query {
    int phraseCount;
    double averageLength;
    double *idf;       /* phraseCount values */
    double *frequency; /* phraseCount values, reset for every row */
} Bm25Query;

static int count_rows(const Fts5ExtensionApi *api, Fts5Context *fts, void *user) {
    (void)api;
    (void)fts;
    *(sqlite3_int64 *)user += 1;
    return SQLITE_OK;
}

/// IDF = log((N − n + 0.5) / (n + 0.5)), floored at 1e-6 (FTS5's bm25).
static double inverse_document_frequency(sqlite3_int64 rows, sqlite3_int64 hits) {
    double idf = log(((double)rows - (double)hits + 0.5) / ((double)hits + 0.5));
    return idf <= 0.0 ? 1e-6 : idf;
}

/// A phrase's term-frequency part of BM25 in a row: f weighted occurrences, d tokens.
static double tf_part(double f, double d, double averageLength) {
    const double k1 = 1.2;
    const double b = 0.75;
    return (f * (k1 + 1.0)) / (f + k1 * (1.0 - b + b * d / averageLength));
}

/// The same per-query values as FTS5's fts5Bm25GetData: average row length over the table, and
/// for each phrase IDF = log((N − n + 0.5) / (n + 0.5)), floored at 1e-6. With `deferred` and
/// one phrase, the IDF is left to the caller (no second query of the phrase) and the row count
/// goes to `deferred`.
static int query_data(const Fts5ExtensionApi *api, Fts5Context *fts, ms_bm25_deferred *deferred, Bm25Query **out) {
    Bm25Query *q = (Bm25Query *)api->xGetAuxdata(fts, 0);
    if (q) {
        *out = q;
        return SQLITE_OK;
    }
    int phrases = api->xPhraseCount(fts);
    sqlite3_int64 bytes = (sqlite3_int64)sizeof(Bm25Query) + (sqlite3_int64)phrases * 2 * (sqlite3_int64)sizeof(double);
    q = (Bm25Query *)sqlite3_malloc64((sqlite3_uint64)bytes);
    if (!q) return SQLITE_NOMEM;
    memset(q, 0, (size_t)bytes);
    q->phraseCount = phrases;
    q->idf = (double *)&q[1];
    q->frequency = &q->idf[phrases];

    sqlite3_int64 rows = 0, tokens = 0;
    int rc = api->xRowCount(fts, &rows);
    int counted = api->xColumnCount(fts) - MS_BM25_UNCOUNTED_COLUMNS;
    for (int column = 0; rc == SQLITE_OK && column < counted; column++) {
        sqlite3_int64 size = 0;
        rc = api->xColumnTotalSize(fts, column, &size);
        tokens += size;
    }
    if (rc == SQLITE_OK) q->averageLength = rows > 0 ? (double)tokens / (double)rows : 1.0;
    if (deferred) {
        deferred->rows = rows;
        deferred->phrases = phrases;
    }
    for (int i = 0; rc == SQLITE_OK && i < phrases && !(deferred && phrases == 1); i++) {
        sqlite3_int64 hits = 0;
        rc = api->xQueryPhrase(fts, i, &hits, count_rows);
        if (rc == SQLITE_OK) q->idf[i] = inverse_document_frequency(rows, hits);
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, q, sqlite3_free);
    else sqlite3_free(q);
    *out = rc == SQLITE_OK ? q : NULL;
    return rc;
}

/// The row's length in tokens, all columns but the last MS_BM25_UNCOUNTED_COLUMNS: from the table
/// when known, else from FTS5 (and remembered).
static int row_length(const Fts5ExtensionApi *api, Fts5Context *fts, const ms_doc_lengths *lengths, int *length) {
    sqlite3_int64 rowid = api->xRowid(fts);
    int inTable = lengths && rowid >= 0 && rowid < lengths->count;
    if (inTable) {
        uint32_t slot = __atomic_load_n(&lengths->slots[rowid], __ATOMIC_RELAXED);
        if (slot != 0) {
            *length = (int)(slot - 1);
            return SQLITE_OK;
        }
    }
    int rc = SQLITE_OK;
    int counted = api->xColumnCount(fts) - MS_BM25_UNCOUNTED_COLUMNS;
    *length = 0;
    for (int column = 0; rc == SQLITE_OK && column < counted; column++) {
        int size = 0;
        rc = api->xColumnSize(fts, column, &size);
        *length += size;
    }
    if (rc == SQLITE_OK && inTable && *length >= 0) {
        __atomic_store_n(&lengths->slots[rowid], (uint32_t)*length + 1, __ATOMIC_RELAXED);
    }
    return rc;
}

/// ms_bm25(email_fts, lengths, weights…) and ms_bm25_tf(email_fts, lengths, deferred, weights…).
static void bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                 const ms_doc_lengths *lengths, ms_bm25_deferred *deferred, int weightCount, sqlite3_value **weights) {
    Bm25Query *q = NULL;
    int rc = query_data(api, fts, deferred, &q);
    int instances = 0;
    if (rc == SQLITE_OK) {
        memset(q->frequency, 0, sizeof(double) * (size_t)q->phraseCount);
        rc = api->xInstCount(fts, &instances);
    }
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase, column, offset;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK) q->frequency[phrase] += column < weightCount ? sqlite3_value_double(weights[column]) : 1.0;
    }
    int length = 0;
    if (rc == SQLITE_OK) rc = row_length(api, fts, lengths, &length);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    double d = (double)length;
    if (deferred && q->phraseCount == 1) {
        sqlite3_result_double(context, tf_part(q->frequency[0], d, q->averageLength));
        return;
    }
    double score = 0.0;
    for (int i = 0; i < q->phraseCount; i++) {
        score += q->idf[i] * tf_part(q->frequency[i], d, q->averageLength);
    }
    sqlite3_result_double(context, -1.0 * score);
}

double ms_bm25_score(double part, int64_t rows, int64_t hits) {
    double score = 0.0;
    score += inverse_document_frequency(rows, hits) * part;
    return -1.0 * score;
}

static void ms_bm25(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                    int argc, sqlite3_value **argv) {
    const ms_doc_lengths *lengths = argc > 0 ? (const ms_doc_lengths *)sqlite3_value_pointer(argv[0], MS_DOC_LENGTHS_TYPE) : NULL;
    bm25(api, fts, context, lengths, NULL, argc > 0 ? argc - 1 : 0, argv + 1);
}

static void ms_bm25_tf(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context,
                       int argc, sqlite3_value **argv) {
    if (argc < 2) {
        sqlite3_result_error(context, "ms_bm25_tf(email_fts, lengths, deferred, weights...)", -1);
        return;
    }
    const ms_doc_lengths *lengths = (const ms_doc_lengths *)sqlite3_value_pointer(argv[0], MS_DOC_LENGTHS_TYPE);
    ms_bm25_deferred *deferred = (ms_bm25_deferred *)sqlite3_value_pointer(argv[1], MS_BM25_DEFERRED_TYPE);
    bm25(api, fts, context, lengths, deferred, argc - 2, argv + 2);
}

int ms_register_fts5(sqlite3 *db) {
    fts5_api *api = NULL;
    sqlite3_stmt *statement = NULL;
    int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &statement, NULL);
    if (rc != SQLITE_OK) return rc;
    sqlite3_bind_pointer(statement, 1, (void *)&api, "fts5_api_ptr", NULL);
    sqlite3_step(statement);
    rc = sqlite3_finalize(statement);
    if (rc != SQLITE_OK) return rc;
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    rc = api->xCreateFunction(api, "ms_bm25", NULL, ms_bm25, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "ms_bm25_tf", NULL, ms_bm25_tf, NULL);
    if (rc == SQLITE_OK) rc = ms_register_tokenizer(api);
    return rc;
}
