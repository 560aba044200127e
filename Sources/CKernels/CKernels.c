#include "CKernels.h"

#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__x86_64__) && (defined(__clang__) || defined(__GNUC__))
#define MS_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

// MARK: - CPU detection

/// Whether MAILSEARCH_KERNELS names `name` (or "portable", which turns every kernel off).
static int kernels_turned_off(const char *name) {
    const char *forced = getenv("MAILSEARCH_KERNELS");
    return forced && (strcmp(forced, "portable") == 0 || (name && strcmp(forced, name) == 0));
}

#if MS_X86
/// Whether the CPU has FMA, AVX and F16C with OSXSAVE, and the OS saves every state in `mask`
/// (XCR0: 6 the YMM registers, 0xe6 also the ZMM registers and the masks).
static int os_saves(unsigned mask) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    const int fma = (c >> 12) & 1, osxsave = (c >> 27) & 1, avx = (c >> 28) & 1, f16c = (c >> 29) & 1;
    if (!(fma && osxsave && avx && f16c)) return 0;
    unsigned lo, hi;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    return (lo & mask) == mask;
}
#endif

static int detect_accelerated(void) {
#if MS_X86
    if (kernels_turned_off(NULL) || !os_saves(6)) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b >> 5) & 1;  // AVX2
#else
    return 0;
#endif
}

int ms_kernels_accelerated(void) {
    // A benign race: every thread computes the same answer.
    static volatile int cached = -1;
    if (cached < 0) cached = detect_accelerated();
    return cached;
}

// MARK: - Half precision, portable

static uint16_t half_from_float(float value) {
    uint32_t bits;
    memcpy(&bits, &value, 4);
    const uint32_t sign = (bits >> 16) & 0x8000u;
    const uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x7f800000u) {  // Inf or NaN
        return (uint16_t)(sign | 0x7c00u | (magnitude > 0x7f800000u ? 0x200u : 0));
    }
    if (magnitude >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u);  // rounds to Inf
    if (magnitude < 0x38800000u) {  // subnormal half (or zero)
        if (magnitude < 0x33000000u) return (uint16_t)sign;  // below half the smallest subnormal
        const uint32_t exponent = magnitude >> 23;
        const uint32_t mantissa = (magnitude & 0x7fffffu) | 0x800000u;
        const uint32_t shift = 126 - exponent;  // 14..24
        uint32_t half = mantissa >> shift;
        const uint32_t rest = mantissa & ((1u << shift) - 1);
        const uint32_t halfway = 1u << (shift - 1);
        if (rest > halfway || (rest == halfway && (half & 1))) half++;
        return (uint16_t)(sign | half);
    }
    uint32_t half = ((magnitude - 0x38000000u) >> 13);
    const uint32_t rest = magnitude & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1))) half++;
    return (uint16_t)(sign | half);
}

static float float_from_half(uint16_t half) {
    const uint32_t sign = (uint32_t)(half & 0x8000u) << 16;
    uint32_t exponent = (half >> 10) & 0x1fu;
    uint32_t mantissa = half & 0x3ffu;
    uint32_t bits;
    if (exponent == 0x1f) {
        bits = sign | 0x7f800000u | (mantissa << 13);
    } else if (exponent == 0) {
        if (mantissa == 0) {
            bits = sign;
        } else {  // subnormal: normalise
            exponent = 113;
            while ((mantissa & 0x400u) == 0) { mantissa <<= 1; exponent--; }
            bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exponent + 112) << 23) | (mantissa << 13);
    }
    float value;
    memcpy(&value, &bits, 4);
    return value;
}

// MARK: - AVX2 / FMA / F16C

#if MS_X86
#define MS_TARGET __attribute__((target("avx2,fma,f16c")))

MS_TARGET static void float_to_half_avx2(const float *source, uint16_t *destination, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        _mm_storeu_si128((__m128i *)(destination + i),
                         _mm256_cvtps_ph(_mm256_loadu_ps(source + i), _MM_FROUND_TO_NEAREST_INT));
    }
    for (; i < count; i++) destination[i] = half_from_float(source[i]);
}

MS_TARGET static void half_to_float_avx2(const uint16_t *source, float *destination, size_t count) {
    size_t i = 0;
    for (; i + 8 <= count; i += 8) {
        _mm256_storeu_ps(destination + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(source + i))));
    }
    for (; i < count; i++) destination[i] = float_from_half(source[i]);
}

/// A block of mr ≤ 6 rows × 16 outputs: 12 accumulators, two half-to-float conversions and
/// mr broadcasts per input, 2·mr FMAs. `mr` is a constant at every call, so the loops unroll.
MS_TARGET static inline __attribute__((always_inline)) void
panel_block_avx2(const float *x, int k, const uint16_t *panel, const float *bias16, float *y, int ldy, const int mr) {
    __m256 acc[6][2];
    const __m256 b0 = _mm256_loadu_ps(bias16), b1 = _mm256_loadu_ps(bias16 + 8);
    for (int r = 0; r < mr; r++) {
        acc[r][0] = b0;
        acc[r][1] = b1;
    }
    for (int i = 0; i < k; i++) {
        const __m256 w0 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + (size_t)i * 16)));
        const __m256 w1 = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(panel + (size_t)i * 16 + 8)));
        for (int r = 0; r < mr; r++) {
            const __m256 v = _mm256_broadcast_ss(x + (size_t)r * k + i);
            acc[r][0] = _mm256_fmadd_ps(v, w0, acc[r][0]);
            acc[r][1] = _mm256_fmadd_ps(v, w1, acc[r][1]);
        }
    }
    for (int r = 0; r < mr; r++) {
        _mm256_storeu_ps(y + (size_t)r * ldy, acc[r][0]);
        _mm256_storeu_ps(y + (size_t)r * ldy + 8, acc[r][1]);
    }
}

/// Panels [first, end) for every row; the result of a panel past n goes through a scratch block.
MS_TARGET static void linear_half_panels_avx2(const float *x, int rows, int k, const uint16_t *panels,
                                              const float *bias, int n, float *y, int ldy, int first, int end) {
    // Rows go in passes of at most 6, as even as possible (8 rows: 4 + 4, not 6 + 2).
    const int passes = (rows + 5) / 6;
    float scratch[6 * 16];
    float bias16[16];
    for (int p = first; p < end; p++) {
        const uint16_t *panel = panels + (size_t)p * k * 16;
        const int column = p * 16;
        const int width = n - column < 16 ? n - column : 16;
        const float *b = bias + column;
        if (width < 16) {
            for (int c = 0; c < 16; c++) bias16[c] = c < width ? bias[column + c] : 0;
            b = bias16;
        }
        int row = 0;
        for (int pass = 0; pass < passes; pass++) {
            const int mr = rows / passes + (pass < rows % passes ? 1 : 0);
            const float *xr = x + (size_t)row * k;
            float *out = width < 16 ? scratch : y + (size_t)row * ldy + column;
            const int ldo = width < 16 ? 16 : ldy;
            switch (mr) {
                case 1: panel_block_avx2(xr, k, panel, b, out, ldo, 1); break;
                case 2: panel_block_avx2(xr, k, panel, b, out, ldo, 2); break;
                case 3: panel_block_avx2(xr, k, panel, b, out, ldo, 3); break;
                case 4: panel_block_avx2(xr, k, panel, b, out, ldo, 4); break;
                case 5: panel_block_avx2(xr, k, panel, b, out, ldo, 5); break;
                default: panel_block_avx2(xr, k, panel, b, out, ldo, 6); break;
            }
            if (width < 16) {
                for (int r = 0; r < mr; r++) memcpy(y + (size_t)(row + r) * ldy + column, scratch + r * 16, width * sizeof(float));
            }
            row += mr;
        }
    }
}

/// count is a multiple of 8; largest > 0 and finite.
MS_TARGET static void quantize_int8_avx2(const float *vector, size_t count, float inverse, int8_t *bytes) {
    const __m256 scale = _mm256_set1_ps(inverse);
    for (size_t i = 0; i < count; i += 8) {
        // Round to nearest even (the default rounding mode), then narrow 32 → 16 → 8 bits.
        const __m256i steps = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_loadu_ps(vector + i), scale));
        const __m128i words = _mm_packs_epi32(_mm256_castsi256_si128(steps), _mm256_extracti128_si256(steps, 1));
        _mm_storel_epi64((__m128i *)(bytes + i), _mm_packs_epi16(words, words));
    }
}

/// dimension is a multiple of 32.
MS_TARGET static void dot_int8_avx2(const int8_t *matrix, size_t rows, size_t dimension, const int16_t *query,
                                    int32_t *out) {
    for (size_t r = 0; r < rows; r++) {
        const int8_t *row = matrix + r * dimension;
        __m256i acc0 = _mm256_setzero_si256(), acc1 = acc0;
        for (size_t i = 0; i < dimension; i += 32) {
            const __m256i a = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + i)));
            const __m256i b = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i *)(row + i + 16)));
            acc0 = _mm256_add_epi32(acc0, _mm256_madd_epi16(a, _mm256_loadu_si256((const __m256i *)(query + i))));
            acc1 = _mm256_add_epi32(acc1, _mm256_madd_epi16(b, _mm256_loadu_si256((const __m256i *)(query + i + 16))));
        }
        acc0 = _mm256_add_epi32(acc0, acc1);
        __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc0), _mm256_extracti128_si256(acc0, 1));
        sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));
        sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xb1));
        out[r] = _mm_cvtsi128_si32(sum);
    }
}
#endif

// MARK: - A team of helper threads

#define MS_MAX_HELPERS 15
/// How long an idle helper spins before it sleeps: longer than the gaps between the linear
/// layers of one query (tens of microseconds), short enough not to steal the core from the
/// keyword search that runs beside the query embedding.
#define MS_HELPER_SPIN_SECONDS 0.0002

static inline void cpu_relax(void) {
#if MS_X86
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield");
#endif
}

/// One job at a time runs on the team; its helpers spin for a while after each job (a query
/// calls the team 24 times in a couple of milliseconds), then sleep until the next.
static struct {
    pthread_mutex_t busy;  // held by the thread whose job runs
    pthread_mutex_t lock;  // with `wake`: sleeping helpers
    pthread_cond_t wake;
    _Atomic unsigned generation;  // incremented for every job
    _Atomic int pending;          // helpers not done with the current job
    int helpers;                  // helpers started
    unsigned startGeneration[MS_MAX_HELPERS + 1];
    ms_team_task task;
    void *context;
    int parts;
} team = {.busy = PTHREAD_MUTEX_INITIALIZER, .lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static double seconds_between(const struct timespec *a, const struct timespec *b) {
    return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) * 1e-9;
}

static void *team_helper(void *argument) {
    const int index = (int)(intptr_t)argument;
    unsigned seen = team.startGeneration[index];
    for (;;) {
        unsigned current;
        unsigned spins = 0;
        struct timespec idleSince = {0, 0};
        while ((current = atomic_load_explicit(&team.generation, memory_order_acquire)) == seen) {
            cpu_relax();
            if (++spins % 256 != 0) continue;
            struct timespec now;
            clock_gettime(CLOCK_MONOTONIC, &now);
            if (spins == 256) {
                idleSince = now;
            } else if (seconds_between(&idleSince, &now) > MS_HELPER_SPIN_SECONDS) {
                pthread_mutex_lock(&team.lock);
                while (atomic_load_explicit(&team.generation, memory_order_acquire) == seen) {
                    pthread_cond_wait(&team.wake, &team.lock);
                }
                pthread_mutex_unlock(&team.lock);
            }
        }
        seen = current;
        const int stride = team.helpers + 1;
        for (int part = index; part < team.parts; part += stride) team.task(team.context, part);
        atomic_fetch_sub_explicit(&team.pending, 1, memory_order_acq_rel);
    }
    return NULL;
}

/// Set by `ms_team_serial_on_this_thread`: this thread's jobs never use the team.
static _Thread_local int serialOnThisThread = 0;

void ms_team_serial_on_this_thread(int serial) { serialOnThisThread = serial != 0; }

int ms_team_is_serial_on_this_thread(void) { return serialOnThisThread; }

