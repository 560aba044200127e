#ifndef MAILSEARCH_CKERNELS_H
#define MAILSEARCH_CKERNELS_H

#include <stddef.h>
#include <stdint.h>

/// Hand-written kernels for the hot loops that a generic library does not serve well:
/// the encoder's matrix products for a handful of tokens (a search query), its attention (many
/// small products with a softmax between them), GELU and LayerNorm, and the int8 dot-product
/// scan over every stored embedding. Each has an AVX2/FMA/F16C version, chosen at
/// run time when the CPU has those extensions, and a portable version.

#ifdef __cplusplus
extern "C" {
#endif

/// 1 when the AVX2/FMA/F16C kernels run on this CPU, 0 when the portable ones do.
/// Setting the environment variable MAILSEARCH_KERNELS=portable forces the portable kernels.
int ms_kernels_accelerated(void);

/// One part of a job that `ms_team_run` splits over threads.
typedef void (*ms_team_task)(void *context, int part);

/// Runs task(context, part) for every part < `parts`, on the calling thread and on helper
/// threads (started on first use, up to parts − 1 of them, at most 15). Returns when all parts are
/// done. Helpers spin for 0.2 ms after a job, so that the next one starts at once, then sleep.
/// When another job is running, the parts run one after the other on the calling thread.
void ms_team_run(int parts, ms_team_task task, void *context);

/// Makes every later `ms_team_run` on the calling thread run its parts one after the other on that
/// thread (1), or on the team again (0). For background work of the lowest priority: the helpers
/// run at normal priority, so a job of a niced thread on them would compete with the foreground.
void ms_team_serial_on_this_thread(int serial);

/// Whether `ms_team_serial_on_this_thread(1)` holds for the calling thread.
int ms_team_is_serial_on_this_thread(void);

/// Converts `count` floats to IEEE half precision (round to nearest even).
void ms_float_to_half(const float *source, uint16_t *destination, size_t count);

/// Converts `count` IEEE half-precision values to floats.
void ms_half_to_float(const uint16_t *source, float *destination, size_t count);

/// The number of half-precision values `ms_pack_half_panels` writes for an n × k matrix.
size_t ms_half_panels_count(int n, int k);

/// Packs the n × k row-major float matrix `w` (a linear layer's weights: n outputs, k inputs)
/// into half-precision panels of 16 outputs: panel p holds, for each input i, the 16 weights of
/// outputs 16p…16p+15 (zero past n).
void ms_pack_half_panels(const float *w, int n, int k, uint16_t *panels);

/// y[r·ldy + o] = bias[o] + Σᵢ x[r·k + i] · w[o·k + i] for every row r < `rows` and output
/// o < n, with w packed by `ms_pack_half_panels`. Made for few rows (a search query): it reads
/// the weights once per six rows. The outputs are split over up to `threads` threads (the
/// caller's and spinning helpers that stay for the next call).
void ms_linear_half_panels(const float *x, int rows, int k, const uint16_t *panels, const float *bias, int n,
                           float *y, int ldy, int threads);

/// Whether this CPU has AVX-512 BF16 (and the OS saves its registers), for the bfloat16 linear
/// layers of document batches; `MAILSEARCH_KERNELS=float32` (or `portable`) says no.
int ms_kernels_bf16(void);

/// uint16 elements `ms_pack_bf16_panels` writes for an n × k weight matrix.
size_t ms_bf16_panels_count(int n, int k);

/// Packs w (n × k, row-major float32) into bfloat16 panels of 16 outputs (rounded to nearest
/// even): panel p holds, for each pair of inputs j, the 16 outputs' weights of inputs 2j and
/// 2j+1 side by side (zero past n and k).
void ms_pack_bf16_panels(const float *w, int n, int k, uint16_t *panels);

/// y[r·ldy + o] = bias[o] + Σᵢ x[r·k + i] · w[o·k + i] with x and w rounded to bfloat16 and the
/// sums in float32 (AVX-512 BF16 dot products), w packed by `ms_pack_bf16_panels`; only where
/// `ms_kernels_bf16()`. The outputs are split over up to `threads` threads.
void ms_linear_bf16_panels(const float *x, int rows, int k, const uint16_t *panels, const float *bias, int n, float *y,
                           int ldy, int threads);

/// Writes round(vector[i] / step) to bytes[i], with step = max|vector| / 127, and returns step
/// (0, with zero bytes, for a zero vector or one that holds a NaN or an infinity).
float ms_quantize_int8(const float *vector, size_t count, int8_t *bytes);

/// out[r] = Σᵢ matrix[r·dimension + i] · query[i] for r < `rows`: int8 rows against an int16 query.
/// `dimension` must be at most 65536 (the sums then fit in 32 bits).
void ms_dot_int8(const int8_t *matrix, size_t rows, size_t dimension, const int16_t *query, int32_t *out);

/// Multi-head self-attention of one sequence of `length` tokens, as BERT computes it: for every
/// head h, context[i, h·d…h·d+d) = Σⱼ softmax_j(scale · q_i·k_j) · v_j, with d = hidden / heads.
/// Row i of `qkv` (stride `ldqkv` floats) holds the token's query, key and value vectors one after
/// the other (hidden floats each, head after head); `context` rows have stride `ldc`. The heads
/// are split over up to `threads` threads (see `ms_team_run`).
void ms_attention(const float *qkv, int length, int ldqkv, int hidden, int heads, float scale, float *context, int ldc,
                  int threads);

/// `ms_attention` with bfloat16 products and float32 sums (scores from bfloat16 queries and keys,
/// softmax in float32, its numerators and the values rounded to bfloat16), for document batches
/// where the CPU has AVX-512 BF16 (`ms_kernels_bf16()`) and hidden / heads is a multiple of 16;
/// elsewhere it is `ms_attention`.
void ms_attention_bf16(const float *qkv, int length, int ldqkv, int hidden, int heads, float scale, float *context,
                       int ldc, int threads);

/// `ms_attention` for a batch of `count` sequences at once: sequence i's rows start at row
/// `starts[i]` of `qkv` and of `context` and number `lengths[i]`. Its (sequence, head) pairs are split
/// over up to `threads` threads by their cost (one job on the team, not one a sequence); each pair
/// is computed exactly as `ms_attention` computes it.
void ms_attention_batch(const float *qkv, const int *starts, const int *lengths, int count, int ldqkv, int hidden, int heads,
                        float scale, float *context, int ldc, int threads);

/// x = GELU(x + bias) for `rows` rows of `width` floats, with the exact (erf) formulation
/// x · ½ · (1 + erf(x / √2)); erf as a rational function (absolute error below 1e-7).
/// `bias` may be NULL. Rows split over up to `threads` threads when there are many.
void ms_bias_gelu(float *x, const float *bias, int rows, int width, int threads);

/// x = LayerNorm(x + residual + bias) · gamma + beta, row by row, for `rows` rows of `width`
/// floats (mean and variance over the row, two passes). `residual` and `bias` may be NULL. Rows
/// split over up to `threads` threads when there are many.
void ms_add_layer_norm(float *x, const float *residual, const float *bias, int rows, int width, const float *gamma,
                       const float *beta, float epsilon, int threads);

/// How the linear layers of document batches (more than a query's tokens) run.
enum {
    MS_DOCUMENT_FLOAT32 = 0,     ///< OpenBLAS float32 sgemm
    MS_DOCUMENT_BF16 = 1,        ///< `ms_linear_bf16_panels` (AVX-512 BF16)
    MS_DOCUMENT_INT8_AVX2 = 2,   ///< `ms_linear_int8_panels`, vpmaddubsw + vpmaddwd (AVX2)
    MS_DOCUMENT_INT8_VNNI = 3,   ///< `ms_linear_int8_panels`, vpdpbusd (AVX-512 VNNI)
    MS_DOCUMENT_INT8_PORTABLE = 4,  ///< `ms_linear_int8_panels` in plain C (tests)
};

/// The document-batch kernels this process uses: MAILSEARCH_KERNELS forces one (`float32`,
/// `portable` → float32; `bf16`; `int8-avx2`; `int8-vnni`; `int8` = the best int8 the CPU has;
/// `int8-portable`), falling back to float32 when the CPU lacks the one named (an unknown name: the
/// default); by default bfloat16 where the CPU has AVX-512 BF16, else int8 (VNNI, else AVX2), else
/// float32. Cached on first call.
int ms_document_kernels(void);

/// What `ms_document_kernels` would answer with MAILSEARCH_KERNELS set to `name` (NULL: unset); not cached.
int ms_document_kernels_for(const char *name);

/// Whether this CPU has AVX-512 F/BW/VNNI with AVX2 (and the OS saves the ZMM registers).
int ms_kernels_vnni(void);

/// Bytes `ms_pack_int8_panels` writes for an n × k weight matrix.
size_t ms_int8_panels_bytes(int n, int k);

/// Packs w (n × k, row-major float32) for `ms_linear_int8_panels` into a 64-byte-aligned buffer:
/// each output's weights in groups of 64 inputs (k padded with zeros), each group scaled by its
/// largest magnitude to integers in −63…63 (7 bits, so that u8 × s8 pair sums never saturate
/// vpmaddubsw); panels of 16 outputs × 4 inputs (64 bytes), then per panel and group the 16
/// outputs' scales, then those scales times the group's sum of integer weights (for the zero points).
void ms_pack_int8_panels(const float *w, int n, int k, void *packed);

/// y[r·ldy + o] = bias[o] + Σᵢ x[r·k + i] · w[o·k + i] in int8: each group of 64 inputs of each row
/// of x quantized to u8 with its own step and zero point ((max − min) / 255, min ≤ 0 ≤ max),
/// integer dot products per group (int32), scaled and summed in float32. `kind` is
/// `MS_DOCUMENT_INT8_AVX2`, `MS_DOCUMENT_INT8_VNNI` or `MS_DOCUMENT_INT8_PORTABLE`: the same
/// arithmetic, bit for bit (a kind the CPU lacks falls back to the next). The outputs are split
/// over up to `threads` threads.
void ms_linear_int8_panels(const float *x, int rows, int k, const void *packed, const float *bias, int n, float *y,
                           int ldy, int threads, int kind);

/// Bytes `ms_pack_int16_panels` writes for an n × k weight matrix.
size_t ms_int16_panels_bytes(int n, int k);

/// Packs w for `ms_linear_int16_panels`: like `ms_pack_int8_panels`, but each group of 64 inputs
/// scaled to integers in −4095…4095 (13 bits) stored as int16, panels of 16 outputs × 2 inputs,
/// then the scales.
void ms_pack_int16_panels(const float *w, int n, int k, void *packed);

/// `ms_linear_int8_panels` with 13-bit integers for both sides: each group of 64 inputs of each row
/// of x scaled by its largest magnitude to −4095…4095 (no zero point), int32 dot products per group
/// (vpmaddwd on AVX2, vpdpwssd on AVX-512 VNNI, plain C; bit for bit the same). Several times the
/// int8 path's precision on both sides, for the matrices whose error matters most.
void ms_linear_int16_panels(const float *x, int rows, int k, const void *packed, const float *bias, int n, float *y,
                            int ldy, int threads, int kind);

#ifdef __cplusplus
}
#endif

#endif
