#ifndef MAILSEARCH_COPENBLAS_H
#define MAILSEARCH_COPENBLAS_H

/// OpenBLAS, loaded when the encoder first needs it (dlopen), not when the process starts: a
/// keyword search never pays for loading it, nor for the helper threads it starts, which spin.

#ifdef __cplusplus
extern "C" {
#endif

/// Loads libopenblas (once; thread-safe). Returns 1 when it is loaded, 0 when it cannot be
/// (then `ms_blas_error` says why).
int ms_blas_load(void);

/// Why the library could not be loaded, or NULL.
const char *ms_blas_error(void);

/// cblas_sgemm(CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans, …).
/// Loads the library first if needed; aborts when it cannot be loaded (check `ms_blas_load`).
void ms_blas_sgemm(int transposeB, int m, int n, int k, float alpha, const float *a, int lda,
                   const float *b, int ldb, float beta, float *c, int ldc);

/// openblas_set_num_threads / openblas_get_num_threads (loads the library first; 0 when missing).
void ms_blas_set_threads(int count);
int ms_blas_get_threads(void);

#ifdef __cplusplus
}
#endif

#endif