void ms_team_run(int parts, ms_team_task task, void *context) {
    if (parts <= 1 || serialOnThisThread || pthread_mutex_trylock(&team.busy) != 0) {
        for (int part = 0; part < parts; part++) task(context, part);
        return;
    }
    const int wanted = parts - 1 < MS_MAX_HELPERS ? parts - 1 : MS_MAX_HELPERS;
    while (team.helpers < wanted) {
        const int index = team.helpers + 1;
        team.startGeneration[index] = atomic_load_explicit(&team.generation, memory_order_acquire);
        pthread_attr_t attributes;
        pthread_attr_init(&attributes);
        pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
        pthread_t thread;
        const int failed = pthread_create(&thread, &attributes, team_helper, (void *)(intptr_t)index);
        pthread_attr_destroy(&attributes);
        if (failed) break;
        team.helpers = index;
    }
    if (team.helpers == 0) {
        pthread_mutex_unlock(&team.busy);
        for (int part = 0; part < parts; part++) task(context, part);
        return;
    }
    team.task = task;
    team.context = context;
    team.parts = parts;
    atomic_store_explicit(&team.pending, team.helpers, memory_order_relaxed);
    pthread_mutex_lock(&team.lock);
    atomic_fetch_add_explicit(&team.generation, 1, memory_order_acq_rel);
    pthread_cond_broadcast(&team.wake);
    pthread_mutex_unlock(&team.lock);
    const int stride = team.helpers + 1;
    for (int part = 0; part < parts; part += stride) task(context, part);
    // Spin for the helpers; yield when they take long (a busy machine has not scheduled them).
    for (unsigned spins = 0; atomic_load_explicit(&team.pending, memory_order_acquire) > 0; spins++) {
        if (spins < 4096) {
            cpu_relax();
        } else {
            sched_yield();
        }
    }
    pthread_mutex_unlock(&team.busy);
}

// MARK: - Public entry points

void ms_float_to_half(const float *source, uint16_t *destination, size_t count) {
#if MS_X86
    if (ms_kernels_accelerated()) {
        float_to_half_avx2(source, destination, count);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++) destination[i] = half_from_float(source[i]);
}

void ms_half_to_float(const uint16_t *source, float *destination, size_t count) {
#if MS_X86
    if (ms_kernels_accelerated()) {
        half_to_float_avx2(source, destination, count);
        return;
    }
#endif
    for (size_t i = 0; i < count; i++) destination[i] = float_from_half(source[i]);
}

size_t ms_half_panels_count(int n, int k) {
    return (size_t)((n + 15) / 16) * 16 * (size_t)k;
}

void ms_pack_half_panels(const float *w, int n, int k, uint16_t *panels) {
    const int count = (n + 15) / 16;
    float column[16];
    for (int p = 0; p < count; p++) {
        for (int i = 0; i < k; i++) {
            for (int c = 0; c < 16; c++) {
                const int o = p * 16 + c;
                column[c] = o < n ? w[(size_t)o * k + i] : 0;
            }
            ms_float_to_half(column, panels + ((size_t)p * k + i) * 16, 16);
        }
    }
}

/// The portable version: one output at a time.
static void linear_half_panels_portable(const float *x, int rows, int k, const uint16_t *panels, const float *bias,
                                        int n, float *y, int ldy, int first, int end) {
    for (int p = first; p < end; p++) {
        const uint16_t *panel = panels + (size_t)p * k * 16;
        for (int c = 0; c < 16 && p * 16 + c < n; c++) {
            const int o = p * 16 + c;
            for (int r = 0; r < rows; r++) {
                float sum = bias[o];
                for (int i = 0; i < k; i++) sum += x[(size_t)r * k + i] * float_from_half(panel[(size_t)i * 16 + c]);
                y[(size_t)r * ldy + o] = sum;
            }
        }
    }
}

typedef struct {
    const float *x;
    int rows, k;
    const uint16_t *panels;
    const float *bias;
    int n;
    float *y;
    int ldy;
    int panelCount, parts;
} linear_job;

static void linear_part(void *context, int part) {
    const linear_job *job = context;
    const int first = (int)((long)job->panelCount * part / job->parts);
    const int end = (int)((long)job->panelCount * (part + 1) / job->parts);
#if MS_X86
    if (ms_kernels_accelerated()) {
        linear_half_panels_avx2(job->x, job->rows, job->k, job->panels, job->bias, job->n, job->y, job->ldy, first, end);
        return;
    }
#endif
    linear_half_panels_portable(job->x, job->rows, job->k, job->panels, job->bias, job->n, job->y, job->ldy, first, end);
}

void ms_linear_half_panels(const float *x, int rows, int k, const uint16_t *panels, const float *bias, int n,
                           float *y, int ldy, int threads) {
    const int panelCount = (n + 15) / 16;
    int parts = threads < 1 ? 1 : threads;
    if (parts > panelCount) parts = panelCount;
    // Below about 100K multiply-adds a part, waking a helper costs more than it saves.
    const long work = (long)rows * n * k;
    if (work / parts < 100000) parts = (int)(work / 100000) > 1 ? (int)(work / 100000) : 1;
    linear_job job = {x, rows, k, panels, bias, n, y, ldy, panelCount, parts};
    ms_team_run(parts, linear_part, &job);
}

float ms_quantize_int8(const float *vector, size_t count, int8_t *bytes) {
    float largest = 0;
    int finite = 1;
    for (size_t i = 0; i < count; i++) {
        const float magnitude = fabsf(vector[i]);
        if (!(magnitude <= 3.4028235e38f)) finite = 0;  // NaN or infinity
        if (magnitude > largest) largest = magnitude;
    }
    if (!finite || largest == 0) {
        memset(bytes, 0, count);
        return 0;
    }
    const float inverse = 127.0f / largest;
#if MS_X86
    if (ms_kernels_accelerated() && count % 8 == 0) {
        quantize_int8_avx2(vector, count, inverse, bytes);
        return largest / 127.0f;
    }
#endif
    for (size_t i = 0; i < count; i++) {
        float step = nearbyintf(vector[i] * inverse);
        if (step > 127) step = 127;
        if (step < -127) step = -127;
        bytes[i] = (int8_t)step;
    }
    return largest / 127.0f;
}

void ms_dot_int8(const int8_t *matrix, size_t rows, size_t dimension, const int16_t *query, int32_t *out) {
#if MS_X86
    if (ms_kernels_accelerated() && dimension % 32 == 0) {
        dot_int8_avx2(matrix, rows, dimension, query, out);
        return;
    }
#endif
    for (size_t r = 0; r < rows; r++) {
        const int8_t *row = matrix + r * dimension;
        int32_t sum = 0;
        for (size_t i = 0; i < dimension; i++) sum += (int32_t)row[i] * (int32_t)query[i];
        out[r] = sum;
    }
}

// MARK: - Encoder: attention, GELU, LayerNorm

/// erf as a rational function of x² on [-4, 4] (absolute error below 1e-7), saturated outside.
static inline float erf_rational(float input) {
    const float x = input < -4 ? -4 : (input > 4 ? 4 : input);
    const float x2 = x * x;
    float p = -2.72614225801306e-10f;
    p = p * x2 + 2.77068142495902e-08f;
    p = p * x2 - 2.10102402082508e-06f;
    p = p * x2 - 5.69250639462346e-05f;
    p = p * x2 - 7.34990630326855e-04f;
    p = p * x2 - 2.95459980854025e-03f;
    p = p * x2 - 1.60960333262415e-02f;
    p *= x;
    float q = -1.45660718464996e-05f;
    q = q * x2 - 2.13374055278905e-04f;
    q = q * x2 - 1.68282697438203e-03f;
    q = q * x2 - 7.37332916720468e-03f;
    q = q * x2 - 1.42647390514189e-02f;
    return p / q;
}

static inline float gelu_scalar(float value) {
    return 0.5f * value * (1 + erf_rational(value * 0.7071067811865475f));
}

/// e^x for x ≤ 0: 2^n · e^r with |r| ≤ ln2/2 and a degree-6 polynomial (relative error about 2e-7).
static inline float exp_nonpositive_scalar(float input) {
    const float x = input < -87 ? -87 : input;
    const float n = nearbyintf(x * 1.4426950408889634f);
    const float r = (x - n * 0.693145751953125f) - n * 1.4286067653301870e-06f;
    float p = 1.0f / 720;
    p = p * r + 1.0f / 120;
    p = p * r + 1.0f / 24;
    p = p * r + 1.0f / 6;
    p = p * r + 0.5f;
    p = p * r + 1;
    p = p * r + 1;
    return ldexpf(p, (int)n);
}

static void bias_gelu_portable(float *x, const float *bias, int rows, int width) {
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * width;
        for (int i = 0; i < width; i++) v[i] = gelu_scalar(v[i] + (bias ? bias[i] : 0));
    }
}

static void add_layer_norm_portable(float *x, const float *residual, const float *bias, int rows, int width,
                                    const float *gamma, const float *beta, float epsilon) {
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * width;
        if (residual) {
            const float *add = residual + (size_t)r * width;
            for (int i = 0; i < width; i++) v[i] += add[i];
        }
        if (bias) {
            for (int i = 0; i < width; i++) v[i] += bias[i];
        }
        float sum = 0;
        for (int i = 0; i < width; i++) sum += v[i];
        const float mean = sum / width;
        float squares = 0;
        for (int i = 0; i < width; i++) squares += (v[i] - mean) * (v[i] - mean);
        const float scale = 1 / sqrtf(squares / width + epsilon);
        for (int i = 0; i < width; i++) v[i] = (v[i] - mean) * scale * gamma[i] + beta[i];
    }
}

/// One head of attention, portable: scores row by row in `p` (length floats).
static void attention_head_portable(const float *q, const float *k, const float *v, int ld, int length, int d,
                                    float scale, float *out, int ldo, float *p) {
    for (int i = 0; i < length; i++) {
        float maximum = -INFINITY;
        for (int j = 0; j < length; j++) {
            float s = 0;
            for (int c = 0; c < d; c++) s += q[(size_t)i * ld + c] * k[(size_t)j * ld + c];
            p[j] = s;
            if (s > maximum) maximum = s;
        }
        float total = 0;
        for (int j = 0; j < length; j++) {
            p[j] = exp_nonpositive_scalar((p[j] - maximum) * scale);
            total += p[j];
        }
        const float inverse = 1 / total;
        float *o = out + (size_t)i * ldo;
        for (int c = 0; c < d; c++) o[c] = 0;
        for (int j = 0; j < length; j++) {
            const float w = p[j] * inverse;
            for (int c = 0; c < d; c++) o[c] += w * v[(size_t)j * ld + c];
        }
    }
}

#if MS_X86
/// e^x for x ≤ 0, eight at a time (the scalar version's method; n from the 1.5·2^23 trick).
MS_TARGET static inline __m256 exp_nonpositive_avx2(__m256 input) {
    const __m256 x = _mm256_max_ps(input, _mm256_set1_ps(-87));
    const __m256 shifted = _mm256_fmadd_ps(x, _mm256_set1_ps(1.4426950408889634f), _mm256_set1_ps(12582912.0f));
    const __m256 n = _mm256_sub_ps(shifted, _mm256_set1_ps(12582912.0f));
    __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693145751953125f), x);
    r = _mm256_fnmadd_ps(n, _mm256_set1_ps(1.4286067653301870e-06f), r);
    __m256 p = _mm256_set1_ps(1.0f / 720);
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 120));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1));
    p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1));
    const __m256i exponent = _mm256_slli_epi32(
        _mm256_add_epi32(_mm256_sub_epi32(_mm256_castps_si256(shifted), _mm256_set1_epi32(0x4B400000)), _mm256_set1_epi32(127)),
        23);
    return _mm256_mul_ps(p, _mm256_castsi256_ps(exponent));
}

