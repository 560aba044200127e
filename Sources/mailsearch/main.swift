// `mailsearch`: the lean front end. A one-shot `mailsearch search …` runs here, in a binary that
// links the search and nothing else (no ArgumentParser, SwiftNIO, Hummingbird, IMAP); every
// other command, `--help`, and any search arguments this file does not read exactly as
// ArgumentParser would, are handed to `mailsearch-full` beside it (exec, same arguments), which
// has every command. Both run the same `SearchRun`.
import Foundation
import SearchCLI
import SearchEngine

/// Replaces this process with `mailsearch-full` (same arguments, same environment).
func handOver() -> Never {
    let arguments = CommandLine.arguments
    let full = fullExecutablePath()
    var argv: [UnsafeMutablePointer<CChar>?] = [strdup(full)] + arguments.dropFirst().map { strdup($0) }
    argv.append(nil)
    execv(full, &argv)
    let reason = String(cString: strerror(errno))
    FileHandle.standardError.write(Data("Error: cannot run \(full): \(reason) (`make release`, or `swift build --product mailsearch-full`, builds it beside mailsearch)\n".utf8))
    exit(1)
}

/// `mailsearch-full` in this executable's directory.
func fullExecutablePath() -> String {
    var buffer = [CChar](repeating: 0, count: 4097)
    #if os(Linux)
    let n = readlink("/proc/self/exe", &buffer, 4096)
    let me = n > 0 ? String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self) : CommandLine.arguments[0]
    #else
    var size = UInt32(4096)
    let me = _NSGetExecutablePath(&buffer, &size) == 0 ? String(cString: buffer) : CommandLine.arguments[0]
    #endif
    guard let slash = me.lastIndex(of: "/") else { return "mailsearch-full" }
    return String(me[...slash]) + "mailsearch-full"
}

/// `search`'s arguments as ArgumentParser reads them, for the forms this file knows: `--name value`,
/// `--name=value`, flags, one query. nil for anything else (help, an unknown or repeated name, a
/// value that looks like an option, a value ArgumentParser would reject, a second query, `--`):
/// `mailsearch-full` then answers, with ArgumentParser's own words.
func readSearch(_ arguments: ArraySlice<String>) -> SearchRun? {
    var query: String?
    // Arrays, not sets or dictionaries: a handful of names, and no hashing set up for them.
    var values: [(name: String, value: String)] = []
    var flags: [String] = []
    let options = ["--scope", "--limit", "--mode", "--min-similarity", "--now", "--time-zone", "--data-dir"]
    let flagNames = ["--no-history", "--why", "--json"]
    var rest = arguments[...]
    while let argument = rest.popFirst() {
        if argument.hasPrefix("-") {
            var name = argument
            var value: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                value = String(argument[argument.index(after: equals)...])
            }
            if flagNames.contains(name) {
                guard value == nil, !flags.contains(name) else { return nil }
                flags.append(name)
            } else if options.contains(name) {
                if value == nil { value = rest.popFirst() }
                guard let value, !value.hasPrefix("-"), !values.contains(where: { $0.name == name }) else { return nil }
                values.append((name, value))
            } else {
                return nil
            }
        } else {
            guard query == nil else { return nil }
            query = argument
        }
    }
    guard let query, query != "help" else { return nil }
    func option(_ name: String) -> String? { values.first { $0.name == name }?.value }
    var search = SearchRun(query: query)
    search.scope = option("--scope")
    if let text = option("--limit") {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let limit = Int(text) else { return nil }
        search.limit = limit
    }
    if let text = option("--mode") {
        guard let mode = SearchMode(rawValue: text) else { return nil }
        search.mode = mode
    }
    if let text = option("--min-similarity") {
        guard let floor = Double(text) else { return nil }
        search.minSimilarity = floor
    }
    search.now = option("--now")
    search.timeZone = option("--time-zone")
    search.dataDir = option("--data-dir")
    search.noHistory = flags.contains("--no-history")
    search.why = flags.contains("--why")
    search.json = flags.contains("--json")
    guard search.invalidity == nil, CLIClock.validNow(search.now), CLIClock.validTimeZone(search.timeZone) else { return nil }
    return search
}

#if canImport(Glibc)
// One malloc arena for every thread: the process lives for one search, and each thread's own
// arena (reserved, then grown page range by page range) costs more system calls than it saves.
// (glibc's mallopt and M_ARENA_MAX, from <malloc.h>, which the Glibc module does not export.)
@_silgen_name("mallopt") func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
_ = glibcMallopt(-8 /* M_ARENA_MAX */, 1)
#endif
let arguments = CommandLine.arguments
guard arguments.count > 2, arguments[1] == "search", let search = readSearch(arguments.dropFirst(2)) else { handOver() }
// Semantic and hybrid searches load the model, and with it OpenBLAS through dlopen: not in this
// statically linked executable (a shared library loaded into it would bring a C library of its own).
guard search.mode == .keyword else { handOver() }
// A keyword search of plain words over an up-to-date index: on one SQLite connection, on this thread.
if search.runOneShot() { exit(0) }
// Any other keyword search through the service, on the concurrency runtime's threads, while this
// thread waits. Not an async main: it ends in dispatch_main, whose pthread_exit unwinds this
// thread's stack, and in a static executable the first unwind sorts every frame description of the
// binary (about 10 ms).
Task.detached {
    do {
        try await search.run()
        exit(0)
    } catch {
        // As ArgumentParser's `exit(withError:)` words an error thrown by a command's `run`.
        let message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        if !message.isEmpty { FileHandle.standardError.write(Data("Error: \(message)\n".utf8)) }
        exit(EXIT_FAILURE)
    }
}
while true { pause() }
