import IMAPSync
import Logging
import MailSearchKit
import ServiceLifecycle

// The long-running work of `serve` and `sync --watch`, as services of the process's ServiceGroup.

/// The sync engines of `sync --watch`, as a service of the process's ServiceGroup:
/// each account watched in a task of its own, all cancelled on graceful shutdown.
struct BackgroundSync: Service {
    let engines: [IMAPSyncEngine]

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                for engine in engines {
                    group.addTask { await engine.watch() }
                }
            }
        }
    }
}

/// `serve`'s syncs (`SyncSupervisor`: every IMAP account, and those the page adds), until shutdown.
struct SupervisedSync: Service {
    let supervisor: SyncSupervisor

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await supervisor.run()
        }
    }
}

/// `serve`'s send queue: `MessageSender.run` until shutdown.
struct BackgroundSending: Service {
    let sender: MessageSender

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await sender.run()
        }
    }
}

/// `serve`'s reader of attachments: the text of attachments not read yet (mail synced over IMAP,
/// or imported by an earlier version), read as `index attachments` does, checked every
/// `interval` seconds, one pass at a time; a pass that fails is logged and tried again later.
struct BackgroundAttachments: Service {
    let service: MailSearchService
    let logger: Logger
    var interval: Duration = .seconds(30)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                do {
                    if try service.attachmentCounts().pending > 0 {
                        let summary = try await service.readAttachments()
                        if summary.attachments > 0 {
                            logger.info("read \(summary.attachments) attachment(s) of \(summary.emails) email(s): \(summary.read) with text, \(summary.unreadable) unreadable")
                        }
                    }
                } catch {
                    logger.warning("attachments not read: \(error)")
                }
                try? await Task.sleep(for: interval)
            }
        }
    }
}