MS_TARGET static void bias_gelu_avx2(float *x, const float *bias, int rows, int width) {
    const __m256 half = _mm256_set1_ps(0.5f), one = _mm256_set1_ps(1), root = _mm256_set1_ps(0.7071067811865475f);
    const __m256 low = _mm256_set1_ps(-4), high = _mm256_set1_ps(4);
    for (int row = 0; row < rows; row++) {
        float *v = x + (size_t)row * width;
        int i = 0;
        for (; i + 8 <= width; i += 8) {
            __m256 value = _mm256_loadu_ps(v + i);
            if (bias) value = _mm256_add_ps(value, _mm256_loadu_ps(bias + i));
            const __m256 t = _mm256_min_ps(_mm256_max_ps(_mm256_mul_ps(value, root), low), high);
            const __m256 t2 = _mm256_mul_ps(t, t);
            __m256 p = _mm256_set1_ps(-2.72614225801306e-10f);
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(2.77068142495902e-08f));
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(-2.10102402082508e-06f));
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(-5.69250639462346e-05f));
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(-7.34990630326855e-04f));
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(-2.95459980854025e-03f));
            p = _mm256_fmadd_ps(p, t2, _mm256_set1_ps(-1.60960333262415e-02f));
            p = _mm256_mul_ps(p, t);
            __m256 q = _mm256_set1_ps(-1.45660718464996e-05f);
            q = _mm256_fmadd_ps(q, t2, _mm256_set1_ps(-2.13374055278905e-04f));
            q = _mm256_fmadd_ps(q, t2, _mm256_set1_ps(-1.68282697438203e-03f));
            q = _mm256_fmadd_ps(q, t2, _mm256_set1_ps(-7.37332916720468e-03f));
            q = _mm256_fmadd_ps(q, t2, _mm256_set1_ps(-1.42647390514189e-02f));
            const __m256 erf = _mm256_div_ps(p, q);
            _mm256_storeu_ps(v + i, _mm256_mul_ps(_mm256_mul_ps(half, value), _mm256_add_ps(one, erf)));
        }
        for (; i < width; i++) v[i] = gelu_scalar(v[i] + (bias ? bias[i] : 0));
    }
}

MS_TARGET static inline float horizontal_sum_avx2(__m256 v) {
    __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_add_ps(s, _mm_movehl_ps(s, s));
    s = _mm_add_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

MS_TARGET static inline float horizontal_max_avx2(__m256 v) {
    __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
    s = _mm_max_ps(s, _mm_movehl_ps(s, s));
    s = _mm_max_ss(s, _mm_movehdup_ps(s));
    return _mm_cvtss_f32(s);
}

/// width is a multiple of 8.
MS_TARGET static void add_layer_norm_avx2(float *x, const float *residual, const float *bias, int rows, int width,
                                          const float *gamma, const float *beta, float epsilon) {
    for (int r = 0; r < rows; r++) {
        float *v = x + (size_t)r * width;
        const float *add = residual ? residual + (size_t)r * width : NULL;
        __m256 sum0 = _mm256_setzero_ps(), sum1 = sum0;
        int i = 0;
        for (; i < width; i += 8) {
            __m256 value = _mm256_loadu_ps(v + i);
            if (add) value = _mm256_add_ps(value, _mm256_loadu_ps(add + i));
            if (bias) value = _mm256_add_ps(value, _mm256_loadu_ps(bias + i));
            _mm256_storeu_ps(v + i, value);
            if ((i / 8) & 1) sum1 = _mm256_add_ps(sum1, value); else sum0 = _mm256_add_ps(sum0, value);
        }
        const float mean = horizontal_sum_avx2(_mm256_add_ps(sum0, sum1)) / width;
        const __m256 m = _mm256_set1_ps(mean);
        __m256 sq0 = _mm256_setzero_ps(), sq1 = sq0;
        for (i = 0; i < width; i += 8) {
            const __m256 c = _mm256_sub_ps(_mm256_loadu_ps(v + i), m);
            if ((i / 8) & 1) sq1 = _mm256_fmadd_ps(c, c, sq1); else sq0 = _mm256_fmadd_ps(c, c, sq0);
        }
        const float scale = 1 / sqrtf(horizontal_sum_avx2(_mm256_add_ps(sq0, sq1)) / width + epsilon);
        const __m256 s = _mm256_set1_ps(scale);
        for (i = 0; i < width; i += 8) {
            const __m256 c = _mm256_mul_ps(_mm256_sub_ps(_mm256_loadu_ps(v + i), m), s);
            _mm256_storeu_ps(v + i, _mm256_fmadd_ps(c, _mm256_loadu_ps(gamma + i), _mm256_loadu_ps(beta + i)));
        }
    }
}

/// Scores of mr ≤ 6 query rows against every key: p[r·lp + j] = q_r · k_j, from the transposed
/// keys kt (d × lp, zero past the sequence). 12 accumulators: 6 rows × 16 keys.
MS_TARGET static inline __attribute__((always_inline)) void
scores_block_avx2(const float *q, int ld, const float *kt, int lp, int d, float *p, const int mr) {
    for (int j = 0; j < lp; j += 16) {
        __m256 acc[6][2];
        for (int r = 0; r < mr; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        for (int c = 0; c < d; c++) {
            const __m256 k0 = _mm256_loadu_ps(kt + (size_t)c * lp + j);
            const __m256 k1 = _mm256_loadu_ps(kt + (size_t)c * lp + j + 8);
            for (int r = 0; r < mr; r++) {
                const __m256 b = _mm256_broadcast_ss(q + (size_t)r * ld + c);
                acc[r][0] = _mm256_fmadd_ps(b, k0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(b, k1, acc[r][1]);
            }
        }
        for (int r = 0; r < mr; r++) {
            _mm256_storeu_ps(p + (size_t)r * lp + j, acc[r][0]);
            _mm256_storeu_ps(p + (size_t)r * lp + j + 8, acc[r][1]);
        }
    }
}

/// out[r, c] = inverse[r] · Σ_{j < length} p[r·lp + j] · v[j·ld + c] for mr ≤ 6 rows, 16 columns at a time.
MS_TARGET static inline __attribute__((always_inline)) void
values_block_avx2(const float *p, int lp, const float *v, int ld, int length, int d, const float *inverse, float *out,
                  int ldo, const int mr) {
    for (int c0 = 0; c0 < d; c0 += 16) {
        __m256 acc[6][2];
        for (int r = 0; r < mr; r++) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
        for (int j = 0; j < length; j++) {
            const __m256 v0 = _mm256_loadu_ps(v + (size_t)j * ld + c0);
            const __m256 v1 = _mm256_loadu_ps(v + (size_t)j * ld + c0 + 8);
            for (int r = 0; r < mr; r++) {
                const __m256 b = _mm256_broadcast_ss(p + (size_t)r * lp + j);
                acc[r][0] = _mm256_fmadd_ps(b, v0, acc[r][0]);
                acc[r][1] = _mm256_fmadd_ps(b, v1, acc[r][1]);
            }
        }
        for (int r = 0; r < mr; r++) {
            const __m256 s = _mm256_set1_ps(inverse[r]);
            _mm256_storeu_ps(out + (size_t)r * ldo + c0, _mm256_mul_ps(acc[r][0], s));
            _mm256_storeu_ps(out + (size_t)r * ldo + c0 + 8, _mm256_mul_ps(acc[r][1], s));
        }
    }
}

/// Row-wise softmax numerators of scale · p over the first `length` entries, in place; returns 1 / sum.
MS_TARGET static float softmax_row_avx2(float *p, int length, float scale) {
    __m256 maxima = _mm256_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 8 <= length; j += 8) maxima = _mm256_max_ps(maxima, _mm256_loadu_ps(p + j));
    float maximum = horizontal_max_avx2(maxima);
    for (; j < length; j++) maximum = p[j] > maximum ? p[j] : maximum;
    const __m256 s = _mm256_set1_ps(scale);
    const __m256 shift = _mm256_set1_ps(-maximum * scale);
    __m256 sums = _mm256_setzero_ps();
    for (j = 0; j + 8 <= length; j += 8) {
        const __m256 e = exp_nonpositive_avx2(_mm256_fmadd_ps(_mm256_loadu_ps(p + j), s, shift));
        _mm256_storeu_ps(p + j, e);
        sums = _mm256_add_ps(sums, e);
    }
    float total = horizontal_sum_avx2(sums);
    for (; j < length; j++) {
        p[j] = exp_nonpositive_scalar((p[j] - maximum) * scale);
        total += p[j];
    }
    return 1 / total;
}

/// One head; d a multiple of 16. kt: d × lp floats, p: 6 × lp floats (lp = length rounded up to 16).
MS_TARGET static void attention_head_avx2(const float *q, const float *k, const float *v, int ld, int length, int d,
                                          float scale, float *out, int ldo, float *kt, float *p) {
    const int lp = (length + 15) & ~15;
    for (int j = 0; j < length; j++) {
        const float *key = k + (size_t)j * ld;
        for (int c = 0; c < d; c++) kt[(size_t)c * lp + j] = key[c];
    }
    for (int c = 0; c < d; c++) {
        for (int j = length; j < lp; j++) kt[(size_t)c * lp + j] = 0;
    }
    // Rows in passes of at most 6, as even as possible.
    const int passes = (length + 5) / 6;
    int row = 0;
    for (int pass = 0; pass < passes; pass++) {
        const int mr = length / passes + (pass < length % passes ? 1 : 0);
        const float *qr = q + (size_t)row * ld;
        float inverse[6];
        switch (mr) {
            case 1: scores_block_avx2(qr, ld, kt, lp, d, p, 1); break;
            case 2: scores_block_avx2(qr, ld, kt, lp, d, p, 2); break;
            case 3: scores_block_avx2(qr, ld, kt, lp, d, p, 3); break;
            case 4: scores_block_avx2(qr, ld, kt, lp, d, p, 4); break;
            case 5: scores_block_avx2(qr, ld, kt, lp, d, p, 5); break;
            default: scores_block_avx2(qr, ld, kt, lp, d, p, 6); break;
        }
        for (int r = 0; r < mr; r++) inverse[r] = softmax_row_avx2(p + (size_t)r * lp, length, scale);
        float *o = out + (size_t)row * ldo;
        switch (mr) {
            case 1: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 1); break;
            case 2: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 2); break;
            case 3: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 3); break;
            case 4: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 4); break;
            case 5: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 5); break;
            default: values_block_avx2(p, lp, v, ld, length, d, inverse, o, ldo, 6); break;
        }
        row += mr;
    }
}
#endif

/// One sequence's attention, its heads split over the parts (the bfloat16 kernel's job).
typedef struct {
    const float *qkv;
    int length, ldqkv, hidden, heads;
    float scale;
    float *context;
    int ldc, parts;
} attention_job;

typedef struct {
    const float *qkv;
    const int *starts, *lengths;
    int count, ldqkv, hidden, heads, maxLength;
    float scale;
    float *context;
    int ldc, parts;
    long total;
} attention_batch_job;

/// The cost of one head of a sequence of `length` tokens, in the units `attention_batch_part` splits.
static long attention_unit_cost(int length) { return length > 0 ? (long)length * length + length : 0; }

/// The (sequence, head) pairs whose cost's midpoint falls in this part's share of the total: each
/// pair in exactly one part, each by `attention_head_avx2` (or the portable loops) alone.
static void attention_batch_part(void *context, int part) {
    const attention_batch_job *job = context;
    const int d = job->hidden / job->heads;
    const int lpMax = (job->maxLength + 15) & ~15;
#if MS_X86
    const int fast = ms_kernels_accelerated() && d % 16 == 0;
#else
    const int fast = 0;
#endif
    const long from = job->total * part / job->parts, to = job->total * (part + 1) / job->parts;
    float *scratch = NULL;
    long before = 0;
    for (int sequence = 0; sequence < job->count; sequence++) {
        const int length = job->lengths[sequence];
        const long cost = attention_unit_cost(length);
        if (cost == 0) continue;
        const int lp = (length + 15) & ~15;
        for (int head = 0; head < job->heads; head++) {
            const long middle = before + cost / 2;
            before += cost;
            if (middle < from || middle >= to) continue;
            if (!scratch) {
                scratch = malloc(sizeof(float) * ((size_t)d * lpMax + 6 * (size_t)lpMax + 16));
                if (!scratch) abort();
            }
            const float *q = job->qkv + (size_t)job->starts[sequence] * job->ldqkv + (size_t)head * d;
            const float *k = q + job->hidden, *v = q + 2 * job->hidden;
            float *out = job->context + (size_t)job->starts[sequence] * job->ldc + (size_t)head * d;
#if MS_X86
            if (fast) {
                attention_head_avx2(q, k, v, job->ldqkv, length, d, job->scale, out, job->ldc, scratch, scratch + (size_t)d * lp);
                continue;
            }
#endif
            (void)fast;
            attention_head_portable(q, k, v, job->ldqkv, length, d, job->scale, out, job->ldc, scratch);
        }
    }
    free(scratch);
}

