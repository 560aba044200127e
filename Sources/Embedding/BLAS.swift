import Foundation
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
        ms_blas_set_threads(Int32(max(1, count)))
        #endif
    }

    /// Loads OpenBLAS if it is not loaded yet (the encoders call it before their first product).
    /// Throws when the library is missing.
    public static func load() throws {
        #if !canImport(Accelerate)
        guard ms_blas_load() == 1 else {
            throw EmbeddingError.blasUnavailable(reason: ms_blas_error().map { String(cString: $0) } ?? "unknown error")
        }
        #endif
    }

    /// The name of the kernel set OpenBLAS chose for this CPU ("Haswell", "SkylakeX", …), or nil.
    public static var kernelName: String? {
        #if canImport(Accelerate)
        return nil
        #else
        guard ms_blas_load() == 1 else { return nil }
        return symbol("gotoblas_corename", as: (@convention(c) () -> UnsafeMutablePointer<CChar>?).self)
            .flatMap { $0() }.map { String(cString: $0) }
        #endif
    }

    /// Makes sure the fastest kernels run: OpenBLAS releases older than the CPU (Debian's 0.3.21
    /// on AMD Zen 4/5) fall back to the AVX2 "Haswell" kernels although the CPU has AVX-512,
    /// which halves the GEMM speed. This switches such a runtime-dispatching OpenBLAS to its
    /// "SkylakeX" kernels when the CPU has AVX-512 F/BW/DQ/VL. It respects an explicit
    /// `OPENBLAS_CORETYPE`, and does nothing elsewhere. Runs once, on first use of the encoder;
    /// call it before other threads use BLAS.
    /// Returns true when it switched kernels.
    @discardableResult
    public static func selectFastestKernel() -> Bool {
        kernelSwitched
    }

    private static let kernelSwitched: Bool = {
        #if !canImport(Accelerate) && arch(x86_64) && os(Linux)
        guard ms_blas_load() == 1 else { return false }
        let environment = ProcessInfo.processInfo.environment
        guard environment["OPENBLAS_CORETYPE"] == nil, let current = kernelName,
              ["Haswell", "Zen", "Sandybridge"].contains(current), cpuHasAVX512(),
              let quit = symbol("gotoblas_dynamic_quit", as: (@convention(c) () -> Void).self),
              let initialize = symbol("gotoblas_dynamic_init", as: (@convention(c) () -> Void).self)
        else { return false }
        setenv("OPENBLAS_CORETYPE", "SkylakeX", 1)
        quit()
        initialize()
        unsetenv("OPENBLAS_CORETYPE")
        return kernelName == "SkylakeX"
        #else
        return false
        #endif
    }()

    /// Whether /proc/cpuinfo lists the AVX-512 subsets that OpenBLAS's SkylakeX kernels use.
    static func cpuHasAVX512() -> Bool {
        // /proc files report a size of 0, so read until end of file rather than by size.
        guard let stream = fopen("/proc/cpuinfo", "r") else { return false }
        defer { fclose(stream) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, stream) > 0, let line {
            let text = String(cString: line)
            guard text.hasPrefix("flags") else { continue }
            let flags = Set(text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init))
            return ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy(flags.contains)
        }
        return false
    }

    /// A C function exported by the loaded BLAS library, if it has one by that name.
    private static func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), name) else { return nil }
        return unsafeBitCast(address, to: type)
    }

    /// The number of threads OpenBLAS uses, or nil with Accelerate.
    public static var threadCount: Int? {
        #if canImport(Accelerate)
        return nil
        #else
        return Int(ms_blas_get_threads())
        #endif
    }

    /// c[m×n] = a[m×k] · b[n×k]ᵀ, row-major: the product every encoder layer is made of
    /// (exposed for benchmarks).
    public static func multiply(m: Int, n: Int, k: Int, a: [Float], b: [Float], into c: inout [Float]) {
        precondition(a.count >= m * k && b.count >= n * k && c.count >= m * n, "matrix sizes do not match")
        a.withUnsafeBufferPointer { a in
            b.withUnsafeBufferPointer { b in
                c.withUnsafeMutableBufferPointer { c in
                    gemm(m: m, n: n, k: k, a: a.baseAddress!, lda: k, b: b.baseAddress!, ldb: k, transposeB: true,
                         beta: 0, c: c.baseAddress!, ldc: n)
                }
            }
        }
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
        #if canImport(Accelerate)
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, transposeB ? CblasTrans : CblasNoTrans,
            Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
        #else
        ms_blas_sgemm(transposeB ? 1 : 0, Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
        #endif
    }
}
