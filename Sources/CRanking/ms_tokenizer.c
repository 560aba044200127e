// The FTS5 tokenizer `mailsearch`: unicode61 (with the arguments it is given), then two things
// unicode61 does not do.
//
// 1. Chinese, Japanese and Korean text has no spaces between words, so unicode61 makes one token
//    of a whole run ("我们下周在北京开会"), and a word inside it (北京) is never found. Each run
//    of CJK characters (Han, kana, Hangul) becomes overlapping bigrams (我们 们下 下周 周在 …),
//    the scheme of Lucene's CJKBigramFilter: any word of two or more characters is the phrase of
//    its bigrams, so it is found wherever it stands. In documents each character is also a token
//    of its own at the bigram's position (FTS5_TOKEN_COLOCATED), so a one-character query
//    finds it; in queries a run of two or more characters gives only its bigrams (the phrase),
//    and one character gives itself. A run of n ≥ 2 characters takes n − 1 positions in both,
//    so phrases across a CJK run and Latin words (`Linux内核`) match.
// 2. Folds Gmail applies that unicode61 lacks: ß → ss (so "Straße" and "Strasse" meet), æ → ae,
//    œ → oe, ø → o, đ → d, ł → l, ħ → h, ı → i, þ → th, the ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ ligatures, and full-width
//    Latin letters and digits (ＡＢＣ１２ → abc12).
//
// 3. Parts of identifiers (see `emit_identifier_parts`): `RxFreq` finds setRxFreq, `0193` finds
//    TB0193, as tokens colocated with the whole identifier in documents.
//
// Other tokens made only of ASCII bytes (nearly every token of English mail) are passed through
// untouched, and colocated tokens count for no length: BM25 of English text is what unicode61 gives.

#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>

#include "CRanking.h"

typedef struct ms_tokenizer {
    fts5_tokenizer inner_api;
    Fts5Tokenizer *inner;
} ms_tokenizer;

typedef struct ms_token_context {
    void *ctx;
    int (*emit)(void *, int, const char *, int, int, int);
    int query;
    const unsigned char *text;  // the text being tokenized, for the documents' offsets
    int length;
} ms_token_context;

/// Whether the code point is one of the CJK scripts that are written without spaces.
static int is_cjk(unsigned c) {
    return (c >= 0x3040 && c <= 0x30FF)      // Hiragana, Katakana
        || (c >= 0x3005 && c <= 0x3007)      // 々 〆 〇
        || (c >= 0x31F0 && c <= 0x31FF)      // Katakana phonetic extensions
        || (c >= 0x3100 && c <= 0x312F)      // Bopomofo
        || (c >= 0x3130 && c <= 0x318F)      // Hangul compatibility jamo
        || (c >= 0x3400 && c <= 0x4DBF)      // CJK extension A
        || (c >= 0x4E00 && c <= 0x9FFF)      // CJK unified ideographs
        || (c >= 0xAC00 && c <= 0xD7AF)      // Hangul syllables
        || (c >= 0x1100 && c <= 0x11FF)      // Hangul jamo
        || (c >= 0xF900 && c <= 0xFAFF)      // CJK compatibility ideographs
        || (c >= 0xFF66 && c <= 0xFF9F)      // half-width Katakana
        || (c >= 0x20000 && c <= 0x3FFFF);   // CJK extensions B and beyond
}

/// Decodes one UTF-8 code point at `s` (of `n` bytes), returning its length (1 for a bad byte).
static int decode(const unsigned char *s, int n, unsigned *out) {
    unsigned c = s[0];
    if (c < 0x80 || n < 2) { *out = c; return 1; }
    if ((c & 0xE0) == 0xC0) { *out = ((c & 0x1F) << 6) | (s[1] & 0x3F); return 2; }
    if ((c & 0xF0) == 0xE0 && n >= 3) { *out = ((c & 0x0F) << 12) | ((s[1] & 0x3F) << 6) | (s[2] & 0x3F); return 3; }
    if ((c & 0xF8) == 0xF0 && n >= 4) {
        *out = ((c & 0x07) << 18) | ((s[1] & 0x3F) << 12) | ((s[2] & 0x3F) << 6) | (s[3] & 0x3F);
        return 4;
    }
    *out = c;
    return 1;
}