void ms_attention_batch(const float *qkv, const int *starts, const int *lengths, int count, int ldqkv, int hidden, int heads,
                        float scale, float *context, int ldc, int threads) {
    if (count <= 0 || heads <= 0) return;
    long total = 0, work = 0;
    int maxLength = 0;
    for (int i = 0; i < count; i++) {
        total += attention_unit_cost(lengths[i]) * heads;
        if (lengths[i] > 0) work += 2L * lengths[i] * lengths[i] * hidden;
        if (lengths[i] > maxLength) maxLength = lengths[i];
    }
    if (total == 0) return;
    int parts = threads < 1 ? 1 : threads;
    // Below about 200K multiply-adds a part, waking a helper costs more than it saves.
    if (work / parts < 200000) parts = (int)(work / 200000) > 1 ? (int)(work / 200000) : 1;
    attention_batch_job job = {qkv, starts, lengths, count, ldqkv, hidden, heads, maxLength, scale, context, ldc, parts, total};
    ms_team_run(parts, attention_batch_part, &job);
}

void ms_attention(const float *qkv, int length, int ldqkv, int hidden, int heads, float scale, float *context, int ldc,
                  int threads) {
    const int start = 0;
    ms_attention_batch(qkv, &start, &length, 1, ldqkv, hidden, heads, scale, context, ldc, threads);
}


/// Part `part` of `parts` of `rows` rows: [*first, *end).
static void part_rows(int rows, int part, int parts, int *first, int *end) {
    *first = (int)((long)rows * part / parts);
    *end = (int)((long)rows * (part + 1) / parts);
}

/// Rows of an element-wise job split over the team: below this many floats a part, one thread.
#define MS_ROWS_PER_PART_FLOATS 65536

typedef struct {
    float *x;
    const float *residual, *bias, *gamma, *beta;
    int rows, width, parts;
    float epsilon;
} rows_job;

static void gelu_part(void *context, int part) {
    const rows_job *job = context;
    int first, end;
    part_rows(job->rows, part, job->parts, &first, &end);
    if (first >= end) return;
    float *x = job->x + (size_t)first * job->width;
#if MS_X86
    if (ms_kernels_accelerated()) {
        bias_gelu_avx2(x, job->bias, end - first, job->width);
        return;
    }
#endif
    bias_gelu_portable(x, job->bias, end - first, job->width);
}

static void layer_norm_part(void *context, int part) {
    const rows_job *job = context;
    int first, end;
    part_rows(job->rows, part, job->parts, &first, &end);
    if (first >= end) return;
    const size_t offset = (size_t)first * job->width;
    float *x = job->x + offset;
    const float *residual = job->residual ? job->residual + offset : NULL;
#if MS_X86
    if (ms_kernels_accelerated() && job->width % 8 == 0) {
        add_layer_norm_avx2(x, residual, job->bias, end - first, job->width, job->gamma, job->beta, job->epsilon);
        return;
    }
#endif
    add_layer_norm_portable(x, residual, job->bias, end - first, job->width, job->gamma, job->beta, job->epsilon);
}

static int rows_parts(int rows, int width, int threads) {
    const long floats = (long)rows * width;
    int parts = threads < 1 ? 1 : threads;
    if (floats / parts < MS_ROWS_PER_PART_FLOATS) parts = (int)(floats / MS_ROWS_PER_PART_FLOATS) > 1 ? (int)(floats / MS_ROWS_PER_PART_FLOATS) : 1;
    return parts > rows ? (rows > 0 ? rows : 1) : parts;
}

void ms_bias_gelu(float *x, const float *bias, int rows, int width, int threads) {
    if (rows <= 0 || width <= 0) return;
    rows_job job = {x, NULL, bias, NULL, NULL, rows, width, rows_parts(rows, width, threads), 0};
    ms_team_run(job.parts, gelu_part, &job);
}

void ms_add_layer_norm(float *x, const float *residual, const float *bias, int rows, int width, const float *gamma,
                       const float *beta, float epsilon, int threads) {
    if (rows <= 0 || width <= 0) return;
    rows_job job = {x, residual, bias, gamma, beta, rows, width, rows_parts(rows, width, threads), epsilon};
    ms_team_run(job.parts, layer_norm_part, &job);
}

// MARK: - bfloat16 linear layers for document batches (AVX-512 BF16)

static int detect_bf16(void) {
#if MS_X86
    if (kernels_turned_off("float32") || !os_saves(0xe6)) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    if (!((b >> 16) & 1)) return 0;  // AVX512F
    if (!__get_cpuid_count(7, 1, &a, &b, &c, &d)) return 0;
    return (a >> 5) & 1;  // AVX512_BF16
#else
    return 0;
#endif
}

int ms_kernels_bf16(void) {
    static volatile int cached = -1;
    if (cached < 0) cached = detect_bf16();
    return cached;
}

static uint16_t bf16_from_float(float value) {
    uint32_t bits;
    memcpy(&bits, &value, 4);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((bits >> 16) | 0x40);  // NaN stays NaN
    bits += 0x7fffu + ((bits >> 16) & 1);  // round to nearest, ties to even
    return (uint16_t)(bits >> 16);
}

size_t ms_bf16_panels_count(int n, int k) {
    return (size_t)((n + 15) / 16) * (size_t)((k + 1) / 2) * 32;
}

void ms_pack_bf16_panels(const float *w, int n, int k, uint16_t *panels) {
    const int count = (n + 15) / 16, pairs = (k + 1) / 2;
    for (int p = 0; p < count; p++) {
        for (int j = 0; j < pairs; j++) {
            uint16_t *out = panels + ((size_t)p * pairs + j) * 32;
            for (int c = 0; c < 16; c++) {
                const int o = p * 16 + c;
                const int i = 2 * j;
                out[2 * c] = o < n ? bf16_from_float(w[(size_t)o * k + i]) : 0;
                out[2 * c + 1] = (o < n && i + 1 < k) ? bf16_from_float(w[(size_t)o * k + i + 1]) : 0;
            }
        }
    }
}

#if MS_X86
#define MS_BF16_ROWS 4
#define MS_BF16_PANELS 4
#define MS_BF16_CHUNK 32

/// y rows r0…r0+R-1, outputs of panels p0…p0+P-1: xb holds the rows in bfloat16 pairs (ldx pairs
/// a row), the panels their weights (`ms_pack_bf16_panels`).
__attribute__((target("avx512f,avx512bf16"), always_inline)) static inline void
bf16_block(const uint32_t *xb, int ldx, int R, const uint16_t *panels, int pairs, int p0, int P, const float *bias,
           int n, float *y, int ldy) {
    __m512 acc[MS_BF16_ROWS][MS_BF16_PANELS];
    for (int r = 0; r < MS_BF16_ROWS; r++)
        for (int p = 0; p < MS_BF16_PANELS; p++) acc[r][p] = _mm512_setzero_ps();
    const uint16_t *w[MS_BF16_PANELS];
    for (int p = 0; p < MS_BF16_PANELS; p++) w[p] = panels + (size_t)(p0 + (p < P ? p : 0)) * pairs * 32;
    for (int j = 0; j < pairs; j++) {
        __m512bh weights[MS_BF16_PANELS];
        for (int p = 0; p < MS_BF16_PANELS; p++)
            if (p < P) weights[p] = (__m512bh)_mm512_loadu_si512((const void *)(w[p] + (size_t)j * 32));
        for (int r = 0; r < MS_BF16_ROWS; r++) {
            if (r >= R) break;
            const __m512bh pair = (__m512bh)_mm512_set1_epi32((int)xb[(size_t)r * ldx + j]);
            for (int p = 0; p < MS_BF16_PANELS; p++)
                if (p < P) acc[r][p] = _mm512_dpbf16_ps(acc[r][p], pair, weights[p]);
        }
    }
    for (int r = 0; r < MS_BF16_ROWS; r++) {
        if (r >= R) break;
        for (int p = 0; p < MS_BF16_PANELS; p++) {
            if (p >= P) break;
            const int o = (p0 + p) * 16;
            const int left = n - o;
            const __mmask16 mask = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
            const __m512 b = _mm512_maskz_loadu_ps(mask, bias + o);
            _mm512_mask_storeu_ps(y + (size_t)r * ldy + o, mask, _mm512_add_ps(acc[r][p], b));
        }
    }
}

/// Rows of x (float32) → bfloat16 pairs, zero past k.
__attribute__((target("avx512f,avx512bf16"))) static void bf16_rows(const float *x, int rows, int k, uint32_t *xb,
                                                                     int pairs) {
    for (int r = 0; r < rows; r++) {
        const float *src = x + (size_t)r * k;
        uint16_t *dst = (uint16_t *)(xb + (size_t)r * pairs);
        int i = 0;
        for (; i + 16 <= k; i += 16) {
            const __m256bh h = _mm512_cvtneps_pbh(_mm512_loadu_ps(src + i));
            _mm256_storeu_si256((__m256i *)(dst + i), (__m256i)h);
        }
        for (; i < k; i++) dst[i] = bf16_from_float(src[i]);
        if (k & 1) dst[k] = 0;
    }
}

__attribute__((target("avx512f,avx512bf16"))) static void
linear_bf16_range(const float *x, int rows, int k, const uint16_t *panels, const float *bias, int n, float *y, int ldy,
                  int first, int end) {
    const int pairs = (k + 1) / 2;
    static __thread uint32_t *buffer = NULL;
    static __thread size_t capacity = 0;
    const size_t needed = (size_t)MS_BF16_CHUNK * pairs;
    if (capacity < needed) {
        free(buffer);
        buffer = aligned_alloc(64, ((needed * 4 + 63) / 64) * 64);
        capacity = buffer ? needed : 0;
        if (!buffer) return;
    }
    for (int r0 = 0; r0 < rows; r0 += MS_BF16_CHUNK) {
        const int chunk = rows - r0 < MS_BF16_CHUNK ? rows - r0 : MS_BF16_CHUNK;
        bf16_rows(x + (size_t)r0 * k, chunk, k, buffer, pairs);
        for (int p0 = first; p0 < end; p0 += MS_BF16_PANELS) {
            const int P = end - p0 < MS_BF16_PANELS ? end - p0 : MS_BF16_PANELS;
            int r = 0;
            if (P == MS_BF16_PANELS) {
                for (; r + MS_BF16_ROWS <= chunk; r += MS_BF16_ROWS)
                    bf16_block(buffer + (size_t)r * pairs, pairs, MS_BF16_ROWS, panels, pairs, p0, MS_BF16_PANELS, bias,
                               n, y + (size_t)(r0 + r) * ldy, ldy);
            }
            for (; r < chunk; r += MS_BF16_ROWS) {
                const int R = chunk - r < MS_BF16_ROWS ? chunk - r : MS_BF16_ROWS;
                bf16_block(buffer + (size_t)r * pairs, pairs, R, panels, pairs, p0, P, bias, n,
                           y + (size_t)(r0 + r) * ldy, ldy);
            }
        }
    }
}
#endif

typedef struct {
    const float *x;
    int rows, k;
    const uint16_t *panels;
    const float *bias;
    int n;
    float *y;
    int ldy;
    int panelCount, parts;
} bf16_job;

