import ArgumentParser
import Embedding
import Foundation
import MailModel
import MailSearchKit
import SearchEngine
import SearchCLI
import SearchIndex

/// Options that pin the clock and time zone, so date words ("last week") give reproducible results.
struct ClockOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Pretend it is this moment (ISO-8601, e.g. 2024-06-15T10:00:00Z).", valueName: "iso-8601"))
    var now: String?

    @Option(help: ArgumentHelp("Time zone for date words (e.g. Europe/Berlin). Default: the system's.", valueName: "id"))
    var timeZone: String?

    func validate() throws {
        if let now, !CLIClock.validNow(now) { throw ValidationError("--now \"\(now)\" is not an ISO-8601 date-time like 2024-06-15T10:00:00Z") }
        if let timeZone, !CLIClock.validTimeZone(timeZone) { throw ValidationError("--time-zone \"\(timeZone)\" is not a known time zone identifier (like Europe/Berlin)") }
    }

    func parser() -> SearchQueryParser { CLIClock.parser(now: now, timeZone: timeZone) }
}

extension GlobalOptions {
    /// Opens the mailbox through the service (index notices, E-05, go to standard error).
    func openService(readOnly: Bool = false, clock: ClockOptions? = nil,
                     minimumSimilarity: Double? = nil,
                     backgroundEmbedding: Bool = false, cacheEntries: Int = 20, backgroundSummaries: Bool? = nil,
                     llm: LLMConfiguration? = nil) throws -> MailSearchService {
        try CLIService.open(dataDirectory: dataDirectory, readOnly: readOnly, parser: clock?.parser(),
                            minimumSimilarity: minimumSimilarity, backgroundEmbedding: backgroundEmbedding,
                            cacheEntries: cacheEntries, backgroundSummaries: backgroundSummaries, llm: llm)
    }
}

/// `--llm-model FILE`: a local language model (GGUF) for thread summaries, loaded through the library
/// `scripts/install-llm.sh` builds; its summaries are checked, and the extractive one shown when rejected.
struct LLMOptions: ParsableArguments {
    @Option(name: .customLong("llm-model"),
            help: ArgumentHelp("A GGUF model for thread summaries, run by llama.cpp (scripts/install-llm.sh); its summary is shown only when every name, number and date in it is in the thread.",
                               valueName: "file"))
    var modelPath: String?

    @Option(name: .customLong("llm-library"),
            help: ArgumentHelp("libmailsearch-llm.so. Default: $MAILSEARCH_LLM_LIBRARY, else ~/.cache/mailsearch/llm/lib/.", valueName: "file"))
    var libraryPath: String?

    func validate() throws {
        if libraryPath != nil, modelPath == nil { throw ValidationError("--llm-library needs --llm-model") }
        guard let modelPath else { return }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: modelPath, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ValidationError("--llm-model \"\(modelPath)\": no such file (give the path of a GGUF model)")
        }
        guard let handle = FileHandle(forReadingAtPath: modelPath) else {
            throw ValidationError("--llm-model \"\(modelPath)\": cannot be read")
        }
        defer { try? handle.close() }
        guard handle.readData(ofLength: 4) == Data("GGUF".utf8) else {
            throw ValidationError("--llm-model \"\(modelPath)\" is not a GGUF file (it does not start with \"GGUF\")")
        }
    }

    var configuration: LLMConfiguration? {
        modelPath.map { LLMConfiguration(modelPath: $0, libraryPath: libraryPath) }
    }
}
