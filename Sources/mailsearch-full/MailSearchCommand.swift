import ArgumentParser
import MailModel
import Foundation

@main
struct MailSearchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mailsearch",
        abstract: "Private, on-device hybrid email search.",
        discussion: """
            Import mail (mbox, Maildir, a folder of .eml files), then search it the way you talk:
              mailsearch import ~/mail/archive.mbox --account personal
              mailsearch stats
            Data lives in --data-dir, $MAILSEARCH_DATA_DIR, or ~/.local/share/mailsearch.
            """,
        version: MailSearchVersion.current,
        subcommands: [
            ImportCommand.self, SearchCommand.self, ParseCommand.self, StatsCommand.self, AccountsCommand.self,
            AccountCommand.self, FoldersCommand.self, ShowCommand.self, ExportCommand.self, IndexCommand.self,
            RecentCommand.self, SuggestCommand.self, DemoCommand.self, ModelCommand.self, ServeCommand.self, SyncCommand.self,
            CategorizeCommand.self, RecategorizeCommand.self, SendCommand.self, ReplyCommand.self, ForwardCommand.self,
            DraftsCommand.self, OutgoingCommand.self,
            MarkCommand.self, ArchiveCommand.self, MoveCommand.self, DeleteCommand.self, ExtractAttachmentCommand.self,
        ]
    )
}