static void bf16_part(void *context, int part) {
#if MS_X86
    const bf16_job *job = context;
    // Split on whole blocks of panels.
    const int blocks = (job->panelCount + MS_BF16_PANELS - 1) / MS_BF16_PANELS;
    const int first = (int)((long)blocks * part / job->parts) * MS_BF16_PANELS;
    int end = (int)((long)blocks * (part + 1) / job->parts) * MS_BF16_PANELS;
    if (end > job->panelCount) end = job->panelCount;
    if (first < end)
        linear_bf16_range(job->x, job->rows, job->k, job->panels, job->bias, job->n, job->y, job->ldy, first, end);
#else
    (void)context;
    (void)part;
#endif
}

void ms_linear_bf16_panels(const float *x, int rows, int k, const uint16_t *panels, const float *bias, int n, float *y,
                           int ldy, int threads) {
    const int panelCount = (n + 15) / 16;
    const int blocks = (panelCount + 3) / 4;
    int parts = threads < 1 ? 1 : threads;
    if (parts > blocks) parts = blocks;
    bf16_job job = {x, rows, k, panels, bias, n, y, ldy, panelCount, parts};
    ms_team_run(parts, bf16_part, &job);
}

// MARK: - bfloat16 attention for document batches (AVX-512 BF16)

#if MS_X86
/// Attention of one head in bfloat16 products with float32 sums: the scores q·k, the softmax in
/// float32 (its numerators rounded to bfloat16 as they are written), and the weighted values,
/// MS_ATT_ROWS query rows at a time (the last block padded with zero rows). d a multiple of 32.
#define MS_ATT_ROWS 8
typedef struct {
    uint16_t *keys;     // (lk / 16) panels × d/2 pairs × 32, lk = length rounded up to 32
    uint16_t *values;   // d/16 panels × vpairs × 32
    uint32_t *queries;  // MS_ATT_ROWS × d/2 pairs
    uint32_t *block;    // 16 keys × d/2 pairs, before transposing into a panel
    float *scores;      // MS_ATT_ROWS × lk
    uint32_t *weights;  // MS_ATT_ROWS × lk/2 (the first vpairs of a row used)
} attention_bf16_scratch;

static size_t attention_bf16_scratch_bytes(int lk, int d) {
    const size_t vpairs = (size_t)lk / 2;
    return 2 * ((size_t)lk * d) + 2 * ((size_t)d * vpairs * 2) + 4 * ((size_t)MS_ATT_ROWS * d / 2) +
           4 * ((size_t)16 * d / 2) + 4 * ((size_t)MS_ATT_ROWS * lk) + 4 * ((size_t)MS_ATT_ROWS * vpairs) + 6 * 64;
}

static attention_bf16_scratch attention_bf16_carve(void *memory, int lk, int d) {
    const size_t vpairs = (size_t)lk / 2;
    char *at = memory;
    attention_bf16_scratch s;
#define MS_CARVE(field, type, count)                      \
    at = (char *)(((uintptr_t)at + 63) & ~(uintptr_t)63); \
    s.field = (type *)at;                                 \
    at += sizeof(type) * (count);
    MS_CARVE(keys, uint16_t, (size_t)lk * d)
    MS_CARVE(values, uint16_t, (size_t)d * vpairs * 2)
    MS_CARVE(queries, uint32_t, (size_t)MS_ATT_ROWS * d / 2)
    MS_CARVE(block, uint32_t, (size_t)16 * d / 2)
    MS_CARVE(scores, float, (size_t)MS_ATT_ROWS * lk)
    MS_CARVE(weights, uint32_t, (size_t)MS_ATT_ROWS * vpairs)
#undef MS_CARVE
    return s;
}

/// `count` floats (a multiple of 16) → bfloat16, round to nearest even (as `bf16_from_float`).
__attribute__((target("avx512f,avx512bf16"), always_inline)) static inline void
bf16_convert16(const float *src, int count, uint16_t *dst) {
    for (int i = 0; i < count; i += 16)
        _mm256_storeu_si256((__m256i *)(dst + i), (__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(src + i)));
}

/// Scores of MS_ATT_ROWS query rows (bfloat16 pairs, dpairs a row) against two key panels (32 keys).
__attribute__((target("avx512f,avx512bf16"), always_inline)) static inline void
scores_bf16(const uint32_t *queries, int dpairs, const uint16_t *panel0, const uint16_t *panel1, float *scores, int lk) {
    __m512 acc[MS_ATT_ROWS][2];
    for (int r = 0; r < MS_ATT_ROWS; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int j = 0; j < dpairs; j++) {
        const __m512bh k0 = (__m512bh)_mm512_loadu_si512((const void *)(panel0 + (size_t)j * 32));
        const __m512bh k1 = (__m512bh)_mm512_loadu_si512((const void *)(panel1 + (size_t)j * 32));
        for (int r = 0; r < MS_ATT_ROWS; r++) {
            const __m512bh q = (__m512bh)_mm512_set1_epi32((int)queries[(size_t)r * dpairs + j]);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], q, k0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], q, k1);
        }
    }
    for (int r = 0; r < MS_ATT_ROWS; r++) {
        _mm512_storeu_ps(scores + (size_t)r * lk, acc[r][0]);
        _mm512_storeu_ps(scores + (size_t)r * lk + 16, acc[r][1]);
    }
}

/// out rows (the first `rows` of MS_ATT_ROWS), channels of two value panels: inverse[r] · Σ_j w_rj · v_j.
__attribute__((target("avx512f,avx512bf16"), always_inline)) static inline void
values_bf16(const uint32_t *weights, int ldw, int vpairs, const uint16_t *panel0, const uint16_t *panel1,
            const float *inverse, float *out, int ldo, int rows) {
    __m512 acc[MS_ATT_ROWS][2];
    for (int r = 0; r < MS_ATT_ROWS; r++) acc[r][0] = acc[r][1] = _mm512_setzero_ps();
    for (int j = 0; j < vpairs; j++) {
        const __m512bh v0 = (__m512bh)_mm512_loadu_si512((const void *)(panel0 + (size_t)j * 32));
        const __m512bh v1 = (__m512bh)_mm512_loadu_si512((const void *)(panel1 + (size_t)j * 32));
        for (int r = 0; r < MS_ATT_ROWS; r++) {
            const __m512bh w = (__m512bh)_mm512_set1_epi32((int)weights[(size_t)r * ldw + j]);
            acc[r][0] = _mm512_dpbf16_ps(acc[r][0], w, v0);
            acc[r][1] = _mm512_dpbf16_ps(acc[r][1], w, v1);
        }
    }
    for (int r = 0; r < MS_ATT_ROWS; r++) {
        if (r >= rows) break;
        const __m512 factor = _mm512_set1_ps(inverse[r]);
        _mm512_storeu_ps(out + (size_t)r * ldo, _mm512_mul_ps(acc[r][0], factor));
        _mm512_storeu_ps(out + (size_t)r * ldo + 16, _mm512_mul_ps(acc[r][1], factor));
    }
}

/// e^x for x ≤ 0, sixteen at a time (degree-5 polynomial: relative error below 3e-6, far under
/// bfloat16's rounding of the result).
__attribute__((target("avx512f"), always_inline)) static inline __m512 exp_nonpositive_avx512(__m512 input) {
    const __m512 x = _mm512_max_ps(input, _mm512_set1_ps(-87));
    const __m512 shifted = _mm512_fmadd_ps(x, _mm512_set1_ps(1.4426950408889634f), _mm512_set1_ps(12582912.0f));
    const __m512 n = _mm512_sub_ps(shifted, _mm512_set1_ps(12582912.0f));
    __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693145751953125f), x);
    r = _mm512_fnmadd_ps(n, _mm512_set1_ps(1.4286067653301870e-06f), r);
    __m512 p = _mm512_set1_ps(1.0f / 120);
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1));
    p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1));
    const __m512i exponent = _mm512_slli_epi32(
        _mm512_add_epi32(_mm512_sub_epi32(_mm512_castps_si512(shifted), _mm512_set1_epi32(0x4B400000)), _mm512_set1_epi32(127)),
        23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(exponent));
}

/// Softmax numerators of scale · scores over the first `length` entries, written as bfloat16
/// (zero up to lk); returns 1 / their float32 sum.
__attribute__((target("avx512f,avx512bf16"), always_inline)) static inline float
softmax_bf16(const float *scores, int length, int lk, float scale, uint16_t *weights) {
    __m512 maxima = _mm512_set1_ps(-INFINITY);
    int j = 0;
    for (; j + 16 <= length; j += 16) maxima = _mm512_max_ps(maxima, _mm512_loadu_ps(scores + j));
    const __mmask16 tail = (__mmask16)((1u << (length - j)) - 1);
    if (tail) maxima = _mm512_mask_max_ps(maxima, tail, maxima, _mm512_maskz_loadu_ps(tail, scores + j));
    const float maximum = _mm512_reduce_max_ps(maxima);
    const __m512 s = _mm512_set1_ps(scale), shift = _mm512_set1_ps(-maximum * scale);
    __m512 sums = _mm512_setzero_ps();
    for (j = 0; j < lk; j += 16) {
        const __mmask16 mask = j + 16 <= length ? (__mmask16)0xffff : j < length ? tail : 0;
        const __m512 e = _mm512_maskz_mov_ps(mask, exp_nonpositive_avx512(_mm512_fmadd_ps(_mm512_loadu_ps(scores + j), s, shift)));
        sums = _mm512_add_ps(sums, e);
        _mm256_storeu_si256((__m256i *)(weights + j), (__m256i)_mm512_cvtneps_pbh(e));
    }
    return 1 / _mm512_reduce_add_ps(sums);
}

__attribute__((target("avx512f,avx512bf16"))) static void
attention_head_bf16(const float *q, const float *k, const float *v, int ld, int length, int d, float scale, float *out,
                    int ldo, const attention_bf16_scratch *s) {
    const int lk = (length + 31) & ~31;
    const int dpairs = d / 2, vpairs = (length + 1) / 2;
    const int keyPanels = lk / 16, valuePanels = d / 16;
    // Keys: panel p, pair j holds keys p·16…p·16+15's channels 2j, 2j+1 (zero past the sequence).
    for (int p = 0; p < keyPanels; p++) {
        for (int c = 0; c < 16; c++) {
            const int key = p * 16 + c;
            uint32_t *row = s->block + (size_t)c * dpairs;
            if (key < length) bf16_convert16(k + (size_t)key * ld, d, (uint16_t *)row);
            else memset(row, 0, sizeof(uint32_t) * dpairs);
        }
        uint32_t *panel = (uint32_t *)(s->keys + (size_t)p * dpairs * 32);
        for (int j = 0; j < dpairs; j++)
            for (int c = 0; c < 16; c++) panel[(size_t)j * 16 + c] = s->block[(size_t)c * dpairs + j];
    }
    // Values: panel p (channels p·16…), pair j holds keys 2j and 2j+1 of each channel, interleaved.
    for (int j = 0; j < vpairs; j++) {
        const float *v0 = v + (size_t)(2 * j) * ld;
        const int second = 2 * j + 1 < length;
        for (int p = 0; p < valuePanels; p++) {
            const __m512i a = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(v0 + p * 16)));
            __m512i b = _mm512_setzero_si512();
            if (second) b = _mm512_cvtepu16_epi32((__m256i)_mm512_cvtneps_pbh(_mm512_loadu_ps(v0 + ld + p * 16)));
            _mm512_storeu_si512((void *)(s->values + ((size_t)p * vpairs + j) * 32),
                                _mm512_or_si512(a, _mm512_slli_epi32(b, 16)));
        }
    }
    for (int row = 0; row < length; row += MS_ATT_ROWS) {
        const int rows = length - row < MS_ATT_ROWS ? length - row : MS_ATT_ROWS;
        for (int r = 0; r < MS_ATT_ROWS; r++) {
            uint16_t *dst = (uint16_t *)(s->queries + (size_t)r * dpairs);
            if (r < rows) bf16_convert16(q + (size_t)(row + r) * ld, d, dst);
            else memset(dst, 0, sizeof(uint32_t) * dpairs);
        }
        for (int p = 0; p < keyPanels; p += 2)
            scores_bf16(s->queries, dpairs, s->keys + (size_t)p * dpairs * 32, s->keys + (size_t)(p + 1) * dpairs * 32,
                        s->scores + (size_t)p * 16, lk);
        float inverse[MS_ATT_ROWS];
        for (int r = 0; r < rows; r++)
            inverse[r] = softmax_bf16(s->scores + (size_t)r * lk, length, lk, scale,
                                      (uint16_t *)(s->weights + (size_t)r * (lk / 2)));
        for (int p = 0; p < valuePanels; p += 2)
            values_bf16(s->weights, lk / 2, vpairs, s->values + (size_t)p * vpairs * 32,
                        s->values + (size_t)(p + 1) * vpairs * 32, inverse, out + (size_t)row * ldo + p * 16, ldo, rows);
    }
}
#endif

