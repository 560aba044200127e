#include "COpenBLAS.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

enum { RowMajor = 101, NoTrans = 111, Trans = 112 };

typedef void (*sgemm_fn)(int, int, int, int, int, int, float, const float *, int, const float *, int, float, float *, int);
typedef void (*set_threads_fn)(int);
typedef int (*get_threads_fn)(void);

static pthread_once_t once = PTHREAD_ONCE_INIT;
static sgemm_fn sgemm;
static set_threads_fn set_threads;
static get_threads_fn get_threads;
static char error[512];

static void load(void) {
    const char *names[] = {"libopenblas.so.0", "libopenblas.so", "libopenblasp.so.0"};
    void *library = NULL;
    for (unsigned i = 0; i < sizeof names / sizeof names[0] && !library; i++) {
        // Global: its own symbols (gotoblas_corename, …) stay reachable through dlsym(RTLD_DEFAULT, …).
        library = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    }
    if (!library) {
        const char *reason = dlerror();
        snprintf(error, sizeof error, "cannot load OpenBLAS (libopenblas.so.0): %s; install libopenblas0",
                 reason ? reason : "not found");
        return;
    }
    sgemm = (sgemm_fn)dlsym(library, "cblas_sgemm");
    set_threads = (set_threads_fn)dlsym(library, "openblas_set_num_threads");
    get_threads = (get_threads_fn)dlsym(library, "openblas_get_num_threads");
    if (!sgemm) snprintf(error, sizeof error, "the OpenBLAS library has no cblas_sgemm");
}

int ms_blas_load(void) {
    pthread_once(&once, load);
    return sgemm != NULL;
}

const char *ms_blas_error(void) {
    pthread_once(&once, load);
    return error[0] ? error : NULL;
}

void ms_blas_sgemm(int transposeB, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc) {
    if (!ms_blas_load()) {
        // Callers check ms_blas_load first (MiniLMEmbedder throws); reaching here is a bug.
        fprintf(stderr, "mailsearch: %s\n", ms_blas_error());
        abort();
    }
    sgemm(RowMajor, NoTrans, transposeB ? Trans : NoTrans, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}

void ms_blas_set_threads(int count) {
    if (ms_blas_load() && set_threads) set_threads(count);
}

int ms_blas_get_threads(void) {
    return ms_blas_load() && get_threads ? get_threads() : 0;
}
