import ArgumentParser
import Foundation
import MailImport

/// The child process of `AttachmentTextExtractor`: reads one attachment's text from a file and
/// prints it; its status goes to stderr's last line (`status: NAME[: detail]`). Run under the
/// parent's limits (CPU, memory, no network, wall clock); not for people.
struct ExtractAttachmentCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extract-attachment",
        abstract: "Print the text of one attachment file (the limited child process of attachment indexing).",
        shouldDisplay: false)

    @Option(help: ArgumentHelp("pdf, docx, xlsx, pptx, odf, rtf, html, text, calendar, message, archive.", valueName: "kind"))
    var kind: String

    @Option(help: "The most bytes of text to print.")
    var outputLimit = 2 << 20

    @Option(help: "The most bytes a ZIP member may expand to.")
    var memberLimit = 64 << 20

    @Option(help: "PDF pages to read.")
    var pdfPages = 2_000

    @Argument(help: "The attachment's content, as a file.")
    var path: String

    func run() throws {
        guard let result = AttachmentTextExtractor.childExtract(kindName: kind, path: path, outputLimit: outputLimit,
                                                                memberLimit: memberLimit, pdfPages: pdfPages) else {
            throw ValidationError("unknown kind \(kind)")
        }
        var text = Array(result.text.utf8)
        if text.count > outputLimit { text = Array(text.prefix(outputLimit + 1)) }
        FileHandle.standardOutput.write(Data(text))
        FileHandle.standardError.write(Data("status: \(result.status.rawValue)\(result.detail.map { ": " + $0 } ?? "")\n".utf8))
        if result.isProblem { throw ExitCode(3) }
    }
}