static void attention_bf16_part(void *context, int part) {
#if MS_X86
    const attention_job *job = context;
    const int d = job->hidden / job->heads;
    const int lk = (job->length + 31) & ~31;
    const int first = job->heads * part / job->parts, end = job->heads * (part + 1) / job->parts;
    static __thread void *memory = NULL;
    static __thread size_t capacity = 0;
    const size_t needed = attention_bf16_scratch_bytes(lk, d);
    if (capacity < needed) {
        free(memory);
        memory = aligned_alloc(64, ((needed + 63) / 64) * 64);
        capacity = memory ? needed : 0;
        if (!memory) abort();
    }
    const attention_bf16_scratch scratch = attention_bf16_carve(memory, lk, d);
    for (int head = first; head < end; head++) {
        const float *q = job->qkv + (size_t)head * d;
        const float *k = q + job->hidden, *v = q + 2 * job->hidden;
        attention_head_bf16(q, k, v, job->ldqkv, job->length, d, job->scale, job->context + (size_t)head * d, job->ldc,
                            &scratch);
    }
#else
    (void)context;
    (void)part;
#endif
}

void ms_attention_bf16(const float *qkv, int length, int ldqkv, int hidden, int heads, float scale, float *context,
                       int ldc, int threads) {
    if (length <= 0 || heads <= 0) return;
    const int d = hidden / heads;
    if (!ms_kernels_bf16() || !ms_kernels_accelerated() || d % 32 != 0) {
        ms_attention(qkv, length, ldqkv, hidden, heads, scale, context, ldc, threads);
        return;
    }
    int parts = threads < 1 ? 1 : threads;
    if (parts > heads) parts = heads;
    const long work = 2L * length * length * hidden;
    if (work / parts < 200000) parts = (int)(work / 200000) > 1 ? (int)(work / 200000) : 1;
    attention_job job = {qkv, length, ldqkv, hidden, heads, scale, context, ldc, parts};
    ms_team_run(parts, attention_bf16_part, &job);
}

// MARK: - int8 linear layers for document batches (AVX2, AVX-512 VNNI)

/// Inputs per weight scale: each output's weights are quantized in groups of this many inputs.
#define MS_I8_GROUP 64
/// Panels of 16 outputs the VNNI kernel takes at a time (threads split on multiples of it).
#define MS_VNNI_PANELS_UNIT 3

#if MS_X86
/// Whether the CPU has AVX-512 VNNI (with AVX-512 F/BW and the ZMM state saved).
static int detect_vnni(void) {
    if (!os_saves(0xe6)) return 0;
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    const int f = (b >> 16) & 1, bw = (b >> 30) & 1, vnni = (c >> 11) & 1;
    return f && bw && vnni;
}
#endif

/// The document-batch kernel kind MAILSEARCH_KERNELS forces, or asks for by default.
static int detect_document_kernels(const char *forced) {
    const int avx2 = ms_kernels_accelerated();
#if MS_X86
    const int vnni = avx2 && detect_vnni();
#else
    const int vnni = 0;
#endif
    if (forced) {
        if (strcmp(forced, "portable") == 0 || strcmp(forced, "float32") == 0) return MS_DOCUMENT_FLOAT32;
        if (strcmp(forced, "bf16") == 0) return ms_kernels_bf16() ? MS_DOCUMENT_BF16 : MS_DOCUMENT_FLOAT32;
        if (strcmp(forced, "int8-vnni") == 0) return vnni ? MS_DOCUMENT_INT8_VNNI : MS_DOCUMENT_FLOAT32;
        if (strcmp(forced, "int8-avx2") == 0) return avx2 ? MS_DOCUMENT_INT8_AVX2 : MS_DOCUMENT_FLOAT32;
        if (strcmp(forced, "int8-portable") == 0) return MS_DOCUMENT_INT8_PORTABLE;
        if (strcmp(forced, "int8") == 0)
            return vnni ? MS_DOCUMENT_INT8_VNNI : avx2 ? MS_DOCUMENT_INT8_AVX2 : MS_DOCUMENT_FLOAT32;
    }
    // Default: bfloat16 where the CPU has it (int8 is faster there with VNNI, but less faithful:
    // cosine 0.998 against 0.99996); else int8 with the query, key and value projections on 13 bits
    // (VNNI, else AVX2: retrieval on held-out mail within 0.01 of float32, 1.5× float32's speed on
    // AVX2; docs/benchmarks.md); else float32 on OpenBLAS.
    if (ms_kernels_bf16()) return MS_DOCUMENT_BF16;
    return vnni ? MS_DOCUMENT_INT8_VNNI : avx2 ? MS_DOCUMENT_INT8_AVX2 : MS_DOCUMENT_FLOAT32;
}

int ms_document_kernels(void) {
    static volatile int cached = -1;
    if (cached < 0) cached = detect_document_kernels(getenv("MAILSEARCH_KERNELS"));
    return cached;
}

int ms_document_kernels_for(const char *name) { return detect_document_kernels(name); }

int ms_kernels_vnni(void) {
#if MS_X86
    static volatile int cached = -1;
    if (cached < 0) cached = ms_kernels_accelerated() && detect_vnni();
    return cached;
#else
    return 0;
#endif
}

static int i8_padded(int k) { return (k + MS_I8_GROUP - 1) / MS_I8_GROUP * MS_I8_GROUP; }

/// Largest magnitude of a 16-bit weight or activation: 13 bits, so that a group's 64 products sum
/// in int32 without overflow (64 · 4095² < 2³¹).
#define MS_I16_LIMIT 4095

size_t ms_int8_panels_bytes(int n, int k) {
    const size_t panels = (size_t)((n + 15) / 16);
    const size_t groups = (size_t)(i8_padded(k) / MS_I8_GROUP);
    // The weights, then per panel and group the 16 outputs' scales, then their scale · Σ weights.
    return panels * 16 * (size_t)i8_padded(k) + 2 * panels * groups * 16 * 4;
}

size_t ms_int16_panels_bytes(int n, int k) {
    const size_t panels = (size_t)((n + 15) / 16);
    const size_t groups = (size_t)(i8_padded(k) / MS_I8_GROUP);
    // The weights (two bytes each), then per panel and group the 16 outputs' scales.
    return panels * 16 * (size_t)i8_padded(k) * 2 + panels * groups * 16 * 4;
}

/// Packs w in groups of 64 inputs per output, each scaled by its largest magnitude to integers in
/// −limit…limit; `wide`: int16 in panels of 16 outputs × 2 inputs, else int8 in panels of 16 outputs ×
/// 4 inputs (64 bytes either way), then the scales (and for int8 the scales · Σ weights).
static void pack_quantized_panels(const float *w, int n, int k, void *packed, int wide) {
    const int kp = i8_padded(k), groups = kp / MS_I8_GROUP, count = (n + 15) / 16;
    const int limit = wide ? MS_I16_LIMIT : 63;
    int8_t *bytes = packed;
    int16_t *shorts = packed;
    float *scales = (float *)((char *)packed + (size_t)count * 16 * kp * (wide ? 2 : 1));
    float *sums = wide ? NULL : scales + (size_t)count * groups * 16;
    for (int p = 0; p < count; p++) {
        for (int c = 0; c < 16; c++) {
            const int o = p * 16 + c;
            for (int g = 0; g < groups; g++) {
                float top = 0;
                for (int i = g * MS_I8_GROUP; i < (g + 1) * MS_I8_GROUP; i++)
                    if (o < n && i < k && fabsf(w[(size_t)o * k + i]) > top) top = fabsf(w[(size_t)o * k + i]);
                const float step = top > 0 ? top / (float)limit : 1.0f;
                int sum = 0;
                for (int i = g * MS_I8_GROUP; i < (g + 1) * MS_I8_GROUP; i++) {
                    const float value = (o < n && i < k) ? w[(size_t)o * k + i] : 0;
                    long q = lrintf(value / step);
                    if (q > limit) q = limit;
                    if (q < -limit) q = -limit;
                    if (wide)
                        shorts[(size_t)p * 16 * kp + (size_t)(i / 2) * 32 + c * 2 + (i & 1)] = (int16_t)q;
                    else
                        bytes[(size_t)p * 16 * kp + (size_t)(i / 4) * 64 + c * 4 + (i & 3)] = (int8_t)q;
                    sum += (int)q;
                }
                scales[((size_t)p * groups + g) * 16 + c] = step;
                if (!wide) sums[((size_t)p * groups + g) * 16 + c] = step * (float)sum;
            }
        }
    }
}

void ms_pack_int8_panels(const float *w, int n, int k, void *packed) { pack_quantized_panels(w, n, k, packed, 0); }

void ms_pack_int16_panels(const float *w, int n, int k, void *packed) { pack_quantized_panels(w, n, k, packed, 1); }

/// One group of `count` ≤ 64 inputs → bytes q = clamp(round(x / step) + zero, 0, 255), step =
/// (max(x, 0) − min(x, 0)) / 255, zero = round(−min(x, 0) / step); bytes up to 64 hold `zero` (their
/// weights are 0). Writes step and step · zero.
static void quantize_group_u8(const float *x, int count, uint8_t *q, float *stepOut, float *offsetOut) {
    float lo = 0, hi = 0;
    for (int i = 0; i < count; i++) {
        if (x[i] < lo) lo = x[i];
        if (x[i] > hi) hi = x[i];
    }
    float step = (hi - lo) / 255.0f;
    if (!(step > 0) || !isfinite(step)) step = 1;
    const float inverse = 1.0f / step;
    const float zero = nearbyintf(-lo * inverse);
    for (int i = 0; i < count; i++) {
        float v = nearbyintf(x[i] * inverse) + zero;
        v = v < 0 ? 0 : v > 255 ? 255 : v;
        q[i] = (uint8_t)v;
    }
    for (int i = count; i < MS_I8_GROUP; i++) q[i] = (uint8_t)zero;
    *stepOut = step;
    *offsetOut = step * zero;
}

/// One group of `count` ≤ 64 inputs → int16 q = clamp(round(x / step), ±4095), step = max |x| / 4095
/// (symmetric: no zero point); values up to 64 are 0. Writes step.
static void quantize_group_i16(const float *x, int count, int16_t *q, float *stepOut) {
    float top = 0;
    for (int i = 0; i < count; i++)
        if (fabsf(x[i]) > top) top = fabsf(x[i]);
    float step = top / (float)MS_I16_LIMIT;
    if (!(step > 0) || !isfinite(step)) step = 1;
    const float inverse = 1.0f / step;
    for (int i = 0; i < count; i++) {
        float v = nearbyintf(x[i] * inverse);
        v = v < -MS_I16_LIMIT ? -MS_I16_LIMIT : v > MS_I16_LIMIT ? MS_I16_LIMIT : v;
        q[i] = (int16_t)v;
    }
    for (int i = count; i < MS_I8_GROUP; i++) q[i] = 0;
    *stepOut = step;
}

