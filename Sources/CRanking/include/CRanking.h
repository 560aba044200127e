#ifndef MAILSEARCH_CRANKING_H
#define MAILSEARCH_CRANKING_H

#include <stdint.h>
#include <sqlite3.h>

/// `ms_bm25`: FTS5's own BM25 (the same formula, constants, IDF floor and column weights as the
/// built-in bm25()), with two differences: a row's length leaves out its last column
/// (MS_BM25_UNCOUNTED_COLUMNS), and where it reads that length: from a table of
/// token counts per rowid held in memory, instead of a lookup in the %_docsize table for every
/// matching row (the larger part of ranking cost on a common term). The table is filled as rows
/// are ranked; a row it does not know yet is read from FTS5 and remembered.
///
/// SQL: ms_bm25(fts_table, lengths, weight0, weight1, …) where `lengths` is an ms_doc_lengths
/// bound with sqlite3_bind_pointer(…, MS_DOC_LENGTHS_TYPE, …), or NULL to read every length
/// from FTS5. The caller owns the table and must drop it whenever the FTS5 index changes.

#ifdef __cplusplus
extern "C" {
#endif

/// The last columns of the table that count for no row length (`email_fts`'s attachments: a long
/// attachment must not push its message's body matches down). BM25's length normalisation reads
/// the other columns; a match in these is weighted as any other.
#define MS_BM25_UNCOUNTED_COLUMNS 1

/// The pointer type name ms_bm25 accepts for its `lengths` argument.
#define MS_DOC_LENGTHS_TYPE "mailsearch.DocLengths"

/// Token counts per rowid: slots[rowid] = count + 1, or 0 when not known yet. Rowids at or
/// beyond `count` are read from FTS5 every time. Concurrent rankings may share one table.
typedef struct ms_doc_lengths {
    uint32_t *slots;
    int64_t count;
} ms_doc_lengths;

/// `ms_bm25_tf`'s report on a scan (bound as a pointer of type MS_BM25_DEFERRED_TYPE): for a
/// MATCH of one phrase, each row's value is only the term-frequency part of BM25, and `rows` is
/// the table's row count; the caller, who scans every matching row anyway, counts them and gives
/// `ms_bm25_score` the count that FTS5's bm25 would look up with a second query of the phrase.
/// For several phrases `phrases` says so and each row's value is the whole score, as ms_bm25's.
#define MS_BM25_DEFERRED_TYPE "mailsearch.Bm25Deferred"

typedef struct ms_bm25_deferred {
    int64_t rows;
    int32_t phrases;
} ms_bm25_deferred;

/// The BM25 rank (negative, lower is better) of a row of a one-phrase MATCH, from its
/// term-frequency part (`ms_bm25_tf`), the table's rows and the rows matching the phrase: the
/// value ms_bm25 gives that row, to the bit.
double ms_bm25_score(double tf_part, int64_t rows, int64_t hits);

/// Registers ms_bm25, ms_bm25_tf and the `mailsearch` tokenizer with the FTS5 module of `db`.
/// Returns SQLITE_OK, or an SQLite error code (SQLITE_ERROR when the connection has no FTS5).
int ms_register_fts5(sqlite3 *db);

/// The FTS5 tokenizer `mailsearch` (ms_tokenizer.c): unicode61 with its arguments, then CJK runs
/// as overlapping bigrams (one-character tokens colocated in documents) and the folds unicode61
/// lacks (ß → ss, æ → ae, full-width Latin → ASCII, …). ASCII tokens pass through unchanged.
int ms_register_tokenizer(fts5_api *api);

#ifdef __cplusplus
}
#endif

#endif