static int encode(unsigned c, char *out) {
    if (c < 0x80) { out[0] = (char)c; return 1; }
    if (c < 0x800) { out[0] = (char)(0xC0 | (c >> 6)); out[1] = (char)(0x80 | (c & 0x3F)); return 2; }
    if (c < 0x10000) {
        out[0] = (char)(0xE0 | (c >> 12)); out[1] = (char)(0x80 | ((c >> 6) & 0x3F)); out[2] = (char)(0x80 | (c & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | (c >> 18)); out[1] = (char)(0x80 | ((c >> 12) & 0x3F));
    out[2] = (char)(0x80 | ((c >> 6) & 0x3F)); out[3] = (char)(0x80 | (c & 0x3F));
    return 4;
}

/// Writes the folded form of `c` (already lower-cased by unicode61) to `out`; returns its length.
static int fold(unsigned c, char *out) {
    const char *to = NULL;
    switch (c) {
    case 0x00DF: case 0x1E9E: to = "ss"; break;  // ß ẞ
    case 0x00E6: case 0x00C6: to = "ae"; break;  // æ
    case 0x0153: case 0x0152: to = "oe"; break;  // œ
    case 0x00F8: case 0x00D8: to = "o"; break;   // ø
    case 0x0111: case 0x0110: to = "d"; break;   // đ
    case 0x0142: case 0x0141: to = "l"; break;   // ł
    case 0x0127: case 0x0126: to = "h"; break;   // ħ
    case 0x0131: to = "i"; break;                // dotless ı
    case 0x00FE: case 0x00DE: to = "th"; break;  // þ
    case 0xFB00: to = "ff"; break;
    case 0xFB01: to = "fi"; break;
    case 0xFB02: to = "fl"; break;
    case 0xFB03: to = "ffi"; break;
    case 0xFB04: to = "ffl"; break;
    case 0xFB05: case 0xFB06: to = "st"; break;
    default: break;
    }
    if (to) {
        int n = (int)strlen(to);
        memcpy(out, to, (size_t)n);
        return n;
    }
    if (c >= 0xFF10 && c <= 0xFF19) { out[0] = (char)('0' + (c - 0xFF10)); return 1; }  // full-width digits
    if (c >= 0xFF21 && c <= 0xFF3A) { out[0] = (char)('a' + (c - 0xFF21)); return 1; }  // full-width capitals
    if (c >= 0xFF41 && c <= 0xFF5A) { out[0] = (char)('a' + (c - 0xFF41)); return 1; }  // full-width small letters
    return encode(c, out);
}

/// One segment of a token: a run of CJK characters or of other characters.
typedef struct segment {
    int cjk;
    int start, end;    // byte range in the token
    int ostart, oend;  // byte range in the document (the original text)
} segment;

enum { max_segments = 64 };

/// Splits `text` (n bytes) into CJK and other runs; returns how many, or -1 past max_segments.
static int segments_of(const unsigned char *text, int n, segment *out, int *cjk_present) {
    int count = 0;
    *cjk_present = 0;
    for (int i = 0; i < n;) {
        unsigned c;
        int length = decode(text + i, n - i, &c);
        int cjk = is_cjk(c);
        if (cjk) *cjk_present = 1;
        if (count == 0 || out[count - 1].cjk != cjk) {
            if (count == max_segments) return -1;
            out[count].cjk = cjk;
            out[count].start = i;
            count++;
        }
        out[count - 1].end = i + length;
        i += length;
    }
    return count;
}

static int emit_folded(ms_token_context *c, int flags, const unsigned char *text, int n, int start, int end) {
    char stack[256];
    char *buffer = n * 3 + 4 <= (int)sizeof stack ? stack : malloc((size_t)n * 3 + 4);
    if (!buffer) return SQLITE_NOMEM;
    int length = 0;
    for (int i = 0; i < n;) {
        unsigned cp;
        i += decode(text + i, n - i, &cp);
        length += fold(cp, buffer + length);
    }
    int rc = c->emit(c->ctx, flags, buffer, length, start, end);
    if (buffer != stack) free(buffer);
    return rc;
}

/// The bigrams (and in documents the unigrams) of one CJK run. `offsets`, when not NULL, holds
/// each character's byte offset in the document and the run's end; else every token gets
/// [start, end).
static int emit_cjk(ms_token_context *c, int *flags, const unsigned char *text, int n, const int *offsets, int count,
                    int start, int end) {
    // Byte offsets of each character in the token text.
    int positions[257];
    int characters = 0;
    for (int i = 0; i < n && characters < 256;) {
        unsigned cp;
        positions[characters++] = i;
        i += decode(text + i, n - i, &cp);
    }
    if (characters == 256 && positions[255] < n) {
        // A run longer than 256 characters: the rest as a run of its own.
        int rest = positions[255];
        int rc = emit_cjk(c, flags, text, rest, offsets, offsets ? 255 : 0, start, end);
        if (rc != SQLITE_OK) return rc;
        return emit_cjk(c, flags, text + rest, n - rest, offsets ? offsets + 255 : NULL, offsets ? count - 255 : 0, start,
                        end);
    }
    positions[characters] = n;
    if (offsets && count != characters) offsets = NULL;
#define START(i) (offsets ? offsets[i] : start)
#define END(i) (offsets ? offsets[(i) + 1] : end)
    int rc = SQLITE_OK;
    if (characters == 1) {
        rc = c->emit(c->ctx, *flags, (const char *)text, n, START(0), END(0));
        *flags = 0;
        return rc;
    }
    for (int i = 0; i + 1 < characters && rc == SQLITE_OK; i++) {
        const char *bigram = (const char *)text + positions[i];
        rc = c->emit(c->ctx, *flags, bigram, positions[i + 2] - positions[i], START(i), END(i + 1));
        *flags = 0;
        if (rc != SQLITE_OK || c->query) continue;
        rc = c->emit(c->ctx, FTS5_TOKEN_COLOCATED, bigram, positions[i + 1] - positions[i], START(i), END(i));
        if (rc == SQLITE_OK && i + 2 == characters) {
            rc = c->emit(c->ctx, FTS5_TOKEN_COLOCATED, (const char *)text + positions[i + 1],
                         positions[i + 2] - positions[i + 1], START(i + 1), END(i + 1));
        }
    }
#undef START
#undef END
    return rc;
}

static int is_lower(unsigned char b) { return b >= 'a' && b <= 'z'; }
static int is_upper(unsigned char b) { return b >= 'A' && b <= 'Z'; }
static int is_digit(unsigned char b) { return b >= '0' && b <= '9'; }
static int is_hex(unsigned char b) { return is_digit(b) || (b >= 'a' && b <= 'f'); }

/// In documents, the parts of an identifier that a person types without its start, as tokens
/// colocated with the whole (so they count for no length and keep phrases intact): from each
/// camelCase boundary (`setRxFreq` → rxfreq, freq; `HTTPServer` → server), from a run of three or
/// more digits after letters (`TB0193` → 0193, `RFC2822` → 2822) and after `0x` (`0x7fffed11b040`
/// → 7fffed11b040). The boundaries are read in the document's own text (unicode61 has lower-cased
/// the token). A token with more than four such boundaries is left whole: base64 and other
/// random strings have many. Hexadecimal ids are searched by their start, so none inside them.
static int emit_identifier_parts(ms_token_context *c, const char *token, int n, int start, int end) {
    if (!c->text || start < 0 || end > c->length || end - start != n) return SQLITE_OK;
    const unsigned char *original = c->text + start;
    int cuts[5];
    int count = 0;
    int hex = n >= 8;
    for (int i = 0; i < n && hex; i++) hex = is_hex((unsigned char)token[i]);
    if (n >= 6 && original[0] == '0' && (original[1] == 'x' || original[1] == 'X')) {
        cuts[count++] = 2;
    } else if (!hex) {
        for (int i = 1; i < n; i++) {
            unsigned char previous = original[i - 1], current = original[i];
            int cut = (is_lower(previous) && is_upper(current))
                || (is_upper(previous) && is_upper(current) && i + 1 < n && is_lower(original[i + 1]))
                || (!is_digit(previous) && is_digit(current) && i + 2 < n && is_digit(original[i + 1])
                    && is_digit(original[i + 2]));
            if (!cut) continue;
            if (count == 4) return SQLITE_OK;
            cuts[count++] = i;
        }
    }
    int rc = SQLITE_OK;
    for (int k = 0; k < count && rc == SQLITE_OK; k++) {
        if (n - cuts[k] < 2) continue;
        rc = c->emit(c->ctx, FTS5_TOKEN_COLOCATED, token + cuts[k], n - cuts[k], start + cuts[k], end);
    }
    return rc;
}

static int on_token(void *context, int flags, const char *token, int n, int start, int end) {
    ms_token_context *c = context;
    const unsigned char *text = (const unsigned char *)token;
    int ascii = 1;
    for (int i = 0; i < n; i++) {
        if (text[i] >= 0x80) { ascii = 0; break; }
    }
    if (ascii) {
        int rc = c->emit(c->ctx, flags, token, n, start, end);
        if (rc != SQLITE_OK || c->query || n < 4) return rc;
        return emit_identifier_parts(c, token, n, start, end);
    }
    segment parts[max_segments];
    int cjk = 0;
    int count = segments_of(text, n, parts, &cjk);
    if (!cjk || count < 0) return emit_folded(c, flags, text, n, start, end);
    // Document offsets of each segment: the original text's runs line up with the token's when
    // unicode61's folding kept every run (it never changes a CJK character).
    segment original[max_segments];
    int originalCJK = 0;
    int aligned = 0;
    if (c->text && start >= 0 && end <= c->length && start <= end) {
        int originalCount = segments_of(c->text + start, end - start, original, &originalCJK);
        aligned = originalCount == count;
        for (int k = 0; aligned && k < count; k++) {
            aligned = original[k].cjk == parts[k].cjk
                && (!parts[k].cjk || (original[k].end - original[k].start == parts[k].end - parts[k].start
                                      && memcmp(c->text + start + original[k].start, text + parts[k].start,
                                                (size_t)(parts[k].end - parts[k].start)) == 0));
        }
    }
    int rc = SQLITE_OK;
    for (int k = 0; k < count && rc == SQLITE_OK; k++) {
        int s = aligned ? start + original[k].start : start;
        int e = aligned ? start + original[k].end : end;
        const unsigned char *part = text + parts[k].start;
        int length = parts[k].end - parts[k].start;
        if (!parts[k].cjk) {
            rc = emit_folded(c, flags, part, length, s, e);
            flags = 0;
            continue;
        }
        int offsets[258];
        int characters = 0;
        if (aligned) {
            for (int i = 0; i < length && characters < 257;) {
                unsigned cp;
                offsets[characters++] = s + i;
                i += decode(part + i, length - i, &cp);
            }
            offsets[characters] = e;
        }
        rc = emit_cjk(c, &flags, part, length, aligned && characters <= 256 ? offsets : NULL, characters, s, e);
    }
    return rc;
}

static int ms_tokenizer_create(void *api_pointer, const char **arguments, int count, Fts5Tokenizer **out) {
    fts5_api *api = api_pointer;
    void *user_data = NULL;
    fts5_tokenizer inner_api;
    *out = NULL;
    int rc = api->xFindTokenizer(api, "unicode61", &user_data, &inner_api);
    if (rc != SQLITE_OK) return rc;
    ms_tokenizer *tokenizer = calloc(1, sizeof *tokenizer);
    if (!tokenizer) return SQLITE_NOMEM;
    tokenizer->inner_api = inner_api;
    rc = inner_api.xCreate(user_data, arguments, count, &tokenizer->inner);
    if (rc != SQLITE_OK) {
        free(tokenizer);
        return rc;
    }
    *out = (Fts5Tokenizer *)tokenizer;
    return SQLITE_OK;
}

static void ms_tokenizer_delete(Fts5Tokenizer *pointer) {
    ms_tokenizer *tokenizer = (ms_tokenizer *)pointer;
    if (!tokenizer) return;
    tokenizer->inner_api.xDelete(tokenizer->inner);
    free(tokenizer);
}

static int ms_tokenizer_tokenize(Fts5Tokenizer *pointer, void *ctx, int flags, const char *text, int length,
                                 int (*emit)(void *, int, const char *, int, int, int)) {
    ms_tokenizer *tokenizer = (ms_tokenizer *)pointer;
    ms_token_context context = {
        .ctx = ctx, .emit = emit, .query = (flags & FTS5_TOKENIZE_QUERY) != 0,
        .text = (const unsigned char *)text, .length = length,
    };
    return tokenizer->inner_api.xTokenize(tokenizer->inner, &context, flags, text, length, on_token);
}

int ms_register_tokenizer(fts5_api *api) {
    fts5_tokenizer methods = {ms_tokenizer_create, ms_tokenizer_delete, ms_tokenizer_tokenize};
    return api->xCreateTokenizer(api, "mailsearch", api, &methods, NULL);
}