#if MS_X86
/// `quantize_group_u8` for a whole group of 64 inputs, AVX2 (the same roundings).
__attribute__((target("avx2,fma"))) static void quantize_group64_avx2(const float *x, uint8_t *q, float *stepOut,
                                                                       float *offsetOut) {
    __m256 lo8 = _mm256_setzero_ps(), hi8 = _mm256_setzero_ps();
    for (int i = 0; i < 64; i += 8) {
        const __m256 v = _mm256_loadu_ps(x + i);
        lo8 = _mm256_min_ps(lo8, v);
        hi8 = _mm256_max_ps(hi8, v);
    }
    __m128 lo4 = _mm_min_ps(_mm256_castps256_ps128(lo8), _mm256_extractf128_ps(lo8, 1));
    __m128 hi4 = _mm_max_ps(_mm256_castps256_ps128(hi8), _mm256_extractf128_ps(hi8, 1));
    lo4 = _mm_min_ps(lo4, _mm_movehl_ps(lo4, lo4));
    hi4 = _mm_max_ps(hi4, _mm_movehl_ps(hi4, hi4));
    lo4 = _mm_min_ss(lo4, _mm_shuffle_ps(lo4, lo4, 1));
    hi4 = _mm_max_ss(hi4, _mm_shuffle_ps(hi4, hi4, 1));
    const float lo = _mm_cvtss_f32(lo4), hi = _mm_cvtss_f32(hi4);
    float step = (hi - lo) / 255.0f;
    if (!(step > 0) || !isfinite(step)) step = 1;
    const float inverse = 1.0f / step;
    const float zero = nearbyintf(-lo * inverse);
    const __m256 inv8 = _mm256_set1_ps(inverse), zero8 = _mm256_set1_ps(zero);
    const __m256 top = _mm256_set1_ps(255.0f), bottom = _mm256_setzero_ps();
    for (int i = 0; i < 64; i += 8) {
        __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), inv8), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_min_ps(_mm256_max_ps(_mm256_add_ps(v, zero8), bottom), top);
        const __m256i n = _mm256_cvtps_epi32(v);
        const __m128i n16 = _mm_packus_epi32(_mm256_castsi256_si128(n), _mm256_extracti128_si256(n, 1));
        _mm_storel_epi64((__m128i *)(q + i), _mm_packus_epi16(n16, n16));
    }
    *stepOut = step;
    *offsetOut = step * zero;
}

/// `quantize_group_i16` for a whole group of 64 inputs, AVX2 (the same roundings).
__attribute__((target("avx2,fma"))) static void quantize_group64_i16_avx2(const float *x, int16_t *q, float *stepOut) {
    const __m256 magnitude = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 top8 = _mm256_setzero_ps();
    for (int i = 0; i < 64; i += 8) top8 = _mm256_max_ps(top8, _mm256_and_ps(_mm256_loadu_ps(x + i), magnitude));
    __m128 top4 = _mm_max_ps(_mm256_castps256_ps128(top8), _mm256_extractf128_ps(top8, 1));
    top4 = _mm_max_ps(top4, _mm_movehl_ps(top4, top4));
    top4 = _mm_max_ss(top4, _mm_shuffle_ps(top4, top4, 1));
    float step = _mm_cvtss_f32(top4) / (float)MS_I16_LIMIT;
    if (!(step > 0) || !isfinite(step)) step = 1;
    const __m256 inv8 = _mm256_set1_ps(1.0f / step);
    const __m256 high = _mm256_set1_ps((float)MS_I16_LIMIT), low = _mm256_set1_ps(-(float)MS_I16_LIMIT);
    for (int i = 0; i < 64; i += 8) {
        __m256 v = _mm256_round_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), inv8), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        v = _mm256_min_ps(_mm256_max_ps(v, low), high);
        const __m256i n = _mm256_cvtps_epi32(v);
        _mm_storeu_si128((__m128i *)(q + i), _mm_packs_epi32(_mm256_castsi256_si128(n), _mm256_extracti128_si256(n, 1)));
    }
    *stepOut = step;
}
#endif

/// Every kernel sums, per group g: total += (acc_g · scale_g) · step_g − offset_g · (scale_g · Σ weights_g),
/// in this order (acc the integer dot product, scale the weights', step and offset = step · zero the
/// row's; int16 has no offset term), then y = total + bias. Both layouts give each step j of a group
/// 4 bytes of a row (4 u8 or 2 int16) and 64 bytes of a panel (16 outputs × 4 int8 or × 2 int16):
/// a group is 16 steps of int8 or 32 of int16.

/// The quantized rows and weights of one product: row r's bytes at q + r · rowBytes; panel p's at
/// weights + p · panelBytes, its scales (and int8's sums) per group of 16 outputs.
typedef struct {
    const uint8_t *q;
    const float *steps, *offsets;
    int rows, kp, rowBytes, stepsPerGroup;
    const int8_t *weights;
    size_t panelBytes;
    const float *scales, *sums, *bias;
    int n;
    float *y;
    int ldy, panelCount, parts, kind, unit, wide;
} int8_job;

static void linear_quantized_portable_range(const int8_job *job, int first, int end) {
    const int groups = job->kp / MS_I8_GROUP, per = job->stepsPerGroup;
    for (int r = 0; r < job->rows; r++) {
        const uint8_t *xr = job->q + (size_t)r * job->rowBytes;
        const int16_t *xs = (const int16_t *)xr;
        for (int p = first; p < end; p++) {
            const int8_t *panel = job->weights + (size_t)p * job->panelBytes;
            const int16_t *wide = (const int16_t *)panel;
            float total[16] = {0};
            for (int g = 0; g < groups; g++) {
                int32_t acc[16] = {0};
                for (int j = g * per; j < (g + 1) * per; j++)
                    for (int c = 0; c < 16; c++) {
                        if (job->wide)
                            for (int b = 0; b < 2; b++) acc[c] += (int32_t)xs[2 * j + b] * (int32_t)wide[(size_t)j * 32 + c * 2 + b];
                        else
                            for (int b = 0; b < 4; b++) acc[c] += (int32_t)xr[4 * j + b] * (int32_t)panel[(size_t)j * 64 + c * 4 + b];
                    }
                const float *s = job->scales + ((size_t)p * groups + g) * 16;
                const float step = job->steps[(size_t)r * groups + g];
                for (int c = 0; c < 16; c++) {
                    const float scaled = (float)acc[c] * s[c];
                    total[c] = fmaf(scaled, step, total[c]);
                    if (!job->wide) {
                        const float *ws = job->sums + ((size_t)p * groups + g) * 16;
                        total[c] = fmaf(-job->offsets[(size_t)r * groups + g], ws[c], total[c]);
                    }
                }
            }
            for (int c = 0; c < 16; c++) {
                const int o = p * 16 + c;
                if (o < job->n) job->y[(size_t)r * job->ldy + o] = total[c] + job->bias[o];
            }
        }
    }
}

#if MS_X86
#define MS_I8_ROWS 4
/// Bytes of quantized rows a block of `linear_quantized_avx2_range` covers.
#define MS_I8_BLOCK_BYTES 16384

/// Rows r…r+R-1 (R ≤ 4) × one panel of 16 outputs, AVX2, per group of 64 inputs: int8 by vpmaddubsw
/// (u8 × s8, pairs summed in int16: 255·63·2 < 32767, never saturating) then vpmaddwd by ones (int32);
/// int16 (`wide`) by vpmaddwd. y = total + bias for outputs below n.
__attribute__((target("avx2,fma"), always_inline)) static inline void
quantized_block_avx2(const uint8_t *q, int rowBytes, int R, const float *steps, const float *offsets, const int8_t *panel,
                     const float *scales, const float *sums, int groups, const float *bias, int o, int n, float *y, int ldy,
                     const int wide) {
    const __m256i ones = _mm256_set1_epi16(1);
    const int per = wide ? MS_I8_GROUP / 2 : MS_I8_GROUP / 4;
    __m256 total[MS_I8_ROWS][2];
    for (int r = 0; r < MS_I8_ROWS; r++) total[r][0] = total[r][1] = _mm256_setzero_ps();
    for (int g = 0; g < groups; g++) {
        __m256i acc[MS_I8_ROWS][2];
        for (int r = 0; r < MS_I8_ROWS; r++) acc[r][0] = acc[r][1] = _mm256_setzero_si256();
        for (int j = g * per; j < (g + 1) * per; j++) {
            const __m256i w0 = _mm256_load_si256((const __m256i *)(panel + (size_t)j * 64));
            const __m256i w1 = _mm256_load_si256((const __m256i *)(panel + (size_t)j * 64 + 32));
            for (int r = 0; r < MS_I8_ROWS; r++) {
                if (r >= R) break;
                int32_t four;
                memcpy(&four, q + (size_t)r * rowBytes + 4 * j, 4);
                const __m256i x = _mm256_set1_epi32(four);
                if (wide) {
                    acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(x, w0));
                    acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(x, w1));
                } else {
                    acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(_mm256_maddubs_epi16(x, w0), ones));
                    acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(_mm256_maddubs_epi16(x, w1), ones));
                }
            }
        }
        const __m256 s0 = _mm256_loadu_ps(scales + (size_t)g * 16), s1 = _mm256_loadu_ps(scales + (size_t)g * 16 + 8);
        for (int r = 0; r < MS_I8_ROWS; r++) {
            if (r >= R) break;
            const __m256 step = _mm256_set1_ps(steps[(size_t)r * groups + g]);
            total[r][0] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][0]), s0), step, total[r][0]);
            total[r][1] = _mm256_fmadd_ps(_mm256_mul_ps(_mm256_cvtepi32_ps(acc[r][1]), s1), step, total[r][1]);
            if (!wide) {
                const __m256 u0 = _mm256_loadu_ps(sums + (size_t)g * 16), u1 = _mm256_loadu_ps(sums + (size_t)g * 16 + 8);
                const __m256 offset = _mm256_set1_ps(offsets[(size_t)r * groups + g]);
                total[r][0] = _mm256_fnmadd_ps(offset, u0, total[r][0]);
                total[r][1] = _mm256_fnmadd_ps(offset, u1, total[r][1]);
            }
        }
    }
    if (o + 16 <= n) {
        const __m256 b0 = _mm256_loadu_ps(bias + o), b1 = _mm256_loadu_ps(bias + o + 8);
        for (int r = 0; r < R; r++) {
            _mm256_storeu_ps(y + (size_t)r * ldy + o, _mm256_add_ps(total[r][0], b0));
            _mm256_storeu_ps(y + (size_t)r * ldy + o + 8, _mm256_add_ps(total[r][1], b1));
        }
        return;
    }
    float out[16];
    for (int r = 0; r < R; r++) {
        _mm256_storeu_ps(out, total[r][0]);
        _mm256_storeu_ps(out + 8, total[r][1]);
        for (int c = 0; c < 16 && o + c < n; c++) y[(size_t)r * ldy + o + c] = out[c] + bias[o + c];
    }
}

__attribute__((target("avx2,fma"), always_inline)) static inline void
linear_quantized_avx2_range(const int8_job *job, int first, int end, const int wide) {
    const int groups = job->kp / MS_I8_GROUP, rowBytes = job->rowBytes;
    // Rows in blocks whose bytes stay in L2 while every panel of this part passes over them, each
    // panel then in L1 for the block's rows: the weights are read once a block, not once every 4 rows.
    int block = MS_I8_BLOCK_BYTES / rowBytes;
    block = block < MS_I8_ROWS ? MS_I8_ROWS : block / MS_I8_ROWS * MS_I8_ROWS;
    for (int r0 = 0; r0 < job->rows; r0 += block) {
        const int r1 = job->rows - r0 < block ? job->rows : r0 + block;
        for (int p = first; p < end; p++) {
            const float *ps = job->scales + (size_t)p * groups * 16;
            const float *pu = wide ? NULL : job->sums + (size_t)p * groups * 16;
            const int8_t *panel = job->weights + (size_t)p * job->panelBytes;
            for (int r = r0; r < r1; r += MS_I8_ROWS) {
                const int R = r1 - r < MS_I8_ROWS ? r1 - r : MS_I8_ROWS;
                const uint8_t *qr = job->q + (size_t)r * rowBytes;
                const float *sr = job->steps + (size_t)r * groups, *or = job->offsets + (size_t)r * groups;
                float *yr = job->y + (size_t)r * job->ldy;
                if (R == MS_I8_ROWS)
                    quantized_block_avx2(qr, rowBytes, MS_I8_ROWS, sr, or, panel, ps, pu, groups, job->bias, p * 16, job->n,
                                         yr, job->ldy, wide);
                else
                    quantized_block_avx2(qr, rowBytes, R, sr, or, panel, ps, pu, groups, job->bias, p * 16, job->n, yr,
                                         job->ldy, wide);
            }
        }
    }
}

