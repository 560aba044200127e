import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Why the local language model cannot run: what is missing and how to get it.
public struct LocalModelError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public var hint: String?
    public init(_ description: String, hint: String? = nil) {
        self.description = description
        self.hint = hint
    }
}

/// A GGUF model run by llama.cpp, loaded at run time: `dlopen` of `libmailsearch-llm.so` (built by
/// `scripts/install-llm.sh` with the llama.cpp of llama-cpp-python's sdist; it links libllama.so
/// beside it), so MailSearch builds and runs without it. One generation at a time; greedy
/// decoding with a repeat penalty, in the model's own chat template.
public final class LlamaLibrary: TextGenerator, @unchecked Sendable {
    private typealias LoadFunction = @convention(c) (UnsafePointer<CChar>, Int32, Int32, UnsafeMutablePointer<CChar>, Int) -> UnsafeMutableRawPointer?
    private typealias GenerateFunction = @convention(c) (UnsafeMutableRawPointer, UnsafePointer<CChar>, UnsafePointer<CChar>, Int32,
                                                         UnsafeMutablePointer<CChar>, Int, UnsafeMutablePointer<CChar>, Int) -> Int32
    private typealias FreeFunction = @convention(c) (UnsafeMutableRawPointer) -> Void

    public let name: String
    public let libraryPath: String
    private let library: UnsafeMutableRawPointer
    private let handle: UnsafeMutableRawPointer
    private let generateFunction: GenerateFunction
    private let freeFunction: FreeFunction
    private let lock = NSLock()

    /// Where `scripts/install-llm.sh` puts the library: `$MAILSEARCH_LLM_LIBRARY`, else
    /// `${XDG_CACHE_HOME:-~/.cache}/mailsearch/llm/lib/libmailsearch-llm.so`.
    public static func defaultLibraryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let explicit = environment["MAILSEARCH_LLM_LIBRARY"], !explicit.isEmpty { return explicit }
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".cache").path
        return cache + "/mailsearch/llm/lib/libmailsearch-llm.so"
    }

    /// Loads the library and the model. Throws `LocalModelError` when either is missing or unusable.
    public init(modelPath: String, libraryPath: String? = nil, contextTokens: Int = 2048, threads: Int = 1) throws {
        let path = libraryPath ?? Self.defaultLibraryPath()
        self.libraryPath = path
        guard FileManager.default.fileExists(atPath: modelPath) else {
            throw LocalModelError("no model file at \(modelPath)", hint: "give --llm-model the path of a GGUF file")
        }
        guard FileManager.default.fileExists(atPath: path) else {
            throw LocalModelError("the local model library is not installed (no \(path))",
                                  hint: "run scripts/install-llm.sh, or set MAILSEARCH_LLM_LIBRARY")
        }
        guard let library = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "unknown reason"
            throw LocalModelError("cannot load \(path): \(reason)", hint: "run scripts/install-llm.sh again")
        }
        func symbol(_ name: String) throws -> UnsafeMutableRawPointer {
            guard let s = dlsym(library, name) else {
                dlclose(library)
                throw LocalModelError("\(path) has no \(name): not a library scripts/install-llm.sh built")
            }
            return s
        }
        let load = unsafeBitCast(try symbol("ms_llm_load"), to: LoadFunction.self)
        generateFunction = unsafeBitCast(try symbol("ms_llm_generate"), to: GenerateFunction.self)
        freeFunction = unsafeBitCast(try symbol("ms_llm_free"), to: FreeFunction.self)
        var error = [CChar](repeating: 0, count: 512)
        let loaded = error.withUnsafeMutableBufferPointer { buffer in
            load(modelPath, Int32(contextTokens), Int32(max(1, threads)), buffer.baseAddress!, buffer.count)
        }
        guard let loaded else {
            dlclose(library)
            throw LocalModelError("\(URL(fileURLWithPath: modelPath).lastPathComponent): \(Self.text(error))",
                                  hint: "give --llm-model a GGUF model llama.cpp can read")
        }
        self.library = library
        self.handle = loaded
        self.name = URL(fileURLWithPath: modelPath).lastPathComponent
    }

    deinit {
        freeFunction(handle)
        // The library stays loaded: ggml keeps threads and state that a dlclose would pull from under them.
    }

    private static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    public func generate(system: String, user: String, maxTokens: Int) throws -> String {
        try lock.withLock {
            var out = [CChar](repeating: 0, count: 16_384)
            var error = [CChar](repeating: 0, count: 512)
            let n = out.withUnsafeMutableBufferPointer { o in
                error.withUnsafeMutableBufferPointer { e in
                    generateFunction(handle, system, user, Int32(maxTokens), o.baseAddress!, o.count, e.baseAddress!, e.count)
                }
            }
            guard n >= 0 else { throw LocalModelError("the local model failed: \(Self.text(error))") }
            return String(decoding: out.prefix(Int(n)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
