import ArgumentParser
import CLIOutput
import Foundation
import MailModel
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
}