__attribute__((target("avx2,fma"))) static void linear_int8_avx2_range(const int8_job *job, int first, int end) {
    linear_quantized_avx2_range(job, first, end, 0);
}

__attribute__((target("avx2,fma"))) static void linear_int16_avx2_range(const int8_job *job, int first, int end) {
    linear_quantized_avx2_range(job, first, end, 1);
}

#define MS_VNNI_ROWS 4
#define MS_VNNI_PANELS MS_VNNI_PANELS_UNIT

/// Rows r…r+R-1 (R ≤ 4) × P ≤ 3 panels, AVX-512 VNNI: int8 by vpdpbusd (u8 × s8, four products into
/// int32), int16 (`wide`) by vpdpwssd (two products into int32).
__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) static inline void
quantized_block_vnni(const uint8_t *q, int rowBytes, int R, const float *steps, const float *offsets, const int8_t *panels,
                     size_t panelBytes, int P, const float *scales, const float *sums, int groups, const float *bias, int o,
                     int n, float *y, int ldy, const int wide) {
    const int per = wide ? MS_I8_GROUP / 2 : MS_I8_GROUP / 4;
    __m512 total[MS_VNNI_ROWS][MS_VNNI_PANELS];
    for (int r = 0; r < MS_VNNI_ROWS; r++)
        for (int p = 0; p < MS_VNNI_PANELS; p++) total[r][p] = _mm512_setzero_ps();
    const int8_t *w[MS_VNNI_PANELS];
    for (int p = 0; p < MS_VNNI_PANELS; p++) w[p] = panels + (size_t)(p < P ? p : 0) * panelBytes;
    for (int g = 0; g < groups; g++) {
        __m512i acc[MS_VNNI_ROWS][MS_VNNI_PANELS];
        for (int r = 0; r < MS_VNNI_ROWS; r++)
            for (int p = 0; p < MS_VNNI_PANELS; p++) acc[r][p] = _mm512_setzero_si512();
        for (int j = g * per; j < (g + 1) * per; j++) {
            __m512i weight[MS_VNNI_PANELS];
            for (int p = 0; p < MS_VNNI_PANELS; p++)
                if (p < P) weight[p] = _mm512_load_si512((const void *)(w[p] + (size_t)j * 64));
            for (int r = 0; r < MS_VNNI_ROWS; r++) {
                if (r >= R) break;
                int32_t four;
                memcpy(&four, q + (size_t)r * rowBytes + 4 * j, 4);
                const __m512i x = _mm512_set1_epi32(four);
                for (int p = 0; p < MS_VNNI_PANELS; p++)
                    if (p < P)
                        acc[r][p] = wide ? _mm512_dpwssd_epi32(acc[r][p], x, weight[p]) : _mm512_dpbusd_epi32(acc[r][p], x, weight[p]);
            }
        }
        for (int p = 0; p < MS_VNNI_PANELS; p++) {
            if (p >= P) break;
            const __m512 s = _mm512_loadu_ps(scales + ((size_t)p * groups + g) * 16);
            for (int r = 0; r < MS_VNNI_ROWS; r++) {
                if (r >= R) break;
                const __m512 step = _mm512_set1_ps(steps[(size_t)r * groups + g]);
                total[r][p] = _mm512_fmadd_ps(_mm512_mul_ps(_mm512_cvtepi32_ps(acc[r][p]), s), step, total[r][p]);
                if (!wide) {
                    const __m512 u = _mm512_loadu_ps(sums + ((size_t)p * groups + g) * 16);
                    total[r][p] = _mm512_fnmadd_ps(_mm512_set1_ps(offsets[(size_t)r * groups + g]), u, total[r][p]);
                }
            }
        }
    }
    for (int p = 0; p < MS_VNNI_PANELS; p++) {
        if (p >= P) break;
        const int first = o + p * 16;
        const int left = n - first;
        const __mmask16 mask = left >= 16 ? (__mmask16)0xffff : (__mmask16)((1u << left) - 1);
        const __m512 b = _mm512_maskz_loadu_ps(mask, bias + first);
        for (int r = 0; r < R; r++) _mm512_mask_storeu_ps(y + (size_t)r * ldy + first, mask, _mm512_add_ps(total[r][p], b));
    }
}

__attribute__((target("avx512f,avx512bw,avx512vnni"), always_inline)) static inline void
linear_quantized_vnni_range(const int8_job *job, int first, int end, const int wide) {
    const int groups = job->kp / MS_I8_GROUP, rowBytes = job->rowBytes;
    for (int p0 = first; p0 < end; p0 += MS_VNNI_PANELS) {
        const int P = end - p0 < MS_VNNI_PANELS ? end - p0 : MS_VNNI_PANELS;
        const int8_t *panels = job->weights + (size_t)p0 * job->panelBytes;
        const float *ps = job->scales + (size_t)p0 * groups * 16;
        const float *pu = wide ? NULL : job->sums + (size_t)p0 * groups * 16;
        for (int r = 0; r < job->rows; r += MS_VNNI_ROWS) {
            const int R = job->rows - r < MS_VNNI_ROWS ? job->rows - r : MS_VNNI_ROWS;
            const uint8_t *qr = job->q + (size_t)r * rowBytes;
            const float *sr = job->steps + (size_t)r * groups, *or = job->offsets + (size_t)r * groups;
            float *yr = job->y + (size_t)r * job->ldy;
            if (P == MS_VNNI_PANELS && R == MS_VNNI_ROWS)
                quantized_block_vnni(qr, rowBytes, MS_VNNI_ROWS, sr, or, panels, job->panelBytes, MS_VNNI_PANELS, ps, pu, groups,
                                     job->bias, p0 * 16, job->n, yr, job->ldy, wide);
            else
                quantized_block_vnni(qr, rowBytes, R, sr, or, panels, job->panelBytes, P, ps, pu, groups, job->bias, p0 * 16,
                                     job->n, yr, job->ldy, wide);
        }
    }
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void linear_int8_vnni_range(const int8_job *job, int first,
                                                                                          int end) {
    linear_quantized_vnni_range(job, first, end, 0);
}

__attribute__((target("avx512f,avx512bw,avx512vnni"))) static void linear_int16_vnni_range(const int8_job *job, int first,
                                                                                           int end) {
    linear_quantized_vnni_range(job, first, end, 1);
}
#endif

static void int8_part(void *context, int part) {
    const int8_job *job = context;
    const int blocks = (job->panelCount + job->unit - 1) / job->unit;
    const int first = (int)((long)blocks * part / job->parts) * job->unit;
    int end = (int)((long)blocks * (part + 1) / job->parts) * job->unit;
    if (end > job->panelCount) end = job->panelCount;
    if (first >= end) return;
#if MS_X86
    if (job->kind == MS_DOCUMENT_INT8_VNNI) {
        if (job->wide)
            linear_int16_vnni_range(job, first, end);
        else
            linear_int8_vnni_range(job, first, end);
        return;
    }
    if (job->kind == MS_DOCUMENT_INT8_AVX2) {
        if (job->wide)
            linear_int16_avx2_range(job, first, end);
        else
            linear_int8_avx2_range(job, first, end);
        return;
    }
#endif
    linear_quantized_portable_range(job, first, end);
}

typedef struct {
    const float *x;
    int rows, k, kp, groups, kind, wide;
    uint8_t *q;
    float *steps, *offsets;
    int parts;
} quantize_job;

static void quantize_part(void *context, int part) {
    const quantize_job *job = context;
    int first, end;
    part_rows(job->rows, part, job->parts, &first, &end);
    const int k = job->k, groups = job->groups;
    for (int r = first; r < end; r++) {
        for (int g = 0; g < groups; g++) {
            const int from = g * MS_I8_GROUP, count = k - from < MS_I8_GROUP ? k - from : MS_I8_GROUP;
            const float *source = job->x + (size_t)r * k + from;
            const size_t index = (size_t)r * groups + g;
            if (job->wide) {
                int16_t *target = (int16_t *)job->q + (size_t)r * job->kp + from;
#if MS_X86
                if (job->kind != MS_DOCUMENT_INT8_PORTABLE && count == MS_I8_GROUP) {
                    quantize_group64_i16_avx2(source, target, job->steps + index);
                    continue;
                }
#endif
                quantize_group_i16(source, count, target, job->steps + index);
                continue;
            }
            uint8_t *target = job->q + (size_t)r * job->kp + from;
#if MS_X86
            if (job->kind != MS_DOCUMENT_INT8_PORTABLE && count == MS_I8_GROUP) {
                quantize_group64_avx2(source, target, job->steps + index, job->offsets + index);
                continue;
            }
#endif
            quantize_group_u8(source, count, target, job->steps + index, job->offsets + index);
        }
    }
}

static void linear_quantized_panels(const float *x, int rows, int k, const void *packed, const float *bias, int n, float *y,
                                    int ldy, int threads, int kind, int wide) {
    if (rows <= 0 || n <= 0) return;
#if MS_X86
    if (kind == MS_DOCUMENT_INT8_VNNI && !ms_kernels_vnni()) kind = MS_DOCUMENT_INT8_AVX2;
    if (kind == MS_DOCUMENT_INT8_AVX2 && !ms_kernels_accelerated()) kind = MS_DOCUMENT_INT8_PORTABLE;
#endif
    if (kind != MS_DOCUMENT_INT8_VNNI && kind != MS_DOCUMENT_INT8_AVX2) kind = MS_DOCUMENT_INT8_PORTABLE;
    const int kp = i8_padded(k), groups = kp / MS_I8_GROUP, panelCount = (n + 15) / 16;
    const int width = wide ? 2 : 1;
    const int8_t *weights = packed;
    const float *scales = (const float *)(weights + (size_t)panelCount * 16 * kp * width);
    // int8 only: the scales · Σ weights after the scales (int16 has no zero points to correct).
    const float *sums = wide ? NULL : scales + (size_t)panelCount * groups * 16;
    static __thread uint8_t *buffer = NULL;
    static __thread size_t capacity = 0;
    const size_t quantized = ((size_t)rows * kp * width + 63) / 64 * 64;
    const size_t needed = quantized + (size_t)rows * groups * 8;
    if (capacity < needed) {
        free(buffer);
        buffer = aligned_alloc(64, (needed + 63) / 64 * 64);
        capacity = buffer ? needed : 0;
        if (!buffer) return;
    }
    uint8_t *q = buffer;
    float *steps = (float *)(buffer + quantized);
    float *offsets = steps + (size_t)rows * groups;
    // The rows quantized once, split over the team like an element-wise job (each row alone).
    quantize_job quantizing = {x, rows, k, kp, groups, kind, wide, q, steps, offsets, rows_parts(rows, k, threads)};
    ms_team_run(quantizing.parts, quantize_part, &quantizing);
    const int unit = kind == MS_DOCUMENT_INT8_VNNI ? MS_VNNI_PANELS_UNIT : 1;
    const int blocks = (panelCount + unit - 1) / unit;
    int parts = threads < 1 ? 1 : threads;
    if (parts > blocks) parts = blocks;
    int8_job job = {q, steps, offsets, rows, kp, kp * width, wide ? MS_I8_GROUP / 2 : MS_I8_GROUP / 4,
                    weights, (size_t)16 * kp * width, scales, sums, bias, n, y, ldy, panelCount, parts, kind, unit, wide};
    ms_team_run(parts, int8_part, &job);
}

void ms_linear_int8_panels(const float *x, int rows, int k, const void *packed, const float *bias, int n, float *y,
                           int ldy, int threads, int kind) {
    linear_quantized_panels(x, rows, k, packed, bias, n, y, ldy, threads, kind, 0);
}

void ms_linear_int16_panels(const float *x, int rows, int k, const void *packed, const float *bias, int n, float *y,
                            int ldy, int threads, int kind) {
    linear_quantized_panels(x, rows, k, packed, bias, n, y, ldy, threads, kind, 1);
}
