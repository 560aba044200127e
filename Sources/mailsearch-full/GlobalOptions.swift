import ArgumentParser
import CLIOutput
import Foundation
import MailStore
import SearchCLI

/// Options every data command takes.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The data directory holding mail.sqlite and search.sqlite.",
                                            discussion: "Default: $MAILSEARCH_DATA_DIR, else $XDG_DATA_HOME/mailsearch, else ~/.local/share/mailsearch.",
                                            valueName: "path"))
    var dataDir: String?

    @Flag(name: .long, help: "Print machine-readable JSON instead of text.")
    var json = false

    var dataDirectory: DataDirectory { DataDirectory.resolve(explicit: dataDir) }

    /// Opens the store; `readOnly` for commands that only read (mail.sqlite stays byte-identical).
    func openStore(readOnly: Bool = false) throws -> MailStore {
        do {
            return try MailStore(directory: dataDirectory, readOnly: readOnly)
        } catch {
            throw CLIError("\(error)")
        }
    }
}
