#if canImport(Accelerate)
import Accelerate
#else
import COpenBLAS
#endif

/// The CBLAS library behind the encoder's matrix products: OpenBLAS on Linux, Accelerate on Apple.
public enum BLAS {
    /// Sets how many threads OpenBLAS uses for one matrix product (default: the machine's cores).
    /// Has no effect with Accelerate.
    public static func setThreadCount(_ count: Int) {
        #if !canImport(Accelerate)
        openblas_set_num_threads(Int32(max(1, count)))
        #endif
    }

    /// The number of threads OpenBLAS uses, or nil with Accelerate.
    public static var threadCount: Int? {
        #if canImport(Accelerate)
        return nil
        #else
        return Int(openblas_get_num_threads())
        #endif
    }

    /// C[m×n] = alpha · A[m×k] · op(B) + beta · C, all row-major; op(B) is Bᵀ when `transposeB`
    /// (B stored as n×k) and B otherwise (stored as k×n).
    @inline(__always)
    static func gemm(
        m: Int, n: Int, k: Int, alpha: Float = 1,
        a: UnsafePointer<Float>, lda: Int,
        b: UnsafePointer<Float>, ldb: Int, transposeB: Bool,
        beta: Float, c: UnsafeMutablePointer<Float>, ldc: Int
    ) {
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }
}
